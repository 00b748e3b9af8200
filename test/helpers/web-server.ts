/**
 * Web mode test kit: a fake HoneService that records its calls and emits events on demand, a
 * server over it in temp folders, and small HTTP / WebSocket clients that set any header
 * (Host, Origin, Cookie) the way a hostile page or a tool would.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { HoneError } from '../../electron/common/errors.ts';
import { parseServerMessage, WS_PATH, type ReplyMessage, type ServerMessage } from '../../electron/common/rpc.ts';
import type { HoneService, ServiceEvent } from '../../electron/common/service.ts';
import { startServer, type RunningServer, type ServerOptions } from '../../electron/server/server.ts';

type WithAfter = { after(fn: () => unknown): void };

export interface FakeService {
  service: HoneService;
  calls: Array<{ method: string; args: unknown[] }>;
  listeners: Set<(e: ServiceEvent) => void>;
  emit(e: ServiceEvent): void;
}

/** Every method records its call and answers `{method, args}`; `runs.get('missing')` throws not_found. */
export function fakeService(): FakeService {
  const calls: FakeService['calls'] = [];
  const listeners = new Set<(e: ServiceEvent) => void>();
  const method = (name: string) => async (...args: unknown[]) => {
    calls.push({ method: name, args });
    if (name === 'runs.get' && args[0] === 'missing') throw new HoneError('not_found', 'run missing: no such run');
    if (name === 'runs.delete') return undefined;
    return { method: name, args };
  };
  const group = (g: string, names: string[]) => Object.fromEntries(names.map((n) => [n, method(`${g}.${n}`)]));
  const service = {
    info: method('info'),
    models: group('models', ['list', 'inspect', 'addFolder']),
    datasets: group('datasets', ['import', 'inspect']),
    plan: method('plan'),
    runs: group('runs', ['start', 'stop', 'pause', 'resume', 'continue', 'list', 'get', 'delete', 'events', 'opReport']),
    subscribe(listener: (e: ServiceEvent) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  } as unknown as HoneService;
  return { service, calls, listeners, emit: (e) => listeners.forEach((l) => l(e)) };
}

export interface TestServer extends RunningServer {
  fake: FakeService;
  root: string;
  staticDir: string;
  uploadsDir: string;
  logs: string[];
  /** `127.0.0.1:PORT`, the Host header a browser on this machine sends. */
  host: string;
  origin: string;
}

/**
 * A server in a fresh temp folder: `root/static` holds index.html, app.js and assets/; `root/secret.txt`
 * lies beside it (what traversal would reach); `root/data` is the data folder. Closed when `t` ends.
 */
export async function testServer(t: object, opts: Partial<ServerOptions> = {}): Promise<TestServer> {
  const root = mkdtempSync(join(tmpdir(), 'hone-web-'));
  const staticDir = join(root, 'static');
  mkdirSync(join(staticDir, 'assets'), { recursive: true });
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Hone</title><script src="/app.js"></script>\n');
  writeFileSync(join(staticDir, 'app.js'), 'console.log("hone");\n');
  writeFileSync(join(staticDir, 'assets', 'style.css'), 'body{}\n');
  writeFileSync(join(root, 'secret.txt'), 'SECRET outside the static folder\n');
  const fake = fakeService();
  const logs: string[] = [];
  const server = await startServer({ service: fake.service, staticDir, dataDir: join(root, 'data'), log: (l) => logs.push(l), ...opts });
  (t as WithAfter).after(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });
  const host = `127.0.0.1:${server.port}`;
  return { ...server, fake, root, staticDir, uploadsDir: join(root, 'data', 'uploads'), logs, host, origin: `http://${host}` };
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One HTTP request with exactly these headers (Host defaults to the server's). */
export function request(
  s: { port: number; host: string },
  path: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: s.port, path, method: opts.method ?? 'GET', headers: { Host: s.host, ...opts.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
export const cookie = (token: string) => ({ Cookie: `hone_token=${token}` });

export interface OpenSocket {
  open: true;
  status: 101;
  ws: WebSocket;
  /** Every frame the server sent, parsed, in order. */
  messages: ServerMessage[];
}
export type Upgrade = OpenSocket | { open: false; status: number; body: string };

/** Opens the WebSocket with these headers; resolves with the socket, or with the refusal's status and body. */
export function connect(s: { port: number; host: string }, headers: Record<string, string>, path = WS_PATH): Promise<Upgrade> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${s.port}${path}`, { headers: { Host: s.host, ...headers } });
    const messages: ServerMessage[] = [];
    ws.on('message', (data) => messages.push(parseServerMessage(String(data))));
    ws.on('open', () => resolve({ open: true, ws, messages, status: 101 }));
    ws.on('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ open: false, status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    ws.on('error', reject);
  });
}

/** A socket that must open (fails the test with the refusal otherwise). */
export async function openSocket(s: { port: number; host: string }, headers: Record<string, string>): Promise<OpenSocket> {
  const u = await connect(s, headers);
  if (!u.open) throw new Error(`the WebSocket was refused: ${u.status} ${u.body}`);
  return u;
}

/** Waits (bounded) until `check` is true. */
export async function until(check: () => boolean, what: string, ms = 5000): Promise<void> {
  for (const start = Date.now(); !check(); ) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Sends a raw text frame and waits for the reply with this id (or, for `id: null`, the next id-less reply). */
export async function rawCall(u: OpenSocket, text: string, id: unknown): Promise<ReplyMessage> {
  const before = u.messages.length;
  u.ws.send(text);
  let found: ReplyMessage | undefined;
  await until(() => {
    found = u.messages.slice(before).find((m): m is ReplyMessage => m.t === 'reply' && m.id === id);
    return found !== undefined;
  }, `the reply to ${text.slice(0, 60)}`);
  return found!;
}

export function call(u: OpenSocket, id: string, method: string, args: unknown[]): Promise<ReplyMessage> {
  return rawCall(u, JSON.stringify({ t: 'call', id, method, args }), id);
}
