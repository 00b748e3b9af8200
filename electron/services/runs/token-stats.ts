/**
 * Token statistics read back from a run's files (run.json's `data.tokens`, the `tokens` records
 * of events.jsonl). Those files can be damaged, and the Axolotl export walks the lists by file
 * and line, so a value of any other shape counts as no statistics rather than a TypeError later.
 */
import type { TokenStats } from '../../common/engine-api.ts';

function isRecord(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/** A list of `{file, line, ...}` entries. */
function isPlaceList(v: unknown): boolean {
  return Array.isArray(v) && v.every((x) => isRecord(x) && typeof x.file === 'string' && typeof x.line === 'number');
}

/** `v` when it is an object whose two lists by file and line are well formed, else null. */
export function tokenStatsOf(v: unknown): TokenStats | null {
  return isRecord(v) && isPlaceList(v.affected) && isPlaceList(v.failed) ? (v as unknown as TokenStats) : null;
}
