// A run's events folded into its curve: a replay and the live stream that overlap give one series.
import { describe, expect, it } from 'vitest';
import type { RunEventRecord } from '../../electron/common/runs.ts';
import { emptyProgress, foldRecords } from '../../renderer/src/store/run-records.ts';
import { stepRecords } from './data.ts';

describe('foldRecords', () => {
  it('skips records it already has and sorts what arrives out of order', () => {
    const first = foldRecords(emptyProgress(), stepRecords(1, 10));
    const again = foldRecords(first, [...stepRecords(8, 12)].reverse());
    expect(again.series.steps).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(again.lastSeq).toBe(12);
    expect(foldRecords(again, stepRecords(1, 12))).toBe(again);
  });

  it('keeps phases, evaluations, token statistics, checkpoints and status', () => {
    const records: RunEventRecord[] = [
      { seq: 1, at: '', segment: 0, event: { type: 'phase', phase: 'load', message: 'loading the model' } },
      ...stepRecords(1, 3, { seqOffset: 1 }),
      { seq: 5, at: '', segment: 0, event: { type: 'eval', step: 3, evalLoss: 2.5, lossTokens: 10, nSequences: 2 } },
      { seq: 6, at: '', segment: 0, event: { type: 'checkpoint', path: '/c/3', step: 3, microBatch: 0 } },
      { seq: 7, at: '', segment: 0, event: { type: 'status', status: 'stopped' } },
    ];
    const p = foldRecords(emptyProgress(), records);
    expect(p.phase).toEqual({ phase: 'load', message: 'loading the model' });
    expect(p.series.evalSteps).toEqual([3]);
    expect(p.series.evalLoss).toEqual([2.5]);
    expect(p).toMatchObject({ lastCheckpointStep: 3, status: 'stopped', nSteps: 100, lastSeq: 7 });
  });

  it('lets a resumed run’s repeated steps replace the ones recorded before the crash', () => {
    const before = foldRecords(emptyProgress(), stepRecords(1, 6));
    const resumed = stepRecords(5, 8, { seqOffset: 10 }).map((r) => (r.event.type === 'step' ? { ...r, event: { ...r.event, loss: 9 } } : r));
    const after = foldRecords(before, resumed);
    expect(after.series.steps).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(after.series.loss.slice(4)).toEqual([9, 9, 9, 9]);
    expect(after.series.loss[3]).toBeCloseTo(4 / Math.sqrt(4), 12);
  });

  it('gives one point per step when a crash and a resume are read back in one go', () => {
    // steps 1..9, the host dies, the run resumes from the checkpoint at 5 and steps 6..12 again
    const records = [...stepRecords(1, 9), ...stepRecords(6, 12, { seqOffset: 10 })];
    const p = foldRecords(emptyProgress(), records);
    expect(p.series.steps).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(p.lastSeq).toBe(22);
  });
});
