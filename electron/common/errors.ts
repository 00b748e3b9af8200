/**
 * Error codes that cross process boundaries (engine host <-> its parent, CLI output), as plain
 * data: `{code, message, detail?}`. No platform imports.
 */

/** Engine status names (the same names hone-train prints) and the host's own codes. */
export type ErrorCode =
  | 'invalid_argument' // a parameter is out of range or inconsistent
  | 'io_error' // a file cannot be read or written
  | 'bad_format' // a file or example is not what it claims
  | 'unsupported' // valid input the engine cannot handle yet
  | 'out_of_memory'
  | 'cancelled'
  | 'internal' // a bug: please report
  | 'disposed' // an engine object was used after dispose()
  | 'busy' // the host runs one job at a time
  | 'bad-dataset' // the dataset has errors (detail: the problems, by file and line)
  | 'bad-config' // a config file or option is invalid
  | 'no-examples' // nothing left to train on after rendering and truncation
  | 'host-exited' // the engine host process died (detail: reason, last checkpoint)
  | 'unknown-request';

export interface PlainError {
  code: ErrorCode | string;
  message: string;
  detail?: unknown;
}

export class HoneError extends Error {
  constructor(
    public code: ErrorCode | string,
    message: string,
    public detail?: unknown,
  ) {
    super(message);
    this.name = 'HoneError';
  }
}

/** Any thrown value as `{code, message, detail?}`. */
export function toPlain(err: unknown): PlainError {
  if (err && typeof err === 'object') {
    const e = err as { code?: unknown; message?: unknown; detail?: unknown };
    const code = typeof e.code === 'string' ? e.code : 'internal';
    const message = typeof e.message === 'string' ? e.message : String(err);
    return e.detail === undefined ? { code, message } : { code, message, detail: e.detail };
  }
  return { code: 'internal', message: String(err) };
}

export function fromPlain(p: PlainError): HoneError {
  return new HoneError(p.code, p.message, p.detail);
}
