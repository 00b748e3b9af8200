/**
 * Who may talk to the web server: the holder of the start-up token (a cookie for the browser,
 * `Authorization: Bearer` for tools), through a Host name the server is bound to (against DNS
 * rebinding), from the server's own origin (against cross-site requests).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

export const COOKIE_NAME = 'hone_token';

/** 256 random bits, URL-safe. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Constant-time comparison (the lengths leak, which a fixed-length token makes moot). */
export function tokenMatches(given: string | null | undefined, token: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The value of one cookie from a Cookie header, or null. */
export function cookieValue(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/** The token a request carries: the Bearer header first (tools), else the cookie (the browser). */
export function requestToken(req: IncomingMessage): string | null {
  const auth = req.headers.authorization;
  if (auth) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    return m ? m[1] : null;
  }
  return cookieValue(req.headers.cookie, COOKIE_NAME);
}

export function setCookieHeader(token: string): string {
  return `${COOKIE_NAME}=${token}; HttpOnly; SameSite=Strict; Path=/`;
}

export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  return h === 'localhost' || h === '::1' || (isIP(h) === 4 && h.startsWith('127.'));
}

export function isWildcardHost(host: string): boolean {
  return host === '0.0.0.0' || host === '::';
}

/** `host:port` as it appears in a URL or a Host header (`[::1]:8080`). */
export function hostPort(host: string, port: number): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

/**
 * The Host header values this server answers to, lower-case: the loopback names, plus the bound
 * address when it is not loopback (every local interface address for a wildcard bind).
 */
export function allowedHosts(host: string, port: number): Set<string> {
  const names = new Set(['127.0.0.1', 'localhost', '::1']);
  if (!isLoopbackHost(host) && !isWildcardHost(host)) names.add(host.toLowerCase());
  if (isLoopbackHost(host)) names.add(host.toLowerCase());
  if (isWildcardHost(host)) {
    for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) names.add(a.address.toLowerCase());
  }
  const out = new Set<string>();
  for (const n of names) {
    out.add(hostPort(n, port));
    // browsers leave out the default port
    if (port === 80) out.add(isIP(n) === 6 ? `[${n}]` : n);
  }
  return out;
}

/** The request's Host when it is one of `allowed`, else null. */
export function checkedHost(req: IncomingMessage, allowed: Set<string>): string | null {
  const h = req.headers.host?.toLowerCase();
  return h && allowed.has(h) ? h : null;
}

/** True when the request has no Origin (not a browser's cross-site request) or its Origin is `http://<host>`. */
export function originAllowed(req: IncomingMessage, host: string): boolean {
  const origin = req.headers.origin;
  return origin === undefined || origin.toLowerCase() === `http://${host}`;
}
