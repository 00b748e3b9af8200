// Live events reach the store in batches: a fast run makes at most 10 store updates a second.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ServiceEvent } from '../../electron/common/service.ts';
import { createEventBatcher } from '../../renderer/src/store/event-batcher.ts';
import { ready } from '../../renderer/src/store/loadable.ts';
import { createAppStore } from '../../renderer/src/store/store.ts';
import { runSummary, stepRecords } from './data.ts';

const asEvents = (runId: string, from: number, to: number): ServiceEvent[] => stepRecords(from, to).map((record) => ({ type: 'run', runId, record }));

describe('event batcher', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('applies 1000 steps in a second with at most 10 store updates', () => {
    const store = createAppStore();
    store.getState().followRun(runSummary({ id: 'r1', nSteps: 1000 }));
    store.getState().setRunSynced([]);
    let updates = 0;
    store.subscribe(() => updates++);
    const batcher = createEventBatcher(store);
    const events = asEvents('r1', 1, 1000);
    for (let i = 0; i < 1000; i++) {
      batcher.push(events[i]);
      vi.advanceTimersByTime(1);
    }
    vi.advanceTimersByTime(100);
    expect(store.getState().run.series.steps).toHaveLength(1000);
    expect(store.getState().run.series.steps[999]).toBe(1000);
    expect(updates).toBeGreaterThan(0);
    expect(updates).toBeLessThanOrEqual(11);
  });

  it('holds a followed run’s events while its history loads, then meets it without duplicates', () => {
    const store = createAppStore();
    store.getState().followRun(runSummary({ id: 'r1' }));
    const batcher = createEventBatcher(store);
    for (const e of asEvents('r1', 4, 8)) batcher.push(e);
    vi.advanceTimersByTime(300);
    expect(store.getState().run.series.steps).toEqual([]);
    store.getState().setRunSynced(stepRecords(1, 5));
    vi.advanceTimersByTime(100);
    expect(store.getState().run.series.steps).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('updates the run list on status events, notes a dead host, ignores other runs’ steps', () => {
    const store = createAppStore();
    store.getState().setRunList(ready([runSummary({ id: 'r1' }), runSummary({ id: 'r0', status: 'finished' })]));
    store.getState().followRun(runSummary({ id: 'r1' }));
    store.getState().setRunSynced([]);
    const batcher = createEventBatcher(store);
    for (const e of asEvents('r0', 1, 3)) batcher.push(e);
    batcher.push({ type: 'run-status', run: runSummary({ id: 'r1', status: 'interrupted', resumableStep: 40 }) });
    batcher.push({ type: 'host-exited', reason: 'killed by SIGKILL', runId: 'r1', error: { code: 'host_exited', message: 'the engine host died' } });
    batcher.flush();
    const s = store.getState();
    expect(s.run.series.steps).toEqual([]);
    expect(s.run.summary?.status).toBe('interrupted');
    expect(s.runs.list.data?.find((r) => r.id === 'r1')?.resumableStep).toBe(40);
    expect(s.run.hostExit).toEqual({ reason: 'killed by SIGKILL', runId: 'r1', error: { code: 'host_exited', message: 'the engine host died' } });
  });

  it('stops after dispose', () => {
    const store = createAppStore();
    store.getState().followRun(runSummary({ id: 'r1' }));
    store.getState().setRunSynced([]);
    const batcher = createEventBatcher(store);
    batcher.push(asEvents('r1', 1, 1)[0]);
    batcher.dispose();
    vi.advanceTimersByTime(500);
    expect(store.getState().run.series.steps).toEqual([]);
  });
});
