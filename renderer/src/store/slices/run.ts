/**
 * Run slice: the run the Train view follows (its summary, its folded events) and the chart's
 * controls. Live events come in through the event batcher (store/event-batcher.ts), never one
 * setState per event.
 */
import type { PlainError } from '../../../../electron/common/errors.ts';
import type { RunEventRecord, RunSummary } from '../../../../electron/common/runs.ts';
import type { SliceCreator } from '../app-state.ts';
import { idle, type Loadable } from '../loadable.ts';
import { emptyProgress, foldRecords, type RunProgress } from '../run-records.ts';

export interface HostExit {
  reason: string;
  runId: string | null;
  error: PlainError;
}

export interface RunState extends RunProgress {
  id: string | null;
  summary: RunSummary | null;
  /** True while the recorded history is being fetched: live events wait in the batcher. */
  syncing: boolean;
  /** The engine host died (its reason); cleared when the run resumes. */
  hostExit: HostExit | null;
  /** The last button pressed (start, stop, pause, resume, cancel) and how it went. */
  action: Loadable<string>;
  chart: { smoothing: number; showRaw: boolean };
}

export interface RunSlice {
  run: RunState;
  /** Follows a run from now on: its series is rebuilt from the history fetched next. */
  followRun(summary: RunSummary): void;
  unfollowRun(): void;
  setRunSynced(records: RunEventRecord[]): void;
  applyRunRecords(records: RunEventRecord[]): void;
  setRunSummary(summary: RunSummary): void;
  setHostExit(exit: HostExit | null): void;
  setRunAction(action: Loadable<string>): void;
  setChart(chart: Partial<RunState['chart']>): void;
}

const initialRun = (chart: RunState['chart'] = { smoothing: 0.8, showRaw: true }): RunState => ({
  ...emptyProgress(),
  id: null,
  summary: null,
  syncing: false,
  hostExit: null,
  action: idle(),
  chart,
});

export const createRunSlice: SliceCreator<RunSlice> = (set) => ({
  run: initialRun(),
  followRun: (summary) =>
    set((s) =>
      s.run.id === summary.id
        ? { run: { ...s.run, summary } }
        : { run: { ...initialRun(s.run.chart), id: summary.id, summary, syncing: true, nSteps: summary.nSteps || null } },
    ),
  unfollowRun: () => set((s) => ({ run: initialRun(s.run.chart) })),
  setRunSynced: (records) => set((s) => ({ run: { ...s.run, ...foldRecords(s.run, records), syncing: false } })),
  applyRunRecords: (records) => set((s) => ({ run: { ...s.run, ...foldRecords(s.run, records) } })),
  setRunSummary: (summary) => set((s) => (s.run.id === summary.id ? { run: { ...s.run, summary } } : {})),
  setHostExit: (hostExit) => set((s) => ({ run: { ...s.run, hostExit } })),
  setRunAction: (action) => set((s) => ({ run: { ...s.run, action } })),
  setChart: (chart) => set((s) => ({ run: { ...s.run, chart: { ...s.run.chart, ...chart } } })),
});
