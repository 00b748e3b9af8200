/**
 * Calls `settled(value)` once a derived value of the store has stopped changing for `delayMs`
 * (the plan re-runs as a person types, not on every keystroke). Returns the unsubscribe.
 */
import type { AppState } from '../store/app-state.ts';
import type { AppStore } from '../store/store.ts';

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(t: unknown): void;
}

export const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (t) => clearTimeout(t as ReturnType<typeof setTimeout>),
};

export function watchSettled<T>(
  store: AppStore,
  selector: (s: AppState) => T,
  delayMs: number,
  settled: (value: T) => void,
  timers: Timers = realTimers,
): () => void {
  let timer: unknown = null;
  const off = store.subscribe(
    selector,
    (value) => {
      if (timer != null) timers.clearTimeout(timer);
      timer = timers.setTimeout(() => {
        timer = null;
        settled(value);
      }, delayMs);
    },
    { fireImmediately: true },
  );
  return () => {
    off();
    if (timer != null) timers.clearTimeout(timer);
  };
}
