/**
 * Run actions: start, stop, pause, resume, cancel, and following a run (its recorded history
 * first, then live events through the batcher), so a reloaded window shows the full curve.
 */
import { asOpsReport } from '../../../electron/common/ops-report.ts';
import type { RunSummary } from '../../../electron/common/runs.ts';
import type { AppEnv } from '../app/env.ts';
import { failed, loading, ready } from '../store/loadable.ts';
import { backgroundSettled } from './engine-queue.ts';
import { isActive, selectRunSettings } from '../store/selectors.ts';

/** Follows `summary`'s run: its events since the start (or since what we have, when already followed). */
export async function followRun(env: AppEnv, summary: RunSummary): Promise<void> {
  const s = env.store.getState();
  const same = s.run.id === summary.id;
  s.followRun(summary);
  try {
    const since = same ? env.store.getState().run.lastSeq : 0;
    const records = await env.service.runs.events(summary.id, since);
    if (env.store.getState().run.id === summary.id) env.store.getState().setRunSynced(records);
  } catch (e) {
    if (env.store.getState().run.id !== summary.id) return;
    env.store.getState().setRunSynced([]);
    env.store.getState().setRunAction(failed(e));
  }
}

export async function followRunById(env: AppEnv, id: string): Promise<void> {
  try {
    await followRun(env, await env.service.runs.get(id));
  } catch (e) {
    env.store.getState().setRunAction(failed(e));
  }
}

async function act(env: AppEnv, name: string, fn: () => Promise<RunSummary | void>): Promise<RunSummary | null> {
  const s = env.store.getState();
  s.setRunAction(loading());
  try {
    const summary = (await fn()) ?? null;
    if (summary) {
      env.store.getState().upsertRun(summary);
      env.store.getState().setRunSummary(summary);
    }
    env.store.getState().setRunAction(ready(name));
    return summary;
  } catch (e) {
    env.store.getState().setRunAction(failed(e));
    return null;
  }
}

/** Starts a run with the current settings; resolves with its summary (null when refused: see run.action). */
export async function startRun(env: AppEnv): Promise<RunSummary | null> {
  const settings = selectRunSettings(env.store.getState());
  if (!settings) return null;
  const summary = await act(env, 'start', async () => {
    await backgroundSettled();
    return env.service.runs.start(settings);
  });
  if (summary) {
    env.store.getState().upsertRun(summary);
    await followRun(env, summary);
  }
  return summary;
}

export const stopRun = (env: AppEnv, id: string) => act(env, 'stop', () => env.service.runs.stop(id));
export const pauseRun = (env: AppEnv, id: string) => act(env, 'pause', () => env.service.runs.pause(id));

/** Resumes a paused, stopped or interrupted run, clearing a host crash notice. */
export async function resumeRun(env: AppEnv, id: string): Promise<RunSummary | null> {
  const summary = await act(env, 'resume', async () => {
    await backgroundSettled();
    return env.service.runs.resume(id);
  });
  if (summary) {
    env.store.getState().setHostExit(null);
    await followRun(env, summary);
  }
  return summary;
}

/** Stops the run and discards it (its folder goes; models and data are never touched). */
export async function cancelRun(env: AppEnv, id: string): Promise<boolean> {
  env.store.getState().setRunAction(loading());
  try {
    const run = env.store.getState().runs.list.data?.find((r) => r.id === id) ?? env.store.getState().run.summary;
    if (run && isActive(run.status)) await env.service.runs.stop(id);
    await env.service.runs.delete(id);
    const s = env.store.getState();
    s.removeRun(id);
    if (s.run.id === id) s.unfollowRun();
    env.store.getState().setRunAction(ready('cancel'));
    return true;
  } catch (e) {
    env.store.getState().setRunAction(failed(e));
    return false;
  }
}

/** The run's ops.json (null data before one exists). */
export async function loadRunOps(env: AppEnv, id: string): Promise<void> {
  const s = env.store.getState();
  s.setRunOps(id, loading(s.ops.runId === id ? s.ops.run : undefined));
  try {
    const report = asOpsReport(await env.service.runs.opReport(id));
    env.store.getState().setRunOps(id, ready(report));
  } catch (e) {
    env.store.getState().setRunOps(id, failed(e));
  }
}
