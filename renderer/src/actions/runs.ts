/** Run history actions: the list, one run's config and curve for comparison, delete, continue. */
import type { AppEnv } from '../app/env.ts';
import { failed, loading, ready } from '../store/loadable.ts';
import { emptyProgress, foldRecords } from '../store/run-records.ts';
import { backgroundSettled } from './engine-queue.ts';
import { followRun } from './run.ts';

export async function loadRuns(env: AppEnv): Promise<void> {
  const s = env.store.getState();
  s.setRunList(loading(s.runs.list));
  try {
    env.store.getState().setRunList(ready(await env.service.runs.list()));
  } catch (e) {
    env.store.getState().setRunList(failed(e, env.store.getState().runs.list));
  }
}

/** The config and the curve of a run ticked for comparison. */
export async function loadRunCompare(env: AppEnv, id: string): Promise<void> {
  const s = env.store.getState();
  if (!s.runs.details[id] || s.runs.details[id].status === 'error') {
    s.setRunDetail(id, loading());
    env.service.runs.get(id).then(
      (d) => env.store.getState().setRunDetail(id, ready(d)),
      (e) => env.store.getState().setRunDetail(id, failed(e)),
    );
  }
  s.setRunCurve(id, loading(s.runs.curves[id]));
  try {
    const records = await env.service.runs.events(id);
    env.store.getState().setRunCurve(id, ready(foldRecords(emptyProgress(), records).series));
  } catch (e) {
    env.store.getState().setRunCurve(id, failed(e));
  }
}

export async function toggleCompare(env: AppEnv, id: string): Promise<void> {
  env.store.getState().toggleRunSelected(id);
  if (env.store.getState().runs.selected.includes(id)) await loadRunCompare(env, id);
}

export async function deleteRun(env: AppEnv, id: string): Promise<boolean> {
  try {
    await env.service.runs.delete(id);
    env.store.getState().removeRun(id);
    if (env.store.getState().run.id === id) env.store.getState().unfollowRun();
    return true;
  } catch (e) {
    env.store.getState().setRunList(failed(e, env.store.getState().runs.list));
    return false;
  }
}

/** Trains a finished or stopped run further (a new schedule segment) and follows it. */
export async function continueRun(env: AppEnv, id: string, more: { steps?: number; epochs?: number }): Promise<boolean> {
  const s = env.store.getState();
  s.setRunAction(loading());
  try {
    await backgroundSettled();
    const summary = await env.service.runs.continue(id, more);
    env.store.getState().upsertRun(summary);
    env.store.getState().setRunAction(ready('continue'));
    await followRun(env, summary);
    return true;
  } catch (e) {
    env.store.getState().setRunAction(failed(e));
    return false;
  }
}
