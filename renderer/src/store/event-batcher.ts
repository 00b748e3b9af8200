/**
 * Live service events into the store, batched: events are queued as they arrive and applied in
 * one setState at most every `intervalMs` (100 ms: ≤ 10 store updates a second however fast a
 * run steps), so a long run never floods React. While the followed run's history is being
 * fetched its events wait in the queue; the replay and the queue then meet at `lastSeq`.
 */
import type { RunEventRecord } from '../../../electron/common/runs.ts';
import type { ServiceEvent } from '../../../electron/common/service.ts';
import type { AppState } from './app-state.ts';
import { upsertSummary } from './slices/runs.ts';
import { foldRecords } from './run-records.ts';
import type { AppStoreApi } from './store.ts';

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(t: unknown): void;
}

export interface EventBatcher {
  push(e: ServiceEvent): void;
  /** Applies what is queued now (tests, and before a view reads the store on demand). */
  flush(): void;
  dispose(): void;
}

const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (t) => clearTimeout(t as ReturnType<typeof setTimeout>),
};

/** The store after a batch of events, and the events that must wait (the run is syncing). */
export function applyEvents(s: AppState, events: ServiceEvent[]): { patch: Partial<AppState>; held: ServiceEvent[] } {
  let run = s.run;
  let list = s.runs.list.data;
  const records: RunEventRecord[] = [];
  const held: ServiceEvent[] = [];
  for (const e of events) {
    if (e.type === 'run') {
      if (e.runId !== run.id) continue; // another run's steps: the Runs view fetches curves itself
      if (run.syncing) held.push(e);
      else records.push(e.record);
    } else if (e.type === 'run-status') {
      if (list) list = upsertSummary(list, e.run);
      if (e.run.id === run.id) run = { ...run, summary: e.run, hostExit: e.run.status === 'running' ? null : run.hostExit };
    } else if (e.type === 'host-exited') {
      run = { ...run, hostExit: { reason: e.reason, runId: e.runId, error: e.error } };
    }
  }
  if (records.length) run = { ...run, ...foldRecords(run, records) };
  const patch: Partial<AppState> = {};
  if (run !== s.run) patch.run = run;
  if (list !== s.runs.list.data) patch.runs = { ...s.runs, list: { ...s.runs.list, data: list } };
  return { patch, held };
}

export function createEventBatcher(store: AppStoreApi, opts: { intervalMs?: number; timers?: Timers } = {}): EventBatcher {
  const intervalMs = opts.intervalMs ?? 100;
  const timers = opts.timers ?? realTimers;
  let queue: ServiceEvent[] = [];
  let timer: unknown = null;
  let disposed = false;

  const schedule = () => {
    if (timer == null && !disposed) timer = timers.setTimeout(flush, intervalMs);
  };

  function flush() {
    if (timer != null) timers.clearTimeout(timer);
    timer = null;
    if (queue.length === 0) return;
    const events = queue;
    queue = [];
    const { patch, held } = applyEvents(store.getState(), events);
    if (Object.keys(patch).length) store.setState(patch);
    if (held.length) {
      queue = held.concat(queue);
      schedule();
    }
  }

  return {
    push(e) {
      if (disposed) return;
      queue.push(e);
      schedule();
    },
    flush,
    dispose() {
      disposed = true;
      if (timer != null) timers.clearTimeout(timer);
      timer = null;
      queue = [];
    },
  };
}
