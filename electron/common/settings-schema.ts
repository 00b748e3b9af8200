/**
 * The kind of every training option, for validating settings that arrive from a window, a
 * browser or a config file. Defaults are not here: they come from the engine (one place).
 */
import type { TrainConfig } from './engine-api.ts';

export type OptionKind = 'number' | 'integer' | 'string' | 'boolean' | 'path' | 'paths' | readonly string[];

export const OPTION_KINDS: { readonly [K in keyof TrainConfig]-?: OptionKind } = {
  model: 'path',
  data: 'paths',
  out: 'path',
  evalData: 'paths',
  evalSplit: 'number',
  evalEvery: 'integer',
  rank: 'integer',
  alpha: 'number',
  targets: 'string',
  lr: 'number',
  schedule: ['constant', 'linear', 'cosine'],
  warmup: 'integer',
  lrMin: 'number',
  weightDecay: 'number',
  maxGradNorm: 'number',
  steps: 'integer',
  epochs: 'number',
  ctx: 'integer',
  batch: 'integer',
  batchTokens: 'integer',
  ubatch: 'integer',
  seed: 'integer',
  backend: ['auto', 'cpu', 'cuda', 'metal'],
  gpuPrecision: ['bf16', 'f32'],
  threads: 'integer',
  checkpointEvery: 'integer',
  keepCheckpoints: 'integer',
  loss: ['assistant', 'all'],
  ignoreWeights: 'boolean',
  truncate: ['drop', 'left', 'right'],
  chatTemplate: 'path',
  memoryLimit: 'integer',
  profile: 'boolean',
  recompute: 'boolean',
  pack: 'boolean',
};

export function isOptionKey(key: string): key is keyof TrainConfig {
  return Object.prototype.hasOwnProperty.call(OPTION_KINDS, key);
}
