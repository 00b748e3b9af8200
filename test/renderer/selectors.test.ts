// Derived values are computed from the store, never stored, and keep their identity while
// their inputs do (what lets a component skip a render).
import { describe, expect, it } from 'vitest';
import { ready } from '../../renderer/src/store/loadable.ts';
import {
  gpuNodeShare,
  selectAccumulation,
  selectChartSeries,
  selectEffectiveConfig,
  selectEtaS,
  selectModelTargets,
  selectProgress,
  selectRunSettings,
  selectRunSettingsKey,
  selectSmoothedLoss,
} from '../../renderer/src/store/selectors.ts';
import { createAppStore } from '../../renderer/src/store/store.ts';
import { DEFAULTS, info, model, modelList, node, opsReport, planResult, pool, runSummary, stepRecords } from './data.ts';

function chosen() {
  const store = createAppStore();
  store.getState().setModelList(ready(modelList([model()])));
  store.getState().selectModel('/models/tiny-llama.gguf');
  store.getState().setDatasetSources(['/data/a.jsonl']);
  return store;
}

describe('settings selectors', () => {
  it('puts the user’s edits over the engine’s defaults', () => {
    const store = chosen();
    store.getState().setSetting('rank', 16);
    expect(selectEffectiveConfig(store.getState()).rank).toBe(16);
    store.getState().setInfo(ready(info()));
    const c = selectEffectiveConfig(store.getState());
    expect(c).toMatchObject({ rank: 16, ctx: DEFAULTS.ctx, lr: DEFAULTS.lr });
    expect(selectEffectiveConfig(store.getState())).toBe(c);
  });

  it('has run settings only with a model and data, with a key that follows every edit', () => {
    const store = createAppStore();
    expect(selectRunSettings(store.getState())).toBeNull();
    expect(selectRunSettingsKey(store.getState())).toBeNull();
    const c = chosen();
    const rs = selectRunSettings(c.getState());
    expect(rs).toEqual({ model: '/models/tiny-llama.gguf', data: ['/data/a.jsonl'] });
    expect(selectRunSettings(c.getState())).toBe(rs);
    const k1 = selectRunSettingsKey(c.getState());
    c.getState().setSetting('ctx', 256);
    const k2 = selectRunSettingsKey(c.getState());
    expect(k2).not.toBe(k1);
    c.getState().setSetting('ctx', 256);
    expect(selectRunSettingsKey(c.getState())).toBe(k2);
  });

  it('counts micro-batches per step', () => {
    const store = chosen();
    store.getState().setSetting('batch', 8);
    store.getState().setSetting('ubatch', 2);
    expect(selectAccumulation(store.getState())).toBe(4);
    store.getState().setSetting('ubatch', 0); // automatic: the trainer chooses, the plan says
    expect(selectAccumulation(store.getState())).toBe(null);
  });
});

describe('run selectors', () => {
  function running(steps: number, opts: { nSteps?: number; secondsPerStep?: number } = {}) {
    const store = createAppStore();
    store.getState().followRun(runSummary({ nSteps: opts.nSteps ?? 100 }));
    store.getState().setRunSynced(stepRecords(1, steps, opts));
    return store;
  }

  it('estimates the time left from the recent pace', () => {
    const store = running(40, { nSteps: 100, secondsPerStep: 0.5 });
    expect(selectEtaS(store.getState())).toBeCloseTo(60 * 0.5, 6);
    expect(selectProgress(store.getState())).toBeCloseTo(0.4, 12);
    expect(selectEtaS(running(100, { nSteps: 100 }).getState())).toBe(0);
    expect(selectEtaS(createAppStore().getState())).toBeNull();
  });

  it('smooths once per series and weight, and downsamples a long run for the chart', () => {
    const store = running(20_000, { nSteps: 20_000 });
    const a = selectSmoothedLoss(store.getState());
    expect(selectSmoothedLoss(store.getState())).toBe(a);
    store.getState().setChart({ smoothing: 0.5 });
    expect(selectSmoothedLoss(store.getState())).not.toBe(a);
    const series = selectChartSeries(store.getState(), 800);
    expect(series.total).toBe(20_000);
    expect(series.raw).toHaveLength(800);
    expect(series.smooth).toHaveLength(800);
    expect(series.raw[0]).toEqual({ x: 1, y: 4 });
    expect(series.raw[799].x).toBe(20_000);
    expect(selectChartSeries(store.getState(), 800)).toBe(series);
  });
});

describe('ops selectors', () => {
  it('give the GPU’s share of compute nodes and the targets the model has', () => {
    const report = opsReport(
      [node(0, { backend: 'CUDA0', weight: 'blk.0.attn_q.weight' }), node(1, { backend: 'CUDA0', weight: 'blk.0.attn_v.weight' }), node(2, { backend: 'CPU', cpu_reason: 'x' }), node(3, { backend: 'CUDA0', compute: false })],
      ['CUDA0', 'CPU'],
    );
    expect(gpuNodeShare(report)).toBeCloseTo(2 / 3, 12);
    expect(gpuNodeShare(opsReport([node(0)], ['CPU']))).toBe(0);
    expect(gpuNodeShare(null)).toBeNull();
    const store = chosen();
    expect(selectModelTargets(store.getState())).toBeNull();
    store.getState().setPlan(ready(planResult([pool()], report)), selectRunSettingsKey(store.getState()));
    expect(selectModelTargets(store.getState())?.sort()).toEqual(['attn_q', 'attn_v']);
  });
});
