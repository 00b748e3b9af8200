/**
 * The built renderer, served from one folder: regular files under it only (no `..`, no encoded
 * separators, no symlink that leads out), `index.html` for `/`, a small page while it is not built.
 */
import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, sep } from 'node:path';
import { sendError } from './respond.ts';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
};

export function contentType(file: string): string {
  return TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
}

const NOT_BUILT = `<!doctype html>
<html><head><meta charset="utf-8"><title>Hone</title></head>
<body><h1>Hone is running</h1><p>The window's files are not built yet, so there is nothing to show here.
Build the renderer, then reload this page.</p></body></html>
`;

/**
 * The file under `root` that `pathname` (still percent-encoded, as in the URL) names, or null
 * when it names nothing servable. Any `..` segment, backslash or NUL after decoding is refused,
 * and the real path must stay inside the real root.
 */
export async function resolveStatic(root: string, pathname: string): Promise<string | null> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const segments = decoded.split('/').filter((s) => s !== '');
  if (segments.some((s) => s === '..' || s === '.')) return null;
  if (segments.length === 0) segments.push('index.html');
  let realRoot: string;
  let real: string;
  try {
    realRoot = await realpath(root);
    real = await realpath(join(realRoot, ...segments));
  } catch {
    return null;
  }
  if (!real.startsWith(realRoot + sep)) return null;
  const s = await stat(real).catch(() => null);
  return s?.isFile() ? real : null;
}

/** Answers a GET or HEAD for a static path (the caller has checked the token already). */
export async function serveStatic(req: IncomingMessage, res: ServerResponse, root: string, pathname: string): Promise<void> {
  const rootExists = await stat(root).then((s) => s.isDirectory(), () => false);
  if (!rootExists) {
    if (pathname !== '/' && pathname !== '/index.html') return sendError(res, 404, { code: 'not_found', message: 'not found' });
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(NOT_BUILT) });
    res.end(req.method === 'HEAD' ? undefined : NOT_BUILT);
    return;
  }
  const file = await resolveStatic(root, pathname);
  if (!file) return sendError(res, 404, { code: 'not_found', message: 'not found' });
  const { size } = await stat(file);
  res.writeHead(200, { 'Content-Type': contentType(file), 'Content-Length': size });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  const stream = createReadStream(file);
  stream.on('error', () => res.destroy());
  stream.pipe(res);
}
