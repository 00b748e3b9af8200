/** Runs slice: the registry's list, the runs picked for comparison, their details and curves. */
import type { RunDetail, RunSummary } from '../../../../electron/common/runs.ts';
import type { SliceCreator } from '../app-state.ts';
import { idle, type Loadable } from '../loadable.ts';
import type { RunSeries } from '../run-records.ts';

export interface RunsState {
  list: Loadable<RunSummary[]>;
  /** Ids ticked for the overlay and the config difference, in the order ticked. */
  selected: string[];
  details: Record<string, Loadable<RunDetail>>;
  curves: Record<string, Loadable<RunSeries>>;
}

export interface RunsSlice {
  runs: RunsState;
  setRunList(list: Loadable<RunSummary[]>): void;
  /** A run-status event: replaces the run in the list, or adds it at the top. */
  upsertRun(run: RunSummary): void;
  removeRun(id: string): void;
  toggleRunSelected(id: string): void;
  setRunDetail(id: string, detail: Loadable<RunDetail>): void;
  setRunCurve(id: string, curve: Loadable<RunSeries>): void;
}

export function upsertSummary(list: RunSummary[], run: RunSummary): RunSummary[] {
  const i = list.findIndex((r) => r.id === run.id);
  if (i < 0) return [run, ...list];
  const next = list.slice();
  next[i] = run;
  return next;
}

export const createRunsSlice: SliceCreator<RunsSlice> = (set) => ({
  runs: { list: idle(), selected: [], details: {}, curves: {} },
  setRunList: (list) => set((s) => ({ runs: { ...s.runs, list } })),
  upsertRun: (run) =>
    set((s) => (s.runs.list.data ? { runs: { ...s.runs, list: { ...s.runs.list, data: upsertSummary(s.runs.list.data, run) } } } : {})),
  removeRun: (id) =>
    set((s) => {
      const { [id]: _d, ...details } = s.runs.details;
      const { [id]: _c, ...curves } = s.runs.curves;
      const data = s.runs.list.data?.filter((r) => r.id !== id) ?? null;
      return { runs: { list: { ...s.runs.list, data }, selected: s.runs.selected.filter((x) => x !== id), details, curves } };
    }),
  toggleRunSelected: (id) =>
    set((s) => ({
      runs: { ...s.runs, selected: s.runs.selected.includes(id) ? s.runs.selected.filter((x) => x !== id) : [...s.runs.selected, id] },
    })),
  setRunDetail: (id, detail) => set((s) => ({ runs: { ...s.runs, details: { ...s.runs.details, [id]: detail } } })),
  setRunCurve: (id, curve) => set((s) => ({ runs: { ...s.runs, curves: { ...s.runs.curves, [id]: curve } } })),
});
