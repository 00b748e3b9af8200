/**
 * Web mode: the built renderer and the service over one WebSocket, for a browser on this
 * machine (or, asked for explicitly, on the network). Plain Node: Node's http for HTTP, `ws`
 * for the WebSocket; imports only electron/common and electron/services.
 *
 * Every request passes, in order: the Host check (DNS rebinding), the Origin check (cross-site
 * writes and sockets), the token (cookie or Bearer). docs/web-mode.md explains each.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { join } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { HoneError, type PlainError } from '../common/errors.ts';
import { MAX_MESSAGE_BYTES, WS_PATH } from '../common/rpc.ts';
import type { HoneService } from '../common/service.ts';
import {
  allowedHosts,
  checkedHost,
  hostPort,
  isLoopbackHost,
  isWildcardHost,
  newToken,
  originAllowed,
  requestToken,
  setCookieHeader,
  tokenMatches,
} from './auth.ts';
import { applyHeaders, refuseUpgrade, sendError } from './respond.ts';
import { serveSocket, type Log } from './socket.ts';
import { serveStatic } from './static-files.ts';
import { DEFAULT_MAX_UPLOAD_BYTES, handleUpload } from './upload.ts';

export interface ServerOptions {
  service: HoneService;
  /** Address to bind; loopback unless `allowRemote`. */
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** The built renderer (index.html and its assets). */
  staticDir: string;
  /** The data folder; uploads land in `<dataDir>/uploads`. */
  dataDir: string;
  /** Must be true to bind anything but loopback. */
  allowRemote?: boolean;
  maxUploadBytes?: number;
  /** Where the server's own lines go (start-up warnings, socket errors). */
  log?: Log;
  /** The token to require; a fresh random one when absent. */
  token?: string;
}

export interface RunningServer {
  /** The address to open, token included: `http://127.0.0.1:PORT/?token=T`. */
  url: string;
  port: number;
  token: string;
  /** Stops listening, closes every socket and upload (their partial files removed), then resolves. */
  close(): Promise<void>;
}

/** Throws unless `host` is loopback or remote access was asked for explicitly. */
export function checkBindAddress(host: string, allowRemote: boolean): void {
  if (!isLoopbackHost(host) && !allowRemote) {
    throw new HoneError(
      'invalid_argument',
      `refusing to listen on ${host}: that is reachable from other machines. Use a loopback address (127.0.0.1), or allow it explicitly (hone serve --allow-remote)`,
    );
  }
}

const isRead = (req: IncomingMessage) => req.method === 'GET' || req.method === 'HEAD';

function urlHost(host: string): string {
  // a wildcard bind is opened through loopback on this machine
  return isWildcardHost(host) ? '127.0.0.1' : host;
}

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const { service, staticDir, dataDir, allowRemote = false, maxUploadBytes = DEFAULT_MAX_UPLOAD_BYTES } = opts;
  const host = opts.host ?? '127.0.0.1';
  const log: Log = opts.log ?? ((line) => process.stderr.write(line + '\n'));
  checkBindAddress(host, allowRemote);
  const token = opts.token ?? newToken();
  const uploads = { uploadsDir: join(dataDir, 'uploads'), maxBytes: maxUploadBytes, reserved: new Set<string>() };
  let allowed = new Set<string>();
  const pending = new Set<Promise<void>>();
  const sockets = new Map<WebSocket, () => void>();

  const wrongHost = (req: IncomingMessage): PlainError => ({
    code: 'invalid_argument',
    message: `Host ${JSON.stringify(req.headers.host ?? '')} is not this server's address (${[...allowed][0]}); refused against DNS rebinding`,
  });
  const foreignOrigin = (req: IncomingMessage): PlainError => ({
    code: 'invalid_argument',
    message: `Origin ${JSON.stringify(req.headers.origin)} is not this server's own; cross-site requests are refused`,
  });
  const noToken: PlainError = { code: 'invalid_argument', message: 'missing or wrong token: open the address `hone serve` printed (with ?token=)' };

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const reqHost = checkedHost(req, allowed);
    applyHeaders(res, reqHost);
    if (!reqHost) return sendError(res, 421, wrongHost(req));
    if (!isRead(req) && !originAllowed(req, reqHost)) return sendError(res, 403, foreignOrigin(req));
    const url = new URL(req.url ?? '/', `http://${reqHost}`);
    const urlToken = url.searchParams.get('token');
    if (isRead(req) && urlToken !== null) {
      if (!tokenMatches(urlToken, token)) return sendError(res, 401, noToken);
      url.searchParams.delete('token');
      // one leading slash: `//evil.example` would be a redirect to another site
      const location = '/' + url.pathname.replace(/^\/+/, '') + url.search;
      res.writeHead(303, { Location: location, 'Set-Cookie': setCookieHeader(token), 'Content-Length': 0 });
      res.end();
      return;
    }
    if (!tokenMatches(requestToken(req), token)) return sendError(res, 401, noToken);
    if (url.pathname === '/upload') {
      if (req.method !== 'POST') {
        res.setHeader('Allow', 'POST');
        return sendError(res, 405, { code: 'invalid_argument', message: 'upload with POST /upload?name=FILE' });
      }
      return handleUpload(req, res, url.searchParams, uploads);
    }
    if (!isRead(req)) {
      res.setHeader('Allow', 'GET, HEAD');
      return sendError(res, 405, { code: 'invalid_argument', message: `${req.method} is not served here` });
    }
    return serveStatic(req, res, staticDir, url.pathname);
  }

  const server = createServer((req, res) => {
    const job = route(req, res)
      .catch((e: unknown) => {
        log(`hone serve: ${req.method} ${req.url}: ${(e as Error).message}`);
        sendError(res, 500, { code: 'internal', message: (e as Error).message });
      })
      .finally(() => pending.delete(job));
    pending.add(job);
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const reqHost = checkedHost(req, allowed);
    if (!reqHost) return refuseUpgrade(socket, 421, wrongHost(req));
    if (!originAllowed(req, reqHost)) return refuseUpgrade(socket, 403, foreignOrigin(req));
    if (!tokenMatches(requestToken(req), token)) return refuseUpgrade(socket, 401, noToken);
    if (new URL(req.url ?? '/', `http://${reqHost}`).pathname !== WS_PATH) {
      return refuseUpgrade(socket, 404, { code: 'invalid_argument', message: `the WebSocket is at ${WS_PATH}` });
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.set(ws, serveSocket(ws, service, log));
      ws.on('close', () => sockets.delete(ws));
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', (e) => reject(new HoneError('io_error', `cannot listen on ${hostPort(host, opts.port ?? 0)}: ${e.message}`)));
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  allowed = allowedHosts(host, port);
  server.on('error', (e) => log(`hone serve: ${e.message}`));
  if (!isLoopbackHost(host)) {
    log(`hone serve: listening on ${hostPort(host, port)}: REACHABLE FROM THE NETWORK; anyone with the token can use this machine's files and GPU`);
  }

  let closing: Promise<void> | null = null;
  async function close(): Promise<void> {
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const stop of sockets.values()) stop();
    // uploads in flight fail and remove their partial files
    server.closeAllConnections();
    await Promise.allSettled([...pending]);
    await waitForSockets([...sockets.keys()], 1000);
    wss.close();
    await stopped;
  }

  return {
    url: `http://${hostPort(urlHost(host), port)}/?token=${token}`,
    port,
    token,
    close: () => (closing ??= close()),
  };
}

/** Waits (at most `ms`) for closing sockets to finish their handshake, then cuts the rest. */
async function waitForSockets(list: WebSocket[], ms: number): Promise<void> {
  const open = list.filter((ws) => ws.readyState !== ws.CLOSED);
  if (open.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(open.map((ws) => new Promise<void>((resolve) => ws.once('close', () => resolve())))),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))),
  ]);
  clearTimeout(timer);
  for (const ws of open) if (ws.readyState !== ws.CLOSED) ws.terminate();
}
