/**
 * The engine host's two jobs: inspect (dataset report + token statistics + preview) and train
 * (render, train with checkpoints, save the adapter and run.json). Events go out through `emit`.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EngineEvent, InspectResult, Requests, TrainConfig, TrainResult } from '../common/engine-api.ts';
import { HoneError, toPlain } from '../common/errors.ts';
import { checkpointsDir, lastStepOf } from '../services/runs/checkpoints.ts';
import type { HoneAddon, NativeEvent, NativeModel, NativeTrainer } from './binding.ts';
import { createRenderer, renderDataset, scanOrFail } from './render-dataset.ts';
import { runJson } from './run-json.ts';
import { readCapabilities } from './capabilities.ts';
import { microBatchParams } from './micro-batch.ts';
import { adapterParams, trainerParams } from './trainer-params.ts';

export type Emit = (e: EngineEvent) => void;

/**
 * What a stop/cancel request acts on: the trainer once it exists, a flag before. A run whose
 * stop could not write its checkpoint is held: it waits for `decide` (retry or discard).
 */
export class RunControl {
  trainer: NativeTrainer | null = null;
  stopRequested: 'stop' | 'cancel' | null = null;
  private decision: ((d: 'retry' | 'discard') => void) | null = null;
  request(kind: 'stop' | 'cancel') {
    this.stopRequested = kind;
    if (this.trainer) kind === 'stop' ? this.trainer.stop() : this.trainer.cancel();
  }
  /** Settles with the next retry-checkpoint or discard request. */
  awaitDecision(): Promise<'retry' | 'discard'> {
    return new Promise((resolve) => (this.decision = resolve));
  }
  /** A retry-checkpoint or discard request; false when the run is not held. */
  decide(d: 'retry' | 'discard'): boolean {
    const f = this.decision;
    this.decision = null;
    f?.(d);
    return f !== null;
  }
}

function writeFileAtomic(path: string, text: string) {
  const fd = openSync(`${path}.tmp`, 'w');
  try {
    writeFileSync(fd, text);
    fsyncSync(fd); // on disk before the rename: after a power cut the name holds the old file or the whole new one
  } finally {
    closeSync(fd);
  }
  renameSync(`${path}.tmp`, path);
}

function writeJsonAtomic(path: string, value: unknown) {
  writeFileAtomic(path, JSON.stringify(value, null, 2) + '\n');
}

export async function inspectJob(addon: HoneAddon, p: Requests['inspect']['payload'], emit: Emit): Promise<InspectResult> {
  const cfg = p.config as TrainConfig;
  emit({ type: 'phase', phase: 'scan', message: `reading ${p.data.join(', ')}` });
  const ds = await scanOrFail({ data: p.data, evalData: cfg.evalData ?? [], evalSplit: cfg.evalSplit ?? 0, seed: cfg.seed ?? 0 }, true);
  emit({ type: 'phase', phase: 'load', message: `loading ${p.model}` });
  const model = await addon.Model.load({ path: p.model, backend: 'cpu', threads: cfg.threads ?? 0 });
  try {
    const renderer = createRenderer(model, cfg);
    try {
      emit({ type: 'phase', phase: 'render', message: 'rendering examples through the chat template' });
      const r = await renderDataset(model, renderer, ds.report, ds.train, ds.eval, cfg.ctx ?? 0, cfg.truncate, addon.textWindows, proposer(addon, model), defaultCtx(addon));
      return { report: ds.report, template: r.template, tokens: r.stats, preview: r.preview };
    } finally {
      renderer.dispose();
    }
  } finally {
    model.dispose();
  }
}

/** The engine's context proposal for rendered sequences, capped at the model's training context. */
function proposer(addon: HoneAddon, model: NativeModel) {
  return (lengths: Int32Array) => addon.suggestContext(lengths, model.info().nCtxTrain);
}

/** The engine's default context: where auto has nothing to go on (text alone). */
function defaultCtx(addon: HoneAddon): number {
  return readCapabilities(addon).defaults.ctx;
}

export async function trainJob(addon: HoneAddon, p: Requests['train']['payload'], emit: Emit, control: RunControl): Promise<TrainResult> {
  let cfg = p.config;
  if (!p.resume && !p.continueFrom && existsSync(join(cfg.out, 'run.json'))) {
    throw new HoneError('invalid_argument', `${cfg.out} already holds a finished run (run.json); choose another --out or remove it`);
  }
  emit({ type: 'phase', phase: 'scan', message: `reading ${cfg.data.join(', ')}` });
  const ds = await scanOrFail(cfg, false);
  emit({ type: 'phase', phase: 'load', message: `loading ${cfg.model}` });
  const model = await addon.Model.load({ path: cfg.model, backend: cfg.backend, gpuPrecision: cfg.gpuPrecision, threads: cfg.threads });
  const disposers: Array<() => void> = [() => model.dispose()];
  try {
    const renderer = createRenderer(model, cfg);
    disposers.unshift(() => renderer.dispose());
    emit({ type: 'phase', phase: 'render', message: 'rendering examples through the chat template' });
    const data = await renderDataset(model, renderer, ds.report, ds.train, ds.eval, cfg.ctx, cfg.truncate, addon.textWindows, proposer(addon, model), defaultCtx(addon));
    emit({ type: 'tokens', stats: data.stats });
    // ctx 0 (auto): the context proposed for the data, the one config.json and the trainer get
    if (cfg.ctx !== data.stats.ctx) {
      emit({ type: 'phase', phase: 'render', message: `context ${data.stats.ctx}: ${data.stats.suggestedCtx ? `holds ${(100 * data.stats.suggestedCtx.covers).toFixed(1)}% of the chat examples whole` : "the engine's default (text only)"}` });
    }
    cfg = { ...cfg, ctx: data.stats.ctx };
    if (data.train.length === 0) throw new HoneError('no_examples', 'no training sequence is left after rendering and the length policy', { tokens: data.stats });

    mkdirSync(cfg.out, { recursive: true });
    writeJsonAtomic(join(cfg.out, 'config.json'), cfg); // the config this run actually uses
    emit({ type: 'phase', phase: 'build', message: 'building the training graph' });
    const adapter = addon.Adapter.create(model, adapterParams(cfg));
    disposers.unshift(() => adapter.dispose());
    // packed where two examples fit in a row (text windows fill theirs and keep exactly causal attention)
    const lengths = Int32Array.from(data.train, (s) => s.tokens.length);
    const pack = cfg.pack === true && addon.packingHelps(lengths, cfg.ctx);
    const microBatch = microBatchParams(addon, cfg, lengths, pack, p.resume ?? undefined);
    const trainer = await addon.Trainer.create(model, adapter, trainerParams(cfg, { checkpointDir: checkpointsDir(cfg.out), runConfig: JSON.stringify(cfg), pack, ...microBatch }));
    disposers.unshift(() => trainer.dispose());
    // ops.json as scheduled, before the first step; rewritten with the measured memory (and
    // per-op times when profiled) when training ends
    const writeOps = () => writeFileAtomic(join(cfg.out, 'ops.json'), trainer.opReport());
    writeOps();
    if (p.resume) await trainer.resume(p.resume);
    else if (p.continueFrom) await trainer.continueFrom(p.continueFrom);
    control.trainer = trainer;
    if (control.stopRequested) control.request(control.stopRequested);

    emit({ type: 'phase', phase: 'train', message: `training ${data.train.length} sequence(s)` });
    let last: { loss: number; step: number; tokens: number; positions: number; elapsedS: number } | null = null;
    let lastCheckpoint: string | null = null;
    let failedCheckpoint: Extract<NativeEvent, { type: 'checkpoint-failed' }> | null = null; // since the last good one
    let evalLoss: number | null = null;
    const res = await trainer.train({ train: data.train, eval: data.eval }, (e) => {
      if (e.type === 'step') last = e;
      if (e.type === 'checkpoint') [lastCheckpoint, failedCheckpoint] = [e.path, null];
      if (e.type === 'checkpoint-failed') failedCheckpoint = e;
      if (e.type === 'eval') evalLoss = e.evalLoss;
      if (e.type === 'step') {
        const { clipScale: _c, ...rest } = e;
        emit(rest);
      } else if (e.type === 'checkpoint-failed') emit({ ...e, lastGood: lastCheckpoint, held: false });
      else emit(e);
    });
    control.trainer = null;
    // resumed from its last step, the run trained none here: its last step is the checkpoint's
    const l = (last as { loss: number; step: number; tokens: number; positions: number; elapsedS: number } | null) ?? (p.resume ? await lastStepOf(p.resume).catch(() => null) : null);
    if (res.stopped) {
      // a stop whose checkpoint failed keeps the state in memory until told to retry or discard
      while (failedCheckpoint) {
        const f: Extract<NativeEvent, { type: 'checkpoint-failed' }> = failedCheckpoint;
        emit({ ...f, lastGood: lastCheckpoint, held: true });
        if ((await control.awaitDecision()) === 'discard') break;
        try {
          const path = await trainer.saveCheckpoint();
          [lastCheckpoint, failedCheckpoint] = [path, null];
          emit({ type: 'checkpoint', path, step: res.step, microBatch: 0 });
        } catch (err) {
          failedCheckpoint = { ...f, code: toPlain(err).code, message: (err as Error).message };
        }
      }
      try {
        writeOps();
      } catch {
        // the report as scheduled (written before training) stays; the run itself lost nothing
      }
      return { adapter: null, runJson: null, stopped: true, step: res.step, lastCheckpoint, finalLoss: l?.loss ?? null };
    }
    const resumable = (what: string) => (err: unknown) => {
      const e = toPlain(err);
      throw new HoneError(e.code, `${what}: ${e.message}; ${lastCheckpoint ? `the run stays resumable from its last good checkpoint ${lastCheckpoint}` : 'no checkpoint was written either'}`, { lastCheckpoint });
    };
    emit({ type: 'phase', phase: 'save', message: `writing ${join(cfg.out, 'adapter.gguf')}` });
    const adapterPath = join(cfg.out, 'adapter.gguf');
    await adapter.save(adapterPath).catch(resumable('the adapter could not be written'));
    try {
      writeOps();
    } catch (err) {
      resumable('ops.json could not be written')(err);
    }
    const runJsonPath = join(cfg.out, 'run.json');
    const write = () => writeJsonAtomic(runJsonPath, runJson({
      status: 'completed', config: cfg, resumedFrom: p.resume ?? p.continueFrom ?? null, model: model.info(), adapter: { path: adapterPath, nParams: adapter.nParams() },
      report: ds.report, sequences: data.train.length, evalSequences: data.eval.length, tokens: data.stats, template: data.template,
      last: l, evalLoss, steps: res.step, lastCheckpoint, memory: JSON.parse(trainer.memoryReport()),
    }));
    try {
      write();
    } catch (err) {
      resumable('run.json could not be written')(err);
    }
    return { adapter: adapterPath, runJson: runJsonPath, stopped: false, step: res.step, lastCheckpoint, finalLoss: l?.loss ?? null };
  } finally {
    control.trainer = null;
    for (const d of disposers) d();
  }
}
