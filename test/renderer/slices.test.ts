// Each slice's setters, through the one combined store.
import { describe, expect, it } from 'vitest';
import { PRESETS } from '../../renderer/src/lib/presets.ts';
import { failed, loading, ready } from '../../renderer/src/store/loadable.ts';
import { memoryStorage } from '../../renderer/src/store/persisted.ts';
import { createAppStore } from '../../renderer/src/store/store.ts';
import { model, modelList, runSummary, stepRecords } from './data.ts';

describe('models slice', () => {
  it('keeps a picked model once, newest first, and the choice by id', () => {
    const store = createAppStore();
    const s = () => store.getState();
    s().addPickedModel(model({ path: '/a.gguf' }));
    s().addPickedModel(model({ path: '/b.gguf' }));
    s().addPickedModel(model({ path: '/a.gguf', displayName: 'again' }));
    expect(s().models.picked.map((m) => m.displayName)).toEqual(['again', 'tiny-llama.gguf']);
    s().selectModel('/b.gguf');
    expect(s().models.selectedId).toBe('/b.gguf');
  });

  it('keeps the last list while reloading and after an error', () => {
    const store = createAppStore();
    const list = modelList([model()]);
    store.getState().setModelList(ready(list));
    store.getState().setModelList(loading(store.getState().models.list));
    expect(store.getState().models.list).toMatchObject({ status: 'loading', data: list });
    store.getState().setModelList(failed(new Error('disk gone'), store.getState().models.list));
    expect(store.getState().models.list).toMatchObject({ status: 'error', data: list, error: { code: 'internal', message: 'disk gone' } });
  });
});

describe('settings slice', () => {
  it('applies a preset over the edits and forgets it at the next edit', () => {
    const store = createAppStore();
    store.getState().setSetting('seed', 7);
    store.getState().applyPreset('quick');
    expect(store.getState().settings).toMatchObject({ preset: 'quick', edits: { ...PRESETS.quick.config, seed: 7 } });
    store.getState().setSetting('rank', 32);
    expect(store.getState().settings.preset).toBeNull();
    expect(store.getState().settings.edits.rank).toBe(32);
    store.getState().resetSettings();
    expect(store.getState().settings.edits).toEqual({});
  });
});

describe('run slice', () => {
  it('follows a run: syncing until its history is in, then its folded series', () => {
    const store = createAppStore();
    store.getState().followRun(runSummary({ id: 'r1' }));
    expect(store.getState().run).toMatchObject({ id: 'r1', syncing: true, lastSeq: 0 });
    store.getState().setRunSynced(stepRecords(1, 5));
    expect(store.getState().run.syncing).toBe(false);
    expect(store.getState().run.series.steps).toEqual([1, 2, 3, 4, 5]);
    // the same run again keeps its series; another starts fresh but keeps the chart controls
    store.getState().setChart({ smoothing: 0.5 });
    store.getState().followRun(runSummary({ id: 'r1', status: 'paused' }));
    expect(store.getState().run.series.steps).toHaveLength(5);
    expect(store.getState().run.summary?.status).toBe('paused');
    store.getState().followRun(runSummary({ id: 'r2' }));
    expect(store.getState().run).toMatchObject({ id: 'r2', lastSeq: 0, chart: { smoothing: 0.5 } });
    expect(store.getState().run.series.steps).toEqual([]);
  });

  it('ignores a summary of a run it does not follow', () => {
    const store = createAppStore();
    store.getState().followRun(runSummary({ id: 'r1' }));
    store.getState().setRunSummary(runSummary({ id: 'other', status: 'finished' }));
    expect(store.getState().run.summary?.status).toBe('running');
  });
});

describe('runs slice', () => {
  it('upserts, ticks and removes runs', () => {
    const store = createAppStore();
    const s = () => store.getState();
    s().setRunList(ready([runSummary({ id: 'a' }), runSummary({ id: 'b' })]));
    s().upsertRun(runSummary({ id: 'b', status: 'finished' }));
    s().upsertRun(runSummary({ id: 'c' }));
    expect(s().runs.list.data?.map((r) => `${r.id}:${r.status}`)).toEqual(['c:running', 'a:running', 'b:finished']);
    s().toggleRunSelected('a');
    s().toggleRunSelected('b');
    s().toggleRunSelected('a');
    expect(s().runs.selected).toEqual(['b']);
    s().setRunDetail('b', loading());
    s().removeRun('b');
    expect(s().runs.selected).toEqual([]);
    expect(s().runs.details).toEqual({});
    expect(s().runs.list.data?.map((r) => r.id)).toEqual(['c', 'a']);
  });
});

describe('datasets, plan and ops slices', () => {
  it('hold what their setters give them', () => {
    const store = createAppStore();
    const s = () => store.getState();
    s().setDatasetSources(['/d/a.jsonl']);
    s().setUpload({ done: 1, total: 3 });
    s().setPlan(loading(), 'key-1');
    s().setOpsView({ fallbacksOnly: true });
    s().setOpsSource('run');
    expect(s().datasets).toMatchObject({ sources: ['/d/a.jsonl'], upload: { done: 1, total: 3 } });
    expect(s().plan).toMatchObject({ key: 'key-1', result: { status: 'loading' } });
    expect(s().ops).toMatchObject({ source: 'run', view: { fallbacksOnly: true, grouping: 'op' } });
  });
});

describe('what survives a reload', () => {
  it('brings back the chosen model, the data files, the edits and the chart controls, nothing else', () => {
    const storage = memoryStorage();
    const first = createAppStore({ storage });
    const picked = model({ path: '/srv/typed.gguf' });
    first.getState().addPickedModel(picked);
    first.getState().selectModel(picked.id);
    first.getState().setDatasetSources(['/data/a.jsonl']);
    first.getState().applyPreset('balanced');
    first.getState().setChart({ showRaw: false });
    first.getState().setRunList(ready([runSummary()]));
    const second = createAppStore({ storage }).getState();
    expect(second.models).toMatchObject({ selectedId: '/srv/typed.gguf', picked: [picked] });
    expect(second.datasets.sources).toEqual(['/data/a.jsonl']);
    expect(second.settings).toMatchObject({ preset: 'balanced', edits: PRESETS.balanced.config });
    expect(second.run.chart.showRaw).toBe(false);
    expect(second.runs.list.status).toBe('idle');
  });

  it('ignores stored values of the wrong shape', () => {
    const storage = memoryStorage();
    storage.setItem('hone.renderer', JSON.stringify({ version: 1, state: { models: { selectedId: 5, picked: [{ nope: 1 }] }, datasets: { sources: 'x' }, run: { chart: { smoothing: 'a' } } } }));
    const s = createAppStore({ storage }).getState();
    expect(s.models).toMatchObject({ selectedId: null, picked: [] });
    expect(s.datasets.sources).toEqual([]);
    expect(s.run.chart).toEqual({ smoothing: 0.8, showRaw: true });
  });
});
