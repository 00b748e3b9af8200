/**
 * Run ids: `YYYYMMDD-HHMMSS-xxxx` (UTC start time, then 4 random hex digits), so folder names
 * sort by start time and two runs started in the same second still get different names. They
 * pass the run id check of common/validate.ts (letters, digits, `-`; nothing that climbs).
 */
import { randomBytes } from 'node:crypto';

export const RUN_ID_PATTERN = /^\d{8}-\d{6}-[0-9a-f]{4}$/;

const two = (n: number) => String(n).padStart(2, '0');

/** The id of a run started at `now`; `suffix` is the random part (4 hex digits). */
export function makeRunId(now: Date, suffix: string = randomBytes(2).toString('hex')): string {
  if (!/^[0-9a-f]{4}$/.test(suffix)) throw new Error(`run id suffix must be 4 hex digits, got ${JSON.stringify(suffix)}`);
  const date = `${now.getUTCFullYear()}${two(now.getUTCMonth() + 1)}${two(now.getUTCDate())}`;
  const time = `${two(now.getUTCHours())}${two(now.getUTCMinutes())}${two(now.getUTCSeconds())}`;
  return `${date}-${time}-${suffix}`;
}

/** Newest first: by creation time (ms), then by id (which starts with the time too). */
export function newestFirst(a: { createdAt: string; id: string }, b: { createdAt: string; id: string }): number {
  const ta = Date.parse(a.createdAt);
  const tb = Date.parse(b.createdAt);
  if (ta !== tb && Number.isFinite(ta) && Number.isFinite(tb)) return tb - ta;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}
