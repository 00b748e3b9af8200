/**
 * Ops slice: which op report the Ops view shows (the plan's, or a run's) and its table controls.
 * The plan's report lives in the plan slice; a run's is fetched with runs.opReport.
 */
import type { OpsReport } from '../../../../electron/common/ops-report.ts';
import type { SliceCreator } from '../app-state.ts';
import { idle, type Loadable } from '../loadable.ts';

export type OpsSortKey = 'op' | 'backend' | 'count' | 'flops' | 'time';
export type OpsGrouping = 'op' | 'node';

export interface OpsView {
  fallbacksOnly: boolean;
  grouping: OpsGrouping;
  sortKey: OpsSortKey;
  sortDir: 'asc' | 'desc';
  /** Filters rows by op, tensor name or source type. */
  query: string;
}

export interface OpsState {
  source: 'plan' | 'run';
  /** The run whose report `run` holds. */
  runId: string | null;
  /** null data: the run has no ops.json yet. */
  run: Loadable<OpsReport | null>;
  view: OpsView;
}

export interface OpsSlice {
  ops: OpsState;
  setOpsSource(source: OpsState['source']): void;
  setRunOps(runId: string, report: Loadable<OpsReport | null>): void;
  setOpsView(view: Partial<OpsView>): void;
}

export const createOpsSlice: SliceCreator<OpsSlice> = (set) => ({
  ops: { source: 'plan', runId: null, run: idle(), view: { fallbacksOnly: false, grouping: 'op', sortKey: 'flops', sortDir: 'desc', query: '' } },
  setOpsSource: (source) => set((s) => ({ ops: { ...s.ops, source } })),
  setRunOps: (runId, run) => set((s) => ({ ops: { ...s.ops, runId, run } })),
  setOpsView: (view) => set((s) => ({ ops: { ...s.ops, view: { ...s.ops.view, ...view } } })),
});
