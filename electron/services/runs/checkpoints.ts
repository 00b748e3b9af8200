/**
 * A run folder's checkpoints: `<out>/checkpoints/<step>/` each holding the engine's
 * `state.json` beside the adapter and optimizer state. Read by the CLI (--resume) and the
 * engine host alike, so it lives here rather than in either.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { HoneError } from '../../common/errors.ts';
import { readJsonFile } from '../json-file.ts';
import { readGgufHeader } from '../models/gguf-header.ts';

/** Where a run keeps its checkpoints. */
export function checkpointsDir(runDir: string): string {
  return join(runDir, 'checkpoints');
}

/** True when `dir` is a checkpoint the engine can resume from. */
export function isCheckpoint(dir: string): boolean {
  return existsSync(join(dir, 'state.json'));
}

/** A checkpoint folder's name: its step as the engine writes it (no leading zeros, exact as a number). */
function isStepName(name: string): boolean {
  return /^(0|[1-9]\d*)$/.test(name) && Number.isSafeInteger(Number(name));
}

/** The newest checkpoint under `dir` (checkpoint folders are named by step), or null. */
export function latestCheckpoint(dir: string): string | null {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    // missing, or not a folder: nothing to resume from (the run is still listed)
    return null;
  }
  const found = new Map<number, string>();
  for (const n of names) if (isStepName(n) && isCheckpoint(join(dir, n))) found.set(Number(n), n);
  // a replacement of checkpoint N cut short (the engine moves the old one aside, then renames
  // the new one in) leaves the old one whole as N.replaced; the engine puts it back at its next save
  for (const n of names) {
    const step = n.endsWith('.replaced') ? n.slice(0, -'.replaced'.length) : null;
    if (step !== null && isStepName(step) && !names.includes(step) && isCheckpoint(join(dir, n))) found.set(Number(step), n);
  }
  if (found.size === 0) return null;
  return join(dir, found.get(Math.max(...found.keys()))!);
}

/** A run's last finished step as a checkpoint records it (the step event's fields). */
export interface CheckpointStep {
  step: number;
  loss: number;
  tokens: number;
  positions: number;
  elapsedS: number;
}

/**
 * The last finished step of the run at checkpoint `dir`: the counters from its state.json, the
 * loss from its adapter's training record. A run resumed from its last step trains none and
 * still reports these. Null for a checkpoint inside a step or one without a recorded loss.
 */
export async function lastStepOf(dir: string): Promise<CheckpointStep | null> {
  const file = join(dir, 'state.json');
  const state = readJsonFile(file) as Record<string, unknown>;
  if (!state || typeof state !== 'object' || Array.isArray(state)) throw new HoneError('bad_format', `${file}: not a checkpoint state (a JSON object)`, { file });
  const header = await readGgufHeader(join(dir, 'adapter.gguf'));
  const loss = header.kv.get('hone.training.train_loss');
  if (state.micro_batch !== 0 || typeof state.step !== 'number' || typeof loss !== 'number') return null;
  const count = (k: string) => (typeof state[k] === 'number' ? (state[k] as number) : 0);
  return { step: state.step, loss, tokens: count('tokens'), positions: count('positions'), elapsedS: count('elapsed_s') };
}
