/**
 * The app's own scheme: the packaged renderer is served from its files as `hone-app://app/…`,
 * never from a dev server or `file://` (a file URL's origin would reach every file on disk).
 * Every answer carries the one CSP (common/csp.ts); nothing outside the renderer's folder is served.
 */
import { readFile } from 'node:fs/promises';
import { contentSecurityPolicy } from '../common/csp.ts';
import { contentType, resolveStatic } from '../services/renderer-files.ts';

export const APP_SCHEME = 'hone-app';
export const APP_HOST = 'app';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_URL = `${APP_ORIGIN}/index.html`;

/**
 * Registered before the app is ready: standard (the page gets an origin, relative URLs work),
 * secure (a secure context, as https), fetch allowed for the page's own files.
 */
export const APP_SCHEME_PRIVILEGES = { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } };

/** True for a URL of the app's own pages. */
export function isAppUrl(url: unknown): boolean {
  if (typeof url !== 'string') return false;
  try {
    const u = new URL(url);
    return u.protocol === `${APP_SCHEME}:` && u.host === APP_HOST;
  } catch {
    return false;
  }
}

const HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' };

function notFound(): Response {
  return new Response('not found', { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8', ...HEADERS } });
}

/** The protocol handler's answer for one request (GET of a renderer file). */
export async function appResponse(root: string, request: { url: string; method?: string }): Promise<Response> {
  if (request.method && request.method !== 'GET' && request.method !== 'HEAD') return new Response('method not allowed', { status: 405, headers: HEADERS });
  if (!isAppUrl(request.url)) return notFound();
  const file = await resolveStatic(root, new URL(request.url).pathname);
  if (!file) return notFound();
  const body = request.method === 'HEAD' ? null : await readFile(file);
  return new Response(body, {
    status: 200,
    headers: { 'Content-Type': contentType(file), 'Content-Security-Policy': contentSecurityPolicy(), ...HEADERS },
  });
}
