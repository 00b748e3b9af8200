/**
 * Error codes that cross process boundaries (engine host <-> its parent, CLI output, the web
 * server), as plain data: `{code, message, detail?}`. One list, one spelling: snake_case, the
 * same names the C++ engine and hone-train print. docs/errors.md is the same list for people;
 * test/unit/error-codes.test.ts checks every code used in electron/ and native/ is here.
 * No platform imports.
 */

export const ERROR_CODES = {
  // The engine's status names (native/engine hone_status_name), also the addon's error codes.
  invalid_argument: 'a parameter is out of range or inconsistent',
  io_error: 'a file cannot be read or written (missing, permissions, disk full)',
  bad_format: 'a file or example is not what it claims (not GGUF, truncated, wrong version)',
  unsupported: 'valid input the engine cannot handle yet (an architecture, an op)',
  out_of_memory: 'an allocation failed or the memory plan does not fit',
  cancelled: 'the run was asked to stop',
  adapter_mismatch: 'an adapter was made for another base: architecture, tensor names or shapes (the message names each)',
  internal: 'a bug, or a broken install (a missing addon): please report',
  // The addon (native/binding).
  disposed: 'an engine object was used after dispose()',
  // hone-train (native/cli), besides the engine's names.
  bad_adapter: 'an adapter file cannot be loaded for this model',
  bad_template: 'the chat template cannot be parsed or rendered',
  bad_text: 'a text gives too few tokens for the check asked for',
  bad_vocab: 'a --vocab-from file is not a GGUF with a tokenizer',
  check_failed: 'a gradient check could not run',
  forward_failed: 'the forward pass of a check failed',
  load_failed: 'the model cannot be loaded',
  reference_failed: "llama.cpp's own forward pass (the reference of a check) failed",
  scan_failed: "llama.cpp's graph of the model cannot be built",
  // Datasets (hone-train, the engine host).
  bad_dataset: 'the dataset has errors (detail: the problems, by file and line)',
  no_examples: 'nothing is left to train on after rendering and the length policy',
  // The dataset import layer (services/dataset).
  bad_option: 'an import option is invalid',
  file_changed: 'a data file changed between its scan and its reading',
  // The engine host and its client.
  busy: 'the engine host runs one job at a time',
  host_exited: 'the engine host process died (detail: reason, last checkpoint)',
  unknown_request: 'a request kind the engine host does not know',
  // Front ends.
  bad_config: 'a config file, flag or option value is invalid',
  not_found: 'a file, route or item that does not exist',
} as const satisfies Record<string, string>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CODES, code);
}

export interface PlainError {
  code: ErrorCode;
  message: string;
  detail?: unknown;
}

export class HoneError extends Error {
  constructor(
    public code: ErrorCode,
    message: string,
    public detail?: unknown,
  ) {
    super(message);
    this.name = 'HoneError';
  }
}

/**
 * Any thrown value as `{code, message, detail?}`. A code of the list is kept; a Node system
 * error (ENOENT, EACCES…) becomes `io_error` with its errno name in `detail`; anything else
 * is `internal`.
 */
export function toPlain(err: unknown): PlainError {
  if (err && typeof err === 'object') {
    const e = err as { code?: unknown; message?: unknown; detail?: unknown };
    const message = typeof e.message === 'string' ? e.message : String(err);
    const errno = typeof e.code === 'string' && /^E[A-Z0-9]+$/.test(e.code) ? e.code : null;
    const code: ErrorCode = isErrorCode(e.code) ? e.code : errno ? 'io_error' : 'internal';
    const detail = e.detail ?? (errno && !isErrorCode(e.code) ? { errno } : undefined);
    return detail === undefined ? { code, message } : { code, message, detail };
  }
  return { code: 'internal', message: String(err) };
}

export function fromPlain(p: PlainError): HoneError {
  return new HoneError(p.code, p.message, p.detail);
}
