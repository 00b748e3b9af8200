/**
 * Dataset actions: import paths (typed, or from dropped files), remove one, and render the data
 * through the chosen model (token statistics, truncation, a masked preview).
 */
import type { AppEnv } from '../app/env.ts';
import { failed, idle, loading, ready } from '../store/loadable.ts';
import { background } from './engine-queue.ts';
import { selectRunSettings } from '../store/selectors.ts';
import type { AppState } from '../store/app-state.ts';

/** Imports `sources` as the whole dataset (the report covers every file together). */
export async function importSources(env: AppEnv, sources: string[]): Promise<void> {
  const s = env.store.getState();
  s.setDatasetSources(sources);
  if (sources.length === 0) {
    s.setDatasetReport(idle());
    s.setDatasetInspect(idle(), null);
    return;
  }
  s.setDatasetReport(loading(env.store.getState().datasets.report));
  try {
    const report = await env.service.datasets.import(sources);
    // a newer import may have started meanwhile: only the latest sources' report is kept
    if (env.store.getState().datasets.sources === sources) s.setDatasetReport(ready(report));
  } catch (e) {
    if (env.store.getState().datasets.sources === sources) s.setDatasetReport(failed(e));
  }
}

export async function addSources(env: AppEnv, paths: string[]): Promise<void> {
  const current = env.store.getState().datasets.sources;
  await importSources(env, [...current, ...paths.filter((p) => !current.includes(p))]);
}

export async function removeSource(env: AppEnv, path: string): Promise<void> {
  await importSources(env, env.store.getState().datasets.sources.filter((p) => p !== path));
}

/** Dropped or picked files: uploaded (web mode) or resolved to their paths (Electron), then imported. */
export async function importFiles(env: AppEnv, files: File[]): Promise<void> {
  if (files.length === 0) return;
  const s = env.store.getState();
  s.setUpload({ done: 0, total: files.length });
  let paths: string[];
  try {
    paths = await env.files.toPaths(files, (done, total) => s.setUpload({ done, total }));
  } catch (e) {
    s.setUpload(null);
    s.setDatasetReport(failed(e, env.store.getState().datasets.report));
    return;
  }
  s.setUpload(null);
  await addSources(env, paths);
}

/** The settings the inspection depends on; a change of anything else does not re-render the data. */
export function selectInspectKey(s: AppState): string | null {
  const rs = selectRunSettings(s);
  if (!rs) return null;
  const { model, data, ctx, truncate, loss, ignoreWeights, evalSplit, seed } = rs;
  return JSON.stringify({ model, data, ctx, truncate, loss, ignoreWeights, evalSplit, seed });
}

export async function inspectDataset(env: AppEnv): Promise<void> {
  const state = env.store.getState();
  const settings = selectRunSettings(state);
  const key = selectInspectKey(state);
  if (!settings || !key) return;
  state.setDatasetInspect(loading(state.datasets.inspect), key);
  try {
    const result = await background(() => env.service.datasets.inspect(settings));
    if (selectInspectKey(env.store.getState()) === key) env.store.getState().setDatasetInspect(ready(result), key);
  } catch (e) {
    if (selectInspectKey(env.store.getState()) === key) env.store.getState().setDatasetInspect(failed(e), key);
  }
}
