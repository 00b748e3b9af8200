/**
 * plan: the memory per pool and the op placement of the graph a configuration would train,
 * from a dry-run trainer (graphs built and scheduled, no compute buffer allocated). Planning is
 * re-run as a person edits settings, so the loaded model is kept between plans and reloaded
 * only when what it depends on changes (file, backend, precision, threads).
 */
import { statSync } from 'node:fs';
import type { TrainConfig } from '../common/engine-api.ts';
import { HoneError } from '../common/errors.ts';
import type { PlanPool, PlanResult } from '../common/runs.ts';
import type { HoneAddon, NativeModel } from './binding.ts';
import { adapterParams, trainerParams } from './trainer-params.ts';

interface RawMemory {
  items: Array<{ what: string; backend: string; pool: string; bytes: number; mapped: boolean; trainer: boolean }>;
  backends: Array<{ pool: string; plan_bytes: number; resident_bytes: number; mapped_bytes: number; free_bytes: number; total_bytes: number; limit_bytes: number; fits: boolean }>;
}

/** ops.json's memory part as the contract's pools. */
export function planPools(memory: RawMemory): PlanPool[] {
  return memory.backends.map((b) => ({
    pool: b.pool,
    planBytes: b.plan_bytes,
    residentBytes: b.resident_bytes,
    mappedBytes: b.mapped_bytes,
    freeBytes: b.free_bytes,
    totalBytes: b.total_bytes,
    limitBytes: b.limit_bytes,
    fits: b.fits,
    items: memory.items.filter((i) => i.pool === b.pool).map((i) => ({ what: i.what, bytes: i.bytes, trainer: i.trainer, mapped: i.mapped })),
  }));
}

/** The one model the host keeps loaded for planning. */
export class PlanModelCache {
  private key = '';
  private model: NativeModel | null = null;

  async get(addon: HoneAddon, cfg: TrainConfig): Promise<{ model: NativeModel; cached: boolean }> {
    let st;
    try {
      st = statSync(cfg.model);
    } catch (e) {
      throw new HoneError('io_error', `${cfg.model}: cannot read the model (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    const key = JSON.stringify([cfg.model, st.size, st.mtimeMs, cfg.backend, cfg.gpuPrecision, cfg.threads]);
    if (this.model && key === this.key) return { model: this.model, cached: true };
    this.drop();
    this.model = await addon.Model.load({ path: cfg.model, backend: cfg.backend, gpuPrecision: cfg.gpuPrecision, threads: cfg.threads });
    this.key = key;
    return { model: this.model, cached: false };
  }

  /** Frees the model (before a training run loads its own). */
  drop(): void {
    this.model?.dispose();
    this.model = null;
    this.key = '';
  }
}

export async function planJob(addon: HoneAddon, cfg: TrainConfig, cache: PlanModelCache): Promise<PlanResult> {
  const t0 = performance.now();
  const { model, cached } = await cache.get(addon, cfg);
  const adapter = addon.Adapter.create(model, adapterParams(cfg));
  try {
    const trainer = await addon.Trainer.create(model, adapter, trainerParams(cfg, { dryRun: true }));
    try {
      const ops = JSON.parse(trainer.opReport()) as { memory: RawMemory };
      let notFit: string | null = null;
      try {
        trainer.checkMemory();
      } catch (e) {
        if ((e as { code?: string }).code !== 'out_of_memory') throw e;
        notFit = (e as Error).message;
      }
      return { fits: notFit === null, notFit, pools: planPools(ops.memory), ops, elapsedMs: performance.now() - t0, cached };
    } finally {
      trainer.dispose();
    }
  } finally {
    adapter.dispose();
  }
}
