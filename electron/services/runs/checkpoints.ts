/**
 * A run folder's checkpoints: `<out>/checkpoints/<step>/` each holding the engine's
 * `state.json` beside the adapter and optimizer state. Read by the CLI (--resume) and the
 * engine host alike, so it lives here rather than in either.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Where a run keeps its checkpoints. */
export function checkpointsDir(runDir: string): string {
  return join(runDir, 'checkpoints');
}

/** True when `dir` is a checkpoint the engine can resume from. */
export function isCheckpoint(dir: string): boolean {
  return existsSync(join(dir, 'state.json'));
}

/** The newest checkpoint under `dir` (checkpoint folders are named by step), or null. */
export function latestCheckpoint(dir: string): string | null {
  if (!existsSync(dir)) return null;
  const steps = readdirSync(dir).filter((n) => /^\d+$/.test(n) && isCheckpoint(join(dir, n))).map(Number);
  return steps.length ? join(dir, String(Math.max(...steps))) : null;
}
