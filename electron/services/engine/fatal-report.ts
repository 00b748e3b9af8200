/**
 * The engine's last word when ggml ends the host process (native/engine/fatal_report.h): a JSON
 * `{code, message, detail}` the host writes to the file HONE_FATAL_FILE names just before it
 * aborts — a GPU out of memory with the device, its free memory and the run's plan. The parent
 * names a fresh file per host and reads it once the host is gone.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PlainError } from '../../common/errors.ts';

export const FATAL_FILE_ENV = 'HONE_FATAL_FILE';

/** A path no other host uses, in the system's temporary folder. */
export function newFatalFile(): string {
  return join(tmpdir(), `hone-host-${process.pid}-${randomBytes(6).toString('hex')}.fatal.json`);
}

/** The report the host left, removed once read; null when it left none (killed, a clean exit). */
export function takeFatalReport(file: string): PlainError | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  rmSync(file, { force: true });
  try {
    const v = JSON.parse(text) as PlainError;
    return typeof v.message === 'string' && typeof v.code === 'string' ? v : null;
  } catch {
    return null;
  }
}
