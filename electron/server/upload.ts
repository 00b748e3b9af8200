/**
 * `POST /upload?name=FILE`: a browser's dropped file has no path on the server, so the page
 * streams its bytes here and gets back the server-side path to pass to `datasets.import`.
 *
 * The body goes to `<uploads>/<name>.part` and is renamed when complete; a body over the limit,
 * a dropped connection or a disk error removes the partial file. Names are sanitised to one
 * plain file name with a dataset extension; an existing name gets `-1`, `-2`… before it.
 */
import { createWriteStream } from 'node:fs';
import { link, mkdir, readdir, rename, unlink } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { basename, extname, join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { HoneError, toPlain, type PlainError } from '../common/errors.ts';
import { sendError, sendJson } from './respond.ts';

export const UPLOAD_EXTENSIONS = ['.jsonl', '.json', '.csv', '.tsv', '.txt', '.md'];
export const DEFAULT_MAX_UPLOAD_BYTES = 2 * 1024 ** 3;
const MAX_NAME_CHARS = 120;

/**
 * One safe file name from what the browser sent: the last path segment only, without control
 * characters or characters Windows forbids, no leading dots, at most MAX_NAME_CHARS, with an
 * allowed extension. Throws HoneError('invalid_argument') saying what is wrong.
 */
export function sanitiseUploadName(raw: string | null): string {
  if (raw === null || raw.trim() === '') throw new HoneError('invalid_argument', "upload needs ?name=FILE (the dropped file's name)");
  const last = raw.split(/[/\\]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  let name = last.normalize('NFC').replace(/[\u0000-\u001f\u007f-\u009f<>:"|?*]/g, '').trim();
  name = name.replace(/^[.\s]+/, '').replace(/[.\s]+$/, '');
  if (name === '' || name.includes('..')) throw new HoneError('invalid_argument', `upload name ${JSON.stringify(raw.slice(0, 80))} has no usable file name`);
  const ext = extname(name).toLowerCase();
  if (!UPLOAD_EXTENSIONS.includes(ext)) {
    throw new HoneError('invalid_argument', `upload name ${JSON.stringify(name.slice(0, 80))}: only dataset files can be uploaded (${UPLOAD_EXTENSIONS.join(' ')})`);
  }
  if (name.length > MAX_NAME_CHARS) name = name.slice(0, MAX_NAME_CHARS - ext.length).trimEnd() + ext;
  return name;
}

/** `name`, or `stem-1.ext`, `stem-2.ext`… : the first not in `taken`. */
export function freeName(name: string, taken: Set<string>): string {
  const ext = extname(name);
  const stem = name.slice(0, name.length - ext.length);
  let candidate = name;
  for (let i = 1; taken.has(candidate.toLowerCase()); i++) candidate = `${stem}-${i}${ext}`;
  return candidate;
}

/** The body passed the size limit (its own class: the status is 413, the code stays a service code). */
class TooLarge extends HoneError {
  constructor(message: string) {
    super('invalid_argument', message);
  }
}

/** Passes bytes through, counting them; fails once more than `limit` went by. */
function sizeLimit(limit: number, counted: { bytes: number }): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      counted.bytes += chunk.length;
      if (counted.bytes > limit) done(new TooLarge(`upload is larger than the limit of ${limit} bytes`));
      else done(null, chunk);
    },
  });
}

/** HTTP status and service error for a failed upload. */
function failure(err: unknown): [number, PlainError] {
  const p = toPlain(err);
  if (err instanceof TooLarge) return [413, p];
  if (err instanceof HoneError) return [400, p];
  const code = (err as { code?: unknown }).code;
  if (code === 'ENOSPC' || code === 'EDQUOT') return [507, { code: 'io_error', message: `the server's disk is full: ${p.message}` }];
  return [500, { code: 'io_error', message: p.message }];
}

export interface UploadOptions {
  uploadsDir: string;
  maxBytes: number;
  /** Names being written now (lower-case), so two uploads of one name at once get two files. */
  reserved: Set<string>;
}

async function takenNames(dir: string, reserved: Set<string>): Promise<Set<string>> {
  const names = (await readdir(dir)).map((f) => f.toLowerCase().replace(/\.part$/, ''));
  return new Set([...names, ...reserved]);
}

/** Moves the finished `.part` file to a free name; `link` fails instead of replacing a file that appeared meanwhile. */
async function publish(part: string, dir: string, name: string, reserved: Set<string>): Promise<string> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const target = join(dir, attempt === 0 ? name : freeName(name, await takenNames(dir, reserved)));
    try {
      await link(part, target);
      await unlink(part);
      return target;
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      if (code === 'EEXIST') continue;
      // a file system without hard links (FAT, some network shares): a plain rename
      if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'ENOSYS') {
        if (!(await takenNames(dir, new Set())).has(basename(target).toLowerCase())) {
          await rename(part, target);
          return target;
        }
        continue;
      }
      throw e;
    }
  }
  throw new HoneError('io_error', `${dir}: could not find a free name for ${name}`);
}

/**
 * Streams the body to `part`. The request is piped, not put in the pipeline: a failure must
 * not destroy the request's socket before the 413 or 507 answer has gone out.
 */
function receive(req: IncomingMessage, part: string, limit: number, counted: { bytes: number }): Promise<void> {
  const limiter = sizeLimit(limit, counted);
  // 'wx': never write through a file that is already there
  const done = pipeline(limiter, createWriteStream(part, { flags: 'wx' }));
  // not `req.complete`: a body that all arrived but was never read to its end is lost with the connection too
  const onClose = () => {
    if (!req.readableEnded) limiter.destroy(new Error('the connection closed before the upload ended'));
  };
  const onError = (e: Error) => limiter.destroy(e);
  req.on('close', onClose);
  req.on('error', onError);
  req.pipe(limiter);
  // the client may have hung up while the folder was being prepared: 'close' has come and gone
  if (req.destroyed) onClose();
  return done.finally(() => {
    req.off('close', onClose);
    req.off('error', onError);
    req.unpipe(limiter);
  });
}

export async function handleUpload(req: IncomingMessage, res: ServerResponse, query: URLSearchParams, opts: UploadOptions): Promise<void> {
  let name: string;
  try {
    name = sanitiseUploadName(query.get('name'));
  } catch (e) {
    return refuse(req, res, 400, toPlain(e));
  }
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > opts.maxBytes) {
    return refuse(req, res, 413, { code: 'invalid_argument', message: `upload of ${declared} bytes is larger than the limit of ${opts.maxBytes} bytes` });
  }

  let part: string | null = null;
  let final: string | null = null;
  const counted = { bytes: 0 };
  try {
    await mkdir(opts.uploadsDir, { recursive: true });
    final = freeName(name, await takenNames(opts.uploadsDir, opts.reserved));
    opts.reserved.add(final.toLowerCase());
    part = join(opts.uploadsDir, `${final}.part`);
    await receive(req, part, opts.maxBytes, counted);
    const path = await publish(part, opts.uploadsDir, final, opts.reserved);
    part = null;
    sendJson(res, 200, { path, bytes: counted.bytes });
  } catch (e) {
    if (part) await unlink(part).catch(() => {});
    refuse(req, res, ...failure(e));
  } finally {
    if (final) opts.reserved.delete(final.toLowerCase());
  }
}

/** Answers an error and closes the connection: the rest of a refused body is not read. */
function refuse(req: IncomingMessage, res: ServerResponse, status: number, error: PlainError): void {
  if (req.destroyed || res.destroyed) return;
  res.setHeader('Connection', 'close');
  res.on('finish', () => req.destroy());
  sendError(res, status, error);
}
