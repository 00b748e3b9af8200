/**
 * The line between a refusal and a crash: a reader may refuse an input only with a HoneError
 * whose code is in electron/common/errors.ts and whose message says where the problem is.
 * Anything else thrown (TypeError, RangeError, a plain Error) is a crash.
 */
import { HoneError, isErrorCode, type ErrorCode } from '../../../electron/common/errors.ts';

/** `err` in one line: its class, code and message, and the first frame of its stack. */
export function describeThrown(err: unknown): string {
  if (!(err instanceof Error)) return `a thrown ${typeof err}: ${String(err).slice(0, 200)}`;
  const frame = err.stack?.split('\n').find((l) => l.trim().startsWith('at '))?.trim() ?? '';
  const code = (err as { code?: unknown }).code;
  return `${err.name}${code === undefined ? '' : ` [${String(code)}]`}: ${err.message.slice(0, 300)} ${frame}`;
}

export interface RefusalRules {
  /** The message must contain this, or one of these (a path, a method name): the refusal says where. */
  where: string | readonly string[];
  /** Codes this reader may refuse with; any listed code when not given. */
  codes?: readonly ErrorCode[];
}

/** Null when `err` is a proper refusal by `rules`, else what is wrong with it. */
export function refusalProblem(err: unknown, rules: RefusalRules): string | null {
  if (!(err instanceof HoneError)) return `crashed: ${describeThrown(err)}`;
  if (!isErrorCode(err.code)) return `refused with code ${JSON.stringify(err.code)}, which errors.ts does not list: ${err.message}`;
  if (rules.codes && !rules.codes.includes(err.code)) return `refused with ${err.code} (expected ${rules.codes.join(' or ')}): ${err.message.slice(0, 300)}`;
  const places = typeof rules.where === 'string' ? [rules.where] : rules.where;
  if (!places.some((w) => err.message.includes(w))) return `a refusal that does not say where (${places.join(' or ')}): ${err.code}: ${err.message.slice(0, 300)}`;
  return null;
}

/** Runs `read`; null when it returned or refused properly, else the crash or the bad refusal. */
export async function readOrRefuse<T>(read: () => Promise<T> | T, rules: RefusalRules): Promise<{ value: T } | { refused: HoneError } | { problem: string }> {
  try {
    return { value: await read() };
  } catch (err) {
    const problem = refusalProblem(err, rules);
    return problem ? { problem } : { refused: err as HoneError };
  }
}
