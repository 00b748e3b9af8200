/**
 * The engine host's two jobs: inspect (dataset report + token statistics + preview) and train
 * (render, train with checkpoints, save the adapter and run.json). Events go out through `emit`.
 */
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EngineEvent, InspectResult, Requests, TrainConfig, TrainResult } from '../common/engine-api.ts';
import { HoneError } from '../common/errors.ts';
import { checkpointsDir } from '../services/runs/checkpoints.ts';
import type { HoneAddon, NativeTrainer } from './binding.ts';
import { createRenderer, renderDataset, scanOrFail } from './render-dataset.ts';
import { runJson } from './run-json.ts';
import { adapterParams, trainerParams } from './trainer-params.ts';

export type Emit = (e: EngineEvent) => void;

/** What a stop/cancel request acts on: the trainer once it exists, a flag before. */
export class RunControl {
  trainer: NativeTrainer | null = null;
  stopRequested: 'stop' | 'cancel' | null = null;
  request(kind: 'stop' | 'cancel') {
    this.stopRequested = kind;
    if (this.trainer) kind === 'stop' ? this.trainer.stop() : this.trainer.cancel();
  }
}

function writeFileAtomic(path: string, text: string) {
  writeFileSync(`${path}.tmp`, text);
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
      const r = await renderDataset(model, renderer, ds.report, ds.train, ds.eval, cfg.ctx, cfg.truncate, addon.textWindows);
      return { report: ds.report, template: r.template, tokens: r.stats, preview: r.preview };
    } finally {
      renderer.dispose();
    }
  } finally {
    model.dispose();
  }
}

export async function trainJob(addon: HoneAddon, p: Requests['train']['payload'], emit: Emit, control: RunControl): Promise<TrainResult> {
  const cfg = p.config;
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
    const data = await renderDataset(model, renderer, ds.report, ds.train, ds.eval, cfg.ctx, cfg.truncate, addon.textWindows);
    emit({ type: 'tokens', stats: data.stats });
    if (data.train.length === 0) throw new HoneError('no_examples', 'no training sequence is left after rendering and the length policy', { tokens: data.stats });

    mkdirSync(cfg.out, { recursive: true });
    writeJsonAtomic(join(cfg.out, 'config.json'), cfg); // the config this run actually uses
    emit({ type: 'phase', phase: 'build', message: 'building the training graph' });
    const adapter = addon.Adapter.create(model, adapterParams(cfg));
    disposers.unshift(() => adapter.dispose());
    const trainer = await addon.Trainer.create(model, adapter, trainerParams(cfg, { checkpointDir: checkpointsDir(cfg.out), runConfig: JSON.stringify(cfg) }));
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
    let last: { loss: number; step: number; tokens: number; elapsedS: number } | null = null;
    let lastCheckpoint: string | null = null;
    let evalLoss: number | null = null;
    const res = await trainer.train({ train: data.train, eval: data.eval }, (e) => {
      if (e.type === 'step') last = e;
      if (e.type === 'checkpoint') lastCheckpoint = e.path;
      if (e.type === 'eval') evalLoss = e.evalLoss;
      if (e.type === 'step') {
        const { clipScale: _c, ...rest } = e;
        emit(rest);
      } else emit(e);
    });
    control.trainer = null;
    writeOps();
    const l = last as { loss: number; step: number; tokens: number; elapsedS: number } | null;
    if (res.stopped) {
      return { adapter: null, runJson: null, stopped: true, step: res.step, lastCheckpoint, finalLoss: l?.loss ?? null };
    }
    emit({ type: 'phase', phase: 'save', message: `writing ${join(cfg.out, 'adapter.gguf')}` });
    const adapterPath = join(cfg.out, 'adapter.gguf');
    await adapter.save(adapterPath);
    const runJsonPath = join(cfg.out, 'run.json');
    writeJsonAtomic(runJsonPath, runJson({
      status: 'completed', config: cfg, resumedFrom: p.resume ?? p.continueFrom ?? null, model: model.info(), adapter: { path: adapterPath, nParams: adapter.nParams() },
      report: ds.report, sequences: data.train.length, evalSequences: data.eval.length, tokens: data.stats, template: data.template,
      last: l, evalLoss, steps: res.step, lastCheckpoint, memory: JSON.parse(trainer.memoryReport()),
    }));
    return { adapter: adapterPath, runJson: runJsonPath, stopped: false, step: res.step, lastCheckpoint, finalLoss: l?.loss ?? null };
  } finally {
    control.trainer = null;
    for (const d of disposers) d();
  }
}
