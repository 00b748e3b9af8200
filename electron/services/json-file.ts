/**
 * JSON files the service owns (a run's status.json, settings.json): written whole or not at
 * all (a temporary file, flushed, then renamed over the old one), so a crash never leaves
 * half a file; read with errors that name the file.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { HoneError } from '../common/errors.ts';
import { reason } from './models/fs-errors.ts';

/** Writes `value` as pretty JSON to `path` atomically (tmp + fsync + rename). */
export function writeJsonAtomic(path: string, value: unknown): void {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    const fd = openSync(tmp, 'w');
    try {
      writeSync(fd, JSON.stringify(value, null, 2) + '\n');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw new HoneError('io_error', `${path}: cannot be written: ${reason(err)}`, { errno: (err as NodeJS.ErrnoException).code });
  }
}

/** A JSON file's value; `io_error` when it cannot be read, `bad_format` when it is not JSON. */
export function readJsonFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const errno = (err as NodeJS.ErrnoException).code;
    throw new HoneError(errno === 'ENOENT' ? 'not_found' : 'io_error', `${path}: cannot be read: ${reason(err)}`, { errno });
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new HoneError('bad_format', `${path}: not valid JSON (${(err as Error).message})`);
  }
}
