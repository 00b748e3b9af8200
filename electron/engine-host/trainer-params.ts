/**
 * A run's configuration as the engine's adapter and trainer params: one mapping for training
 * and for planning, so a plan describes exactly the graph the run will build.
 */
import type { TrainConfig } from '../common/engine-api.ts';
import type { TrainerParams } from './binding.ts';

export function adapterParams(cfg: TrainConfig) {
  return { rank: cfg.rank, alpha: cfg.alpha || 2 * cfg.rank, targets: cfg.targets, seed: cfg.seed };
}

export function trainerParams(cfg: TrainConfig, extra: Pick<TrainerParams, 'checkpointDir' | 'runConfig' | 'dryRun' | 'pack' | 'nStepRows' | 'nUbatch'> = {}): TrainerParams {
  return {
    nCtx: cfg.ctx, nBatch: cfg.batch, nUbatch: cfg.ubatch /* 0: automatic */, nSteps: cfg.steps, nEpochs: cfg.steps > 0 ? 0 : cfg.epochs,
    lr: cfg.lr, lrSchedule: cfg.schedule, warmupSteps: cfg.warmup, lrMin: cfg.lrMin, weightDecay: cfg.weightDecay,
    maxGradNorm: cfg.maxGradNorm, seed: cfg.seed, evalEvery: cfg.evalEvery, checkpointEvery: cfg.checkpointEvery,
    keepCheckpoints: cfg.keepCheckpoints, memoryLimit: cfg.memoryLimit, profile: cfg.profile, recompute: cfg.recompute,
    // a run saved before packing existed has no `pack` and trained one example per row
    pack: cfg.pack === true, nBatchTokens: cfg.batchTokens ?? 0, ...testHooks(), ...extra,
  };
}

/**
 * Tests only: HONE_TEST_REFUSE_OPS in the host's environment gives the training graph a primary
 * backend that refuses those ops (as hone-train's --test-refuse-ops), so the app's plan and op
 * report show real CPU fallbacks with the backend's own reason on machines without a GPU.
 */
function testHooks(): Pick<TrainerParams, 'testRefuseOps'> {
  const ops = process.env.HONE_TEST_REFUSE_OPS;
  return ops ? { testRefuseOps: ops } : {};
}
