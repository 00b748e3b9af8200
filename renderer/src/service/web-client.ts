/**
 * HoneService over web mode's one WebSocket (frames of electron/common/rpc.ts). Calls made while
 * connecting wait for the socket; a dropped connection rejects every unanswered call with
 * `host_exited` (the service's process is out of reach: the call may or may not have run) and
 * reconnects with exponential backoff. Events reach every `subscribe` listener in order.
 */
import { fromPlain, HoneError } from '../../../electron/common/errors.ts';
import { parseServerMessage, WS_PATH, type CallMessage } from '../../../electron/common/rpc.ts';
import { SERVICE_METHODS, type HoneService, type ServiceEvent, type ServiceMethod } from '../../../electron/common/service.ts';

export type ConnectionState = 'connecting' | 'open' | 'closed';

export interface ConnectionInfo {
  state: ConnectionState;
  /** Failed connection attempts in a row (0 once open). */
  attempt: number;
  /** When closed: milliseconds until the next attempt; null when no retry is planned. */
  retryInMs: number | null;
}

/** The part of the DOM's WebSocket the client uses (tests pass a fake). */
export interface SocketLike {
  readonly readyState: number;
  send(text: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onclose: ((ev: { code: number; reason: string }) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}

export interface Backoff {
  initialMs: number;
  maxMs: number;
  factor: number;
}

export interface WebClientOptions {
  url: string;
  createSocket?: (url: string) => SocketLike;
  backoff?: Backoff;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (t: unknown) => void;
  /** 0..1, spreads reconnects of many tabs apart; tests pass () => 0.5 for exact delays. */
  random?: () => number;
}

export interface WebClient extends HoneService {
  connection(): ConnectionInfo;
  onConnection(listener: (info: ConnectionInfo) => void): () => void;
  /** Closes for good: no reconnect, unanswered calls rejected. */
  close(): void;
}

export const DEFAULT_BACKOFF: Backoff = { initialMs: 500, maxMs: 15_000, factor: 2 };
const OPEN = 1;

/** The delay before reconnect attempt `attempt` (1-based): initial × factor^(attempt-1), capped, ±25 %. */
export function backoffDelay(b: Backoff, attempt: number, random: () => number): number {
  const base = Math.min(b.maxMs, b.initialMs * b.factor ** Math.max(0, attempt - 1));
  return Math.round(base * (0.75 + 0.5 * random()));
}

/** `ws://host/ws` for the page's own address (the cookie from the token exchange rides along). */
export function socketUrlFor(location: { protocol: string; host: string }): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${WS_PATH}`;
}

interface Pending {
  method: ServiceMethod;
  resolve(v: unknown): void;
  reject(e: unknown): void;
}

export function createWebClient(opts: WebClientOptions): WebClient {
  const createSocket = opts.createSocket ?? ((url: string) => new WebSocket(url) as unknown as SocketLike);
  const backoff = opts.backoff ?? DEFAULT_BACKOFF;
  const setTimer = opts.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
  const clearTimer = opts.clearTimer ?? ((t) => clearTimeout(t as ReturnType<typeof setTimeout>));
  const random = opts.random ?? Math.random;

  let socket: SocketLike | null = null;
  let info: ConnectionInfo = { state: 'connecting', attempt: 0, retryInMs: null };
  let nextId = 1;
  let closedForGood = false;
  let retryTimer: unknown = null;
  const pending = new Map<number, Pending>();
  /** Calls made while connecting, sent once the socket opens. */
  let queued: CallMessage[] = [];
  const listeners = new Set<(e: ServiceEvent) => void>();
  const connectionListeners = new Set<(i: ConnectionInfo) => void>();

  const setInfo = (next: ConnectionInfo) => {
    info = next;
    for (const l of connectionListeners) l(info);
  };

  const lost = (method: string, why: string) =>
    new HoneError('host_exited', `lost the connection to the Hone server ${why} before '${method}' was answered; it may or may not have run`, { method });

  const rejectAll = (why: string, detail: Record<string, unknown>) => {
    const all = [...pending.values()];
    pending.clear();
    queued = [];
    for (const p of all) {
      const e = lost(p.method, why);
      e.detail = { method: p.method, ...detail };
      p.reject(e);
    }
  };

  const onMessage = (data: unknown) => {
    let msg;
    try {
      msg = parseServerMessage(String(data));
    } catch {
      return; // not ours to act on; the server never sends such a frame
    }
    if (msg.t === 'event') {
      for (const l of [...listeners]) l(msg.event);
      return;
    }
    if (typeof msg.id !== 'number') return; // a reply to a frame the server could not read
    const p = pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    if (msg.ok) p.resolve(msg.result);
    else p.reject(fromPlain(msg.error));
  };

  const connect = () => {
    retryTimer = null;
    if (closedForGood) return;
    setInfo({ state: 'connecting', attempt: info.attempt, retryInMs: null });
    const ws = createSocket(opts.url);
    socket = ws;
    let opened = false;
    ws.onopen = () => {
      opened = true;
      setInfo({ state: 'open', attempt: 0, retryInMs: null });
      const toSend = queued;
      queued = [];
      for (const m of toSend) ws.send(JSON.stringify(m));
    };
    ws.onmessage = (ev) => onMessage(ev.data);
    ws.onerror = () => {
      // the close event follows and does the work
    };
    ws.onclose = (ev) => {
      if (socket !== ws) return;
      socket = null;
      rejectAll(opened ? `(closed with code ${ev.code}${ev.reason ? `: ${ev.reason}` : ''})` : '(could not connect)', { closeCode: ev.code, reason: ev.reason });
      if (closedForGood) {
        setInfo({ state: 'closed', attempt: info.attempt, retryInMs: null });
        return;
      }
      const attempt = info.attempt + 1;
      const delay = backoffDelay(backoff, attempt, random);
      setInfo({ state: 'closed', attempt, retryInMs: delay });
      retryTimer = setTimer(connect, delay);
    };
  };

  const call = (method: ServiceMethod, args: unknown[]): Promise<unknown> =>
    new Promise((resolve, reject) => {
      if (closedForGood || info.state === 'closed') {
        const retry = info.retryInMs != null ? `; reconnecting in ${Math.ceil(info.retryInMs / 1000)} s` : '';
        reject(new HoneError('host_exited', `not connected to the Hone server${retry}: '${method}' was not sent`, { method }));
        return;
      }
      const id = nextId++;
      // drop trailing undefined arguments: JSON would turn them into null, which validateCall refuses
      while (args.length && args[args.length - 1] === undefined) args = args.slice(0, -1);
      const msg: CallMessage = { t: 'call', id, method, args };
      pending.set(id, { method, resolve, reject });
      if (socket && socket.readyState === OPEN) socket.send(JSON.stringify(msg));
      else queued.push(msg);
    });

  // one function per wire name, grouped as the interface groups them (`runs.start` → runs.start)
  const service: Record<string, unknown> = {};
  for (const method of Object.keys(SERVICE_METHODS) as ServiceMethod[]) {
    const fn = (...args: unknown[]) => call(method, args);
    const dot = method.indexOf('.');
    if (dot < 0) service[method] = fn;
    else {
      const group = method.slice(0, dot);
      const g = (service[group] ??= {}) as Record<string, unknown>;
      g[method.slice(dot + 1)] = fn;
    }
  }

  const client = Object.assign(service, {
    subscribe(listener: (e: ServiceEvent) => void) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    connection: () => info,
    onConnection(listener: (i: ConnectionInfo) => void) {
      connectionListeners.add(listener);
      return () => {
        connectionListeners.delete(listener);
      };
    },
    close() {
      closedForGood = true;
      if (retryTimer != null) clearTimer(retryTimer);
      retryTimer = null;
      const ws = socket;
      if (ws) ws.close(1000, 'closed by the page');
      else setInfo({ state: 'closed', attempt: info.attempt, retryInMs: null });
      rejectAll('(the page closed it)', {});
    },
  });
  connect();
  return client as unknown as WebClient;
}
