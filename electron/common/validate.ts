/**
 * Argument validation for every service call, shared by every transport (web mode, Electron's
 * main): a call that passes here reaches the service with the types its interface promises.
 * Errors name the method, the argument and what was wrong. No platform imports.
 */
import { CHAT_LIMITS, CHAT_ROLES } from './chat.ts';
import { HoneError } from './errors.ts';
import { showValue } from './show-value.ts';
import { ADAPTER_STORAGES, EXPORT_FORMATS, MERGE_TYPES } from './export.ts';
import { SERVICE_METHODS, type ServiceMethod } from './service.ts';
import { isOptionKey, OPTION_KINDS } from './settings-schema.ts';

const MAX_PATH = 4096;

function bad(method: string, arg: string, what: string, value: unknown): HoneError {
  return new HoneError('invalid_argument', `${method}: '${arg}' ${what} (got ${showValue(value)})`);
}

/** Run ids are folder names made by the registry: nothing that can climb out of it. */
export function isRunId(v: unknown): v is string {
  return typeof v === 'string' && /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(v) && !v.includes('..');
}

function checkPath(method: string, arg: string, v: unknown): string {
  if (typeof v !== 'string' || v.length === 0) throw bad(method, arg, 'must be a non-empty path', v);
  if (v.length > MAX_PATH || v.includes('\0')) throw bad(method, arg, 'is not a valid path', v);
  return v;
}

function checkOption(method: string, key: string, v: unknown): void {
  if (!isOptionKey(key)) throw bad(method, `settings.${key}`, 'is not a training option', v);
  const kind = OPTION_KINDS[key];
  const arg = `settings.${key}`;
  if (Array.isArray(kind)) {
    if (!kind.includes(v as string)) throw bad(method, arg, `must be one of ${kind.join(', ')}`, v);
  } else if (kind === 'number' || kind === 'integer') {
    if (typeof v !== 'number' || !Number.isFinite(v)) throw bad(method, arg, 'must be a finite number', v);
    if (kind === 'integer' && !Number.isInteger(v)) throw bad(method, arg, 'must be a whole number', v);
  } else if (kind === 'boolean') {
    if (typeof v !== 'boolean') throw bad(method, arg, 'must be true or false', v);
  } else if (kind === 'paths') {
    if (!Array.isArray(v)) throw bad(method, arg, 'must be a list of paths', v);
    v.forEach((p, i) => checkPath(method, `${arg}[${i}]`, p));
  } else if (kind === 'path') {
    if (typeof v !== 'string' || v.length > MAX_PATH || v.includes('\0')) throw bad(method, arg, 'must be a path', v);
  } else if (typeof v !== 'string') {
    throw bad(method, arg, 'must be a string', v);
  }
}

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const EXPORT_KEYS = ['run', 'adapter', 'model', 'format', 'out', 'type', 'storage'];

/**
 * An export request (common/export.ts): a run (id or folder path) or an adapter with its model,
 * never both; a known format; `type` only for merged, `storage` only for gguf; `out` a path,
 * required when there is no run folder to put the export in.
 */
function checkExport(method: string, v: unknown): void {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw bad(method, 'request', 'must be an object {run | adapter, model; format; out?}', v);
  const r = v as Record<string, unknown>;
  for (const k of Object.keys(r)) if (r[k] !== undefined && !EXPORT_KEYS.includes(k)) throw bad(method, `request.${k}`, `is not known (${EXPORT_KEYS.join(', ')})`, r[k]);
  const oneOf = (key: string, list: readonly string[]) => {
    if (!list.includes(r[key] as string)) throw bad(method, `request.${key}`, `must be one of ${list.join(', ')}`, r[key]);
  };
  oneOf('format', EXPORT_FORMATS);
  const fromRun = r.run !== undefined;
  const fromFiles = r.adapter !== undefined || r.model !== undefined;
  if (fromRun === fromFiles) throw bad(method, 'request', fromRun ? 'gives both a run and adapter/model files: give one of them' : 'must give a run, or an adapter with its model', v);
  if (fromRun) {
    if (typeof r.run !== 'string' || (!RUN_ID.test(r.run) && !/[\\/]/.test(r.run))) throw bad(method, 'request.run', 'must be a run id or the path of a run folder', r.run);
    if (/[\\/]/.test(r.run)) checkPath(method, 'request.run', r.run);
    else if (r.run.includes('..')) throw bad(method, 'request.run', 'is not a run id', r.run);
  } else {
    if (r.format === 'axolotl') throw bad(method, 'request', "exports a run's dataset and recipe: it needs a run, not an adapter file", v);
    checkPath(method, 'request.adapter', r.adapter);
    checkPath(method, 'request.model', r.model);
    if (r.out === undefined) throw bad(method, 'request.out', 'is required when exporting an adapter file (there is no run folder to put the export in)', r.out);
  }
  if (r.out !== undefined) checkPath(method, 'request.out', r.out);
  if (r.type !== undefined) {
    if (r.format !== 'merged') throw bad(method, 'request.type', `is only for the merged format (a re-quantized model), not ${r.format}`, r.type);
    oneOf('type', MERGE_TYPES);
  }
  if (r.storage !== undefined) {
    if (r.format !== 'gguf') throw bad(method, 'request.storage', `is only for the gguf format (how the adapter stores A and B), not ${r.format}`, r.storage);
    oneOf('storage', ADAPTER_STORAGES);
  }
}

const CHAT_KEYS = ['chatId', 'run', 'adapter', 'model', 'scale', 'messages', 'compare', 'sampling', 'backend'];
const SAMPLING_KEYS = ['maxTokens', 'greedy', 'temperature', 'topP', 'seed'];
const BACKENDS = ['cpu', 'auto', 'cuda', 'metal'];

function isRecord(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

function checkRun(method: string, arg: string, run: unknown): void {
  if (typeof run !== 'string' || (!RUN_ID.test(run) && !/[\\/]/.test(run))) throw bad(method, arg, 'must be a run id or the path of a run folder', run);
  if (/[\\/]/.test(run)) checkPath(method, arg, run);
  else if (run.includes('..')) throw bad(method, arg, 'is not a run id', run);
}

function checkNumber(method: string, arg: string, v: unknown, min: number, max: number, opts: { integer?: boolean; aboveMin?: boolean } = {}): void {
  const ok = typeof v === 'number' && Number.isFinite(v) && (opts.aboveMin ? v > min : v >= min) && v <= max && (!opts.integer || Number.isInteger(v));
  if (!ok) throw bad(method, arg, `must be ${opts.integer ? 'a whole number' : 'a number'} ${opts.aboveMin ? `above ${min}` : `from ${min}`} to ${max}`, v);
}

/**
 * A chat request (common/chat.ts): a run, or a model with an optional adapter; messages
 * system (first only) / user / assistant ending with a user message, within CHAT_LIMITS; scale
 * 0..4; sampling within its bounds; compare only with an adapter.
 */
function checkChat(method: string, v: unknown): void {
  if (!isRecord(v)) throw bad(method, 'request', 'must be an object {run | model, adapter?; messages; scale?; compare?; sampling?}', v);
  for (const k of Object.keys(v)) if (v[k] !== undefined && !CHAT_KEYS.includes(k)) throw bad(method, `request.${k}`, `is not known (${CHAT_KEYS.join(', ')})`, v[k]);
  if (v.chatId !== undefined && !isRunId(v.chatId)) throw bad(method, 'request.chatId', 'must be letters, digits, . _ - (at most 128)', v.chatId);
  const fromRun = v.run !== undefined;
  if (fromRun && (v.adapter !== undefined || v.model !== undefined)) throw bad(method, 'request', 'gives both a run and adapter/model files: give one of them', v);
  if (fromRun) checkRun(method, 'request.run', v.run);
  else {
    if (v.model === undefined) throw bad(method, 'request', 'must give a run, or a model (with an adapter to try)', v);
    checkPath(method, 'request.model', v.model);
    if (v.adapter !== undefined) checkPath(method, 'request.adapter', v.adapter);
  }
  if (v.scale !== undefined) checkNumber(method, 'request.scale', v.scale, 0, CHAT_LIMITS.scale);
  if (v.compare !== undefined && typeof v.compare !== 'boolean') throw bad(method, 'request.compare', 'must be true or false', v.compare);
  if (v.compare === true && !fromRun && v.adapter === undefined) throw bad(method, 'request.compare', 'needs an adapter (or a run) to compare the base with', v.compare);
  if (v.backend !== undefined && !BACKENDS.includes(v.backend as string)) throw bad(method, 'request.backend', `must be one of ${BACKENDS.join(', ')}`, v.backend);

  const msgs = v.messages;
  if (!Array.isArray(msgs) || msgs.length === 0) throw bad(method, 'request.messages', 'must be a non-empty list of {role, content}', msgs);
  if (msgs.length > CHAT_LIMITS.messages) throw bad(method, 'request.messages', `holds at most ${CHAT_LIMITS.messages} messages`, msgs.length);
  let total = 0;
  msgs.forEach((m, i) => {
    const arg = `request.messages[${i}]`;
    if (!isRecord(m)) throw bad(method, arg, 'must be an object {role, content}', m);
    for (const k of Object.keys(m)) if (k !== 'role' && k !== 'content') throw bad(method, `${arg}.${k}`, 'is not known (role, content)', m[k]);
    if (!CHAT_ROLES.includes(m.role as never)) throw bad(method, `${arg}.role`, `must be one of ${CHAT_ROLES.join(', ')}`, m.role);
    if (m.role === 'system' && i > 0) throw bad(method, `${arg}.role`, 'system can only be the first message', m.role);
    if (typeof m.content !== 'string') throw bad(method, `${arg}.content`, 'must be a string', m.content);
    if (m.content.length > CHAT_LIMITS.messageChars) throw bad(method, `${arg}.content`, `must be at most ${CHAT_LIMITS.messageChars} characters`, m.content.length);
    total += m.content.length;
  });
  if (total > CHAT_LIMITS.totalChars) throw bad(method, 'request.messages', `must hold at most ${CHAT_LIMITS.totalChars} characters in all`, total);
  if ((msgs[msgs.length - 1] as { role: string }).role !== 'user') throw bad(method, 'request.messages', 'must end with a user message (the one to reply to)', (msgs[msgs.length - 1] as { role: string }).role);

  if (v.sampling === undefined) return;
  const s = v.sampling;
  if (!isRecord(s)) throw bad(method, 'request.sampling', 'must be an object {maxTokens?, greedy?, temperature?, topP?, seed?}', s);
  for (const k of Object.keys(s)) if (s[k] !== undefined && !SAMPLING_KEYS.includes(k)) throw bad(method, `request.sampling.${k}`, `is not known (${SAMPLING_KEYS.join(', ')})`, s[k]);
  if (s.maxTokens !== undefined) checkNumber(method, 'request.sampling.maxTokens', s.maxTokens, 1, CHAT_LIMITS.maxTokens, { integer: true });
  if (s.greedy !== undefined && typeof s.greedy !== 'boolean') throw bad(method, 'request.sampling.greedy', 'must be true or false', s.greedy);
  if (s.temperature !== undefined) checkNumber(method, 'request.sampling.temperature', s.temperature, 0, CHAT_LIMITS.temperature, { aboveMin: true });
  if (s.topP !== undefined) checkNumber(method, 'request.sampling.topP', s.topP, 0, 1, { aboveMin: true });
  if (s.seed !== undefined) checkNumber(method, 'request.sampling.seed', s.seed, 0, 4294967295, { integer: true });
}

function checkArg(method: string, kind: string, v: unknown): void {
  const name = kind.replace(/\?$/, '');
  if (kind.endsWith('?') && v === undefined) return;
  switch (name) {
    case 'path':
      checkPath(method, name, v);
      return;
    case 'paths':
      if (!Array.isArray(v) || v.length === 0) throw bad(method, name, 'must be a non-empty list of paths', v);
      v.forEach((p, i) => checkPath(method, `paths[${i}]`, p));
      return;
    case 'id':
      if (!isRunId(v)) throw bad(method, name, 'is not a run id', v);
      return;
    case 'since':
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw bad(method, name, 'must be a whole number >= 0', v);
      return;
    case 'more': {
      if (!v || typeof v !== 'object' || Array.isArray(v)) throw bad(method, name, 'must be an object {steps} or {epochs}', v);
      const m = v as Record<string, unknown>;
      for (const k of Object.keys(m)) if (k !== 'steps' && k !== 'epochs') throw bad(method, `more.${k}`, 'is not known (steps or epochs)', m[k]);
      const given = ['steps', 'epochs'].filter((k) => m[k] !== undefined);
      if (given.length !== 1) throw bad(method, name, 'must give exactly one of steps, epochs', v);
      const n = m[given[0]];
      if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0 || (given[0] === 'steps' && !Number.isInteger(n))) {
        throw bad(method, `more.${given[0]}`, 'must be a positive number', n);
      }
      return;
    }
    case 'settings': {
      if (!v || typeof v !== 'object' || Array.isArray(v)) throw bad(method, name, 'must be an object of training options', v);
      const s = v as Record<string, unknown>;
      checkPath(method, 'settings.model', s.model);
      if (!Array.isArray(s.data) || s.data.length === 0) throw bad(method, 'settings.data', 'must be a non-empty list of paths', s.data);
      for (const [k, val] of Object.entries(s)) if (val !== undefined) checkOption(method, k, val);
      return;
    }
    case 'export':
      checkExport(method, v);
      return;
    case 'chat':
      checkChat(method, v);
      return;
    case 'chatId':
      if (!isRunId(v)) throw bad(method, name, 'is not a chat id (letters, digits, . _ -)', v);
      return;
    default:
      throw new HoneError('internal', `${method}: no validator for argument kind '${kind}'`);
  }
}

export function isServiceMethod(m: unknown): m is ServiceMethod {
  return typeof m === 'string' && Object.prototype.hasOwnProperty.call(SERVICE_METHODS, m);
}

/** Checks a call as it arrived from a transport; returns the typed method and arguments. */
export function validateCall(method: unknown, args: unknown): { method: ServiceMethod; args: unknown[] } {
  if (!isServiceMethod(method)) throw new HoneError('unknown_request', `unknown method ${showValue(method)}`);
  if (!Array.isArray(args)) throw bad(method, 'arguments', 'must be a list', args);
  const kinds: readonly string[] = SERVICE_METHODS[method];
  if (args.length > kinds.length) throw bad(method, 'arguments', `takes at most ${kinds.length}`, args.length);
  kinds.forEach((kind, i) => checkArg(method, kind, args[i]));
  return { method, args };
}
