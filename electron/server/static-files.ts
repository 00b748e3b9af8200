/**
 * The built renderer over HTTP: the files services/renderer-files.ts resolves, a small page
 * while it is not built.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { contentType, resolveStatic } from '../services/renderer-files.ts';
import { sendError } from './respond.ts';

const NOT_BUILT = `<!doctype html>
<html><head><meta charset="utf-8"><title>Hone</title></head>
<body><h1>Hone is running</h1><p>The window's files are not built yet, so there is nothing to show here.
Build the renderer, then reload this page.</p></body></html>
`;

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
