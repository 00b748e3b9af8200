/**
 * Headers every response carries, and the small error answers of the HTTP routes
 * (`{error: {code, message}}` as JSON, the same shape as a WebSocket error reply).
 */
import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { STATUS_CODES } from 'node:http';
import { contentSecurityPolicy } from '../common/csp.ts';
import type { PlainError } from '../common/errors.ts';

/** `host` is the request's checked Host (`127.0.0.1:PORT`), or null when it was refused. */
export function securityHeaders(host: string | null): Record<string, string> {
  return {
    'Content-Security-Policy': contentSecurityPolicy(host ? [`ws://${host}`] : []),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    // a local app's files change with every build; nothing here is worth a stale copy
    'Cache-Control': 'no-store',
  };
}

export function applyHeaders(res: ServerResponse, host: string | null): void {
  for (const [k, v] of Object.entries(securityHeaders(host))) res.setHeader(k, v);
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendError(res: ServerResponse, status: number, error: PlainError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, status, { error });
}

/** Refuses a WebSocket upgrade before ws sees it: a plain HTTP answer on the raw socket, then close. */
export function refuseUpgrade(socket: Duplex, status: number, error: PlainError): void {
  const body = JSON.stringify({ error });
  const headers = {
    ...securityHeaders(null),
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
  };
  const head = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)].join('\r\n');
  socket.on('error', () => {}); // the client may already be gone
  socket.end(`${head}\r\n\r\n${body}`);
}
