/**
 * Training defaults as the front ends use them today. Temporary: the engine is the one place
 * that says what a default is (its *_default_params, reported by the engine host's
 * `capabilities` request); once the host answers that, the service uses the engine's values
 * and this table goes. Until then the `hone` command line and the service read it from here.
 * No platform imports.
 */
import type { TrainConfig } from './engine-api.ts';

export const DEFAULTS: TrainConfig = {
  model: '',
  data: [],
  out: '',
  evalData: [],
  evalSplit: 0,
  evalEvery: 0,
  rank: 8,
  alpha: 0,
  targets: 'attn_q,attn_k,attn_v,attn_output',
  lr: 1e-4,
  schedule: 'constant',
  warmup: 0,
  lrMin: 0,
  weightDecay: 0,
  maxGradNorm: 1,
  steps: 0,
  epochs: 1,
  ctx: 512,
  batch: 1,
  ubatch: 0,
  seed: 42,
  backend: 'auto',
  gpuPrecision: 'bf16',
  threads: 0,
  checkpointEvery: 0,
  keepCheckpoints: 3,
  loss: 'assistant',
  ignoreWeights: false,
  truncate: 'right',
  chatTemplate: '',
  memoryLimit: 0,
  profile: false,
};
