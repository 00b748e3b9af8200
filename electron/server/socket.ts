/**
 * One browser's WebSocket: every call goes through `dispatchCall` (the one validator every
 * transport uses), every ServiceEvent is forwarded, nothing a client sends can throw here.
 */
import type { WebSocket } from 'ws';
import { dispatchCall } from '../common/dispatch.ts';
import { toPlain, type PlainError } from '../common/errors.ts';
import { CLOSE_GOING_AWAY, parseClientMessage, type CallId, type ServerMessage } from '../common/rpc.ts';
import type { HoneService } from '../common/service.ts';

export type Log = (line: string) => void;

/**
 * How far a client may fall behind: bytes queued for it that it has not read. Past this it is
 * dropped, else a peer that never reads would make the server hold every event and reply for
 * it. Checked before each send, so one large reply (a long run's events) always goes out.
 */
export const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

/** Drops the client when it is too far behind; true when it was (or is already closing). */
function droppedForLag(ws: WebSocket, log: Log): boolean {
  if (ws.readyState !== ws.OPEN) return true;
  if (ws.bufferedAmount <= MAX_BUFFERED_BYTES) return false;
  log(`hone serve: dropped a WebSocket client that stopped reading (${ws.bufferedAmount} bytes waiting for it)`);
  // terminate, not close: a close frame would wait behind the bytes it never reads
  ws.terminate();
  return true;
}

function send(ws: WebSocket, msg: ServerMessage, log: Log): void {
  if (droppedForLag(ws, log)) return;
  let text: string;
  try {
    text = JSON.stringify(msg);
  } catch (e) {
    // a result that is not JSON (a cycle, a BigInt) is a bug in the service, reported as such
    if (msg.t !== 'reply') return;
    text = JSON.stringify({ t: 'reply', id: msg.id, ok: false, error: { code: 'internal', message: `the reply could not be encoded: ${(e as Error).message}` } });
  }
  ws.send(text);
}

function replyError(ws: WebSocket, id: CallId | null, error: PlainError, log: Log): void {
  send(ws, { t: 'reply', id, ok: false, error }, log);
}

async function onMessage(ws: WebSocket, service: HoneService, log: Log, data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean): Promise<void> {
  // no work for a client that would not read the answer
  if (droppedForLag(ws, log)) return;
  if (isBinary) return replyError(ws, null, { code: 'invalid_argument', message: 'messages must be JSON text frames, not binary' }, log);
  const text = Buffer.isBuffer(data) ? data.toString('utf8') : Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data).toString('utf8');
  let call;
  try {
    call = parseClientMessage(text);
  } catch (e) {
    const p = toPlain(e);
    const id = (p.detail as { id?: CallId | null } | undefined)?.id ?? null;
    return replyError(ws, id, { code: p.code, message: p.message }, log);
  }
  try {
    const result = await dispatchCall(service, call.method, call.args);
    send(ws, { t: 'reply', id: call.id, ok: true, result: result ?? null }, log);
  } catch (e) {
    replyError(ws, call.id, toPlain(e), log);
  }
}

/** Serves one connection until it closes; returns a function that ends it (server shutdown). */
export function serveSocket(ws: WebSocket, service: HoneService, log: Log): () => void {
  const off = service.subscribe((event) => send(ws, { t: 'event', event }, log));
  let subscribed = true;
  const unsubscribe = () => {
    if (subscribed) off();
    subscribed = false;
  };
  // a peer that stops answering pings (laptop lid closed, network gone) is dropped
  let alive = true;
  ws.on('pong', () => (alive = true));
  const ping = setInterval(() => {
    if (!alive) return ws.terminate();
    alive = false;
    ws.ping();
  }, 30_000);
  ping.unref();
  ws.on('message', (data, isBinary) => void onMessage(ws, service, log, data, isBinary));
  ws.on('error', (e) => log(`hone serve: websocket error: ${e.message}`));
  ws.on('close', () => {
    clearInterval(ping);
    unsubscribe();
  });
  return () => {
    clearInterval(ping);
    unsubscribe();
    ws.close(CLOSE_GOING_AWAY, 'server shutting down');
  };
}
