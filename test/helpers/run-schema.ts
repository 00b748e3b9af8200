/**
 * run.json's schema "hone.run/1" (docs/run-json.md) as data: the same document whether hone-train
 * or the app's engine host wrote it. Checked with the ops.json validator.
 */
import { memorySchema, type Schema } from './ops-schema.ts';

const int = 'integer' as const;
const num = 'number' as const;
const str = 'string' as const;
const bool = 'boolean' as const;
const orNull = (s: Schema): Schema => ({ anyOf: [s, 'null'] });

/** The options both writers record (electron/common's TrainConfig names and types). */
const config: Schema = {
  object: {
    model: str, data: { array: str }, out: str, evalData: { array: str }, evalSplit: num, evalEvery: int, rank: int, alpha: num, targets: str,
    lr: num, schedule: str, warmup: int, lrMin: num, weightDecay: num, maxGradNorm: num, steps: int, epochs: num, ctx: int, batch: int,
    ubatch: int, batchTokens: int, pack: bool, seed: int, backend: str, gpuPrecision: str, threads: int, checkpointEvery: int, keepCheckpoints: int, memoryLimit: int,
  },
  // the app's dataset options; hone-train's AdamW constants
  optional: { loss: str, ignoreWeights: bool, truncate: str, chatTemplate: str, profile: bool, recompute: bool, beta1: num, beta2: num, eps: num, flashAttn: bool },
};

export const runSchema: Schema = {
  object: {
    schema: str,
    writer: str,
    status: str,
    config,
    resumedFrom: orNull(str),
    model: {
      object: {
        path: str, arch: str, name: str, backend: str, gpuPrecision: str, nLayer: int, nEmbd: int, nFf: int, nHead: int, nHeadKv: int, headDim: int,
        tiedOutput: bool, nVocab: int, nCtxTrain: int, nParams: int, weightBytes: int,
      },
    },
    adapter: { object: { path: str, nParams: int } },
    data: { object: { format: orNull(str), sequences: int, evalSequences: int }, optional: { report: 'object', tokens: 'object' } },
    metrics: { object: { finalLoss: orNull(num), evalLoss: orNull(num), steps: int, tokens: int, positions: int, elapsedS: num, tokensPerS: num, rowFill: num, peakRssMib: num } },
    lastCheckpoint: orNull(str),
    memory: memorySchema,
  },
  optional: { template: 'object' },
};
