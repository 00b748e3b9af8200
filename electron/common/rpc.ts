/**
 * Web mode's WebSocket messages, shared by the server (electron/server/) and the browser client
 * the renderer uses. One JSON object per text frame. No platform imports.
 *
 *   client → server  {t:'call', id, method, args}
 *   server → client  {t:'reply', id, ok:true, result} | {t:'reply', id, ok:false, error}
 *                    {t:'event', event}   (every ServiceEvent, as `subscribe` delivers it)
 *
 * Method names and argument checks are the service's (`SERVICE_METHODS`, `validateCall`): this
 * file only frames them.
 */
import { HoneError, type PlainError } from './errors.ts';
import { showValue } from './show-value.ts';
import type { ServiceEvent } from './service.ts';

/** The WebSocket's path on the server. */
export const WS_PATH = '/ws';

/** Largest message either side sends (a call's arguments are paths and settings, never data). */
export const MAX_MESSAGE_BYTES = 1024 * 1024;

/** Close codes: 1009 is the standard "message too big" (ws sends it when maxPayload is passed). */
export const CLOSE_NORMAL = 1000;
export const CLOSE_GOING_AWAY = 1001;
export const CLOSE_TOO_BIG = 1009;

/** A call's id: chosen by the client, echoed in its reply. */
export type CallId = string | number;

export interface CallMessage {
  t: 'call';
  id: CallId;
  /** Wire name (`runs.start`); checked by `validateCall`, not here. */
  method: unknown;
  /** Positional arguments; checked by `validateCall`, not here. */
  args: unknown;
}

export type ReplyMessage =
  | { t: 'reply'; id: CallId | null; ok: true; result: unknown }
  // id is null only when the message was too broken to carry one
  | { t: 'reply'; id: CallId | null; ok: false; error: PlainError };

export interface EventMessage {
  t: 'event';
  event: ServiceEvent;
}

export type ClientMessage = CallMessage;
export type ServerMessage = ReplyMessage | EventMessage;

function isCallId(v: unknown): v is CallId {
  return (typeof v === 'string' && v.length > 0 && v.length <= 128) || (typeof v === 'number' && Number.isSafeInteger(v));
}

/** The id of a message that failed to parse, when it has a usable one (so the client can match the error). */
function salvageId(v: unknown): CallId | null {
  return v && typeof v === 'object' && isCallId((v as { id?: unknown }).id) ? (v as { id: CallId }).id : null;
}

/**
 * Reads one client frame. Throws a HoneError('invalid_argument') naming what is wrong, with
 * `detail.id` set to the call's id when one could be read.
 */
export function parseClientMessage(text: string): CallMessage {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new HoneError('invalid_argument', `message is not JSON: ${(e as Error).message}`, { id: null });
  }
  const id = salvageId(v);
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new HoneError('invalid_argument', 'message must be a JSON object {t, id, method, args}', { id });
  const m = v as Record<string, unknown>;
  if (m.t !== 'call') throw new HoneError('invalid_argument', `message field 't' must be 'call' (got ${showValue(m.t)})`, { id });
  if (!isCallId(m.id)) throw new HoneError('invalid_argument', "message field 'id' must be a non-empty string or an integer", { id: null });
  if (!('method' in m)) throw new HoneError('invalid_argument', "message field 'method' is missing", { id });
  if (!('args' in m)) throw new HoneError('invalid_argument', "message field 'args' is missing (use [] for none)", { id });
  return { t: 'call', id: m.id, method: m.method, args: m.args };
}

/** Reads one server frame (for clients). Throws on anything that is not a reply or an event. */
export function parseServerMessage(text: string): ServerMessage {
  const v = JSON.parse(text) as Partial<ServerMessage> | null;
  if (v && v.t === 'event' && typeof (v as EventMessage).event === 'object') return v as EventMessage;
  if (v && v.t === 'reply' && typeof (v as ReplyMessage).ok === 'boolean') return v as ReplyMessage;
  throw new HoneError('bad_format', `not a server message: ${text.slice(0, 80)}`);
}
