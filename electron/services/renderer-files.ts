/**
 * The built renderer's files, served from one folder (web mode over HTTP, the app through its
 * own protocol): regular files under it only (no `..`, no encoded separators, no symlink that
 * leads out), `index.html` for `/`.
 */
import { realpath, stat } from 'node:fs/promises';
import { extname, join, sep } from 'node:path';

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

