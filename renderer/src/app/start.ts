/**
 * Wires a store to its service once, outside React: live events through the batcher, the first
 * loads, the debounced plan and inspection, and a resync after web mode's socket reconnects.
 * Returns the function that undoes it all (tests; a window never stops).
 */
import { importSources, inspectDataset, selectInspectKey } from '../actions/datasets.ts';
import { loadModels } from '../actions/models.ts';
import { planNow, startPlanScheduler } from '../actions/plan.ts';
import { followRun, loadRunOps } from '../actions/run.ts';
import { loadRuns } from '../actions/runs.ts';
import { handleShellCommand } from '../actions/shell.ts';
import { realTimers, watchSettled, type Timers } from '../lib/watch.ts';
import { createEventBatcher } from '../store/event-batcher.ts';
import { failed, loading, ready } from '../store/loadable.ts';
import { activeRun, isActive } from '../store/selectors.ts';
import type { AppEnv } from './env.ts';

export const INSPECT_DEBOUNCE_MS = 600;
const ENDED = new Set(['finished', 'stopped', 'failed', 'interrupted', 'paused']);

export async function loadInfo(env: AppEnv): Promise<void> {
  const s = env.store.getState();
  s.setInfo(loading(s.settings.info));
  try {
    env.store.getState().setInfo(ready(await env.service.info()));
  } catch (e) {
    env.store.getState().setInfo(failed(e, env.store.getState().settings.info));
  }
}

/** Loads the run list and follows the run still training, if any (a reloaded window). */
async function loadRunsAndFollow(env: AppEnv): Promise<void> {
  await loadRuns(env);
  const s = env.store.getState();
  const active = activeRun(s.runs.list.data);
  if (active && (!s.run.id || s.run.id === active.id)) await followRun(env, active);
  else if (s.run.summary) await followRun(env, s.run.summary); // catch up on what a dropped socket missed
}

export function startApp(env: AppEnv, opts: { timers?: Timers; batchMs?: number } = {}): () => void {
  const batcher = createEventBatcher(env.store, { intervalMs: opts.batchMs, timers: opts.timers });
  const offEvents = env.service.subscribe((e) => {
    batcher.push(e);
    if (e.type !== 'run-status') return;
    const s = env.store.getState();
    // a run started elsewhere (another tab, the command line) is followed when nothing is
    if (!s.run.id && isActive(e.run.status)) void followRun(env, e.run);
    if (s.run.id === e.run.id && ENDED.has(e.run.status)) void loadRunOps(env, e.run.id);
    if (ENDED.has(e.run.status)) askAgainWhenFree(0);
  });

  // The host was training when the plan or the inspection asked: ask again once the run ended.
  // The status can arrive while the host still saves the adapter, so a few tries, a second apart.
  let retry: unknown = null;
  const timers = opts.timers ?? realTimers;
  const askAgainWhenFree = (attempt: number) => {
    if (retry != null) timers.clearTimeout(retry);
    retry = timers.setTimeout(async () => {
      retry = null;
      const s = env.store.getState();
      if (activeRun(s.runs.list.data)) return;
      const asks: Promise<void>[] = [];
      if (s.plan.result.error?.code === 'busy') asks.push(planNow(env));
      if (s.datasets.inspect.error?.code === 'busy') asks.push(inspectDataset(env));
      await Promise.all(asks);
      const after = env.store.getState();
      const stillBusy = after.plan.result.error?.code === 'busy' || after.datasets.inspect.error?.code === 'busy';
      if (stillBusy && attempt < 8) askAgainWhenFree(attempt + 1);
    }, attempt === 0 ? 200 : 1000);
  };

  void loadInfo(env);
  void loadModels(env);
  void loadRunsAndFollow(env);
  // data files chosen before a reload are read again (they may have changed since)
  const { sources, report } = env.store.getState().datasets;
  if (sources.length && report.status === 'idle') void importSources(env, sources);

  const offPlan = startPlanScheduler(env, { timers: opts.timers });
  const offInspect = watchSettled(
    env.store,
    // once the import has answered: the data is rendered through the model only when readable
    (s) => (s.datasets.report.status === 'ready' ? selectInspectKey(s) : null),
    INSPECT_DEBOUNCE_MS,
    (key) => {
      if (key) void inspectDataset(env);
    },
    opts.timers,
  );

  // the app menu (File ▸ Open Model…) in the desktop app
  const offCommands = env.shell?.onCommand((c) => handleShellCommand(env, c));

  let wasDown = false;
  const offConnection = env.connection?.on((info) => {
    if (info.state === 'closed') wasDown = true;
    if (info.state !== 'open' || !wasDown) return;
    wasDown = false;
    const s = env.store.getState();
    if (s.settings.info.status === 'error') void loadInfo(env);
    if (s.models.list.status === 'error') void loadModels(env);
    void loadRunsAndFollow(env);
  });

  return () => {
    if (retry != null) timers.clearTimeout(retry);
    offEvents();
    batcher.dispose();
    offPlan();
    offInspect();
    offConnection?.();
    offCommands?.();
  };
}
