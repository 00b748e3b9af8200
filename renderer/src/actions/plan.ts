/**
 * The live memory plan: re-planned (service.plan) once the settings have been still for a
 * moment. A slower answer to older settings never overwrites a newer one.
 */
import type { AppEnv } from '../app/env.ts';
import { realTimers, watchSettled, type Timers } from '../lib/watch.ts';
import { failed, idle, loading, ready } from '../store/loadable.ts';
import { background } from './engine-queue.ts';
import { selectRunSettings, selectRunSettingsKey } from '../store/selectors.ts';

export const PLAN_DEBOUNCE_MS = 350;

let planSeq = 0;

export async function planNow(env: AppEnv): Promise<void> {
  const state = env.store.getState();
  const settings = selectRunSettings(state);
  const key = selectRunSettingsKey(state);
  if (!settings || !key) {
    state.setPlan(idle(), null);
    return;
  }
  const mine = ++planSeq;
  state.setPlan(loading(state.plan.result), key);
  try {
    const result = await background(() => env.service.plan(settings));
    if (mine === planSeq) env.store.getState().setPlan(ready(result), key);
  } catch (e) {
    if (mine === planSeq) env.store.getState().setPlan(failed(e, env.store.getState().plan.result), key);
  }
}

/** Watches the settings key; returns the function that stops watching. */
export function startPlanScheduler(env: AppEnv, opts: { delayMs?: number; timers?: Timers } = {}): () => void {
  return watchSettled(env.store, selectRunSettingsKey, opts.delayMs ?? PLAN_DEBOUNCE_MS, () => void planNow(env), opts.timers ?? realTimers);
}
