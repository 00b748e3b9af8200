/**
 * The micro-batch a run asks its trainer for. A size in the config is used as is; 0 (the
 * default) lets the engine choose the most rows whose plan fits, bounded by the rows a step of
 * this data fills; a resumed run keeps its checkpoint's size, so it goes on exactly.
 */
import { join } from 'node:path';
import type { TrainConfig } from '../common/engine-api.ts';
import { HoneError } from '../common/errors.ts';
import { readJsonFile } from '../services/json-file.ts';
import type { HoneAddon, TrainerParams } from './binding.ts';

export function microBatchParams(
  addon: Pick<HoneAddon, 'stepRows'>, cfg: TrainConfig, lengths: Int32Array, pack: boolean, resume?: string,
): Pick<TrainerParams, 'nUbatch' | 'nStepRows'> {
  if (cfg.ubatch > 0) return { nUbatch: cfg.ubatch };
  if (resume) return { nUbatch: checkpointMicroBatch(resume) };
  return { nUbatch: 0, nStepRows: addon.stepRows(lengths, { nCtx: cfg.ctx, nBatch: cfg.batch, nBatchTokens: cfg.batchTokens ?? 0, seed: cfg.seed, pack }) };
}

function checkpointMicroBatch(dir: string): number {
  const file = join(dir, 'state.json');
  const state = readJsonFile(file);
  const n = (state as { train_params?: { n_ubatch?: unknown } } | null)?.train_params?.n_ubatch;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) throw new HoneError('bad_format', `${file}: train_params.n_ubatch is missing or not a positive integer`);
  return n;
}
