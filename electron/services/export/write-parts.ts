/**
 * Writes a file from its parts in order (a header, then tensor data produced one at a time, so
 * a large export needs memory for one part), flushed to disk before it counts as written.
 * Errors are `io_error` naming the file; a HoneError from a part (a size that does not match) passes as is.
 */
import { open } from 'node:fs/promises';
import { HoneError } from '../../common/errors.ts';
import { reason } from '../models/fs-errors.ts';

export type Part = Buffer | (() => Promise<Buffer>);

/** Writes every part to `path` (created, or truncated) and returns the bytes written. */
export async function writeParts(path: string, parts: Iterable<Part>): Promise<number> {
  let handle;
  try {
    handle = await open(path, 'w');
  } catch (err) {
    throw new HoneError('io_error', `${path}: cannot be written: ${reason(err)}`);
  }
  try {
    let at = 0;
    for (const part of parts) {
      const b = typeof part === 'function' ? await part() : part;
      for (let done = 0; done < b.length; ) done += (await handle.write(b, done, b.length - done, at + done)).bytesWritten;
      at += b.length;
    }
    await handle.sync();
    return at;
  } catch (err) {
    if (err instanceof HoneError) throw err;
    throw new HoneError('io_error', `${path}: cannot be written: ${reason(err)}`);
  } finally {
    await handle.close().catch(() => undefined);
  }
}
