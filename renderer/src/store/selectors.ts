/**
 * Derived values, computed from the store and never stored: the chosen model, the effective
 * config, the run's smoothed loss, ETA and progress, the GPU's share of ops, the table rows.
 * Selectors that build objects or arrays are memoised on their inputs (memoLast) so a
 * component re-renders only when those change; components that build arrays inline use
 * useShallow.
 */
import type { TrainConfig } from '../../../electron/common/engine-api.ts';
import type { ListedModel } from '../../../electron/common/models.ts';
import { asOpsReport, type OpsReport } from '../../../electron/common/ops-report.ts';
import type { RunStatus, RunSummary } from '../../../electron/common/runs.ts';
import type { RunSettings } from '../../../electron/common/service.ts';
import { lttb } from '../lib/lttb.ts';
import { memoLast } from '../lib/memo.ts';
import { backendShares, opsRows, targetsInGraph } from '../lib/ops-rows.ts';
import { smoothEma } from '../lib/smoothing.ts';
import type { AppState } from './app-state.ts';

export const ACTIVE_STATUSES: readonly RunStatus[] = ['starting', 'running', 'pausing'];
export const isActive = (status: RunStatus | null | undefined) => !!status && ACTIVE_STATUSES.includes(status);

// ---- models, settings ----------------------------------------------------------------------

export function selectSelectedModel(s: AppState): ListedModel | null {
  const id = s.models.selectedId;
  if (!id) return null;
  return s.models.list.data?.models.find((m) => m.id === id) ?? s.models.picked.find((m) => m.id === id) ?? null;
}

const effective = memoLast((defaults: TrainConfig | undefined, edits: Partial<TrainConfig>): Partial<TrainConfig> => ({ ...defaults, ...edits }));
/** The engine's defaults with the user's edits on top (only edits before `info` arrives). */
export const selectEffectiveConfig = (s: AppState) => effective(s.settings.info.data?.engine.defaults, s.settings.edits);

const runSettings = memoLast((model: string | null, data: string[], edits: Partial<TrainConfig>): RunSettings | null =>
  model && data.length ? { ...edits, model, data } : null,
);
/** What plan, inspect and start are called with; null until a model and data are chosen. */
export const selectRunSettings = (s: AppState) => runSettings(selectSelectedModel(s)?.path ?? null, s.datasets.sources, s.settings.edits);

/** A string that changes exactly when the run settings do (the plan's and inspection's cache key). */
export function selectRunSettingsKey(s: AppState): string | null {
  const rs = selectRunSettings(s);
  return rs ? JSON.stringify(rs, Object.keys(rs).sort()) : null;
}

/** Micro-batches per optimizer step. */
export function selectAccumulation(s: AppState): number | null {
  const c = selectEffectiveConfig(s);
  // a token budget: as many as the step's rows need; ubatch 0: the trainer chooses (the plan says)
  if (!c.batch || (c.batchTokens ?? 0) > 0 || !c.ubatch) return null;
  return Math.max(1, Math.ceil(c.batch / c.ubatch));
}

// ---- the run -------------------------------------------------------------------------------

const smooth = memoLast((loss: number[], weight: number) => smoothEma(loss, weight));
export const selectSmoothedLoss = (s: AppState) => smooth(s.run.series.loss, s.run.chart.smoothing);

const last = (a: number[]): number | null => (a.length ? a[a.length - 1] : null);
export const selectLatestStep = (s: AppState) => last(s.run.series.steps);
export const selectLatestLoss = (s: AppState) => last(s.run.series.loss);
export const selectLatestSmoothedLoss = (s: AppState) => last(selectSmoothedLoss(s));
export const selectLatestEvalLoss = (s: AppState) => last(s.run.series.evalLoss);
export const selectLatestLr = (s: AppState) => last(s.run.series.lr);
export const selectTokensPerS = (s: AppState) => last(s.run.series.tokensPerS);
export const selectRowFill = (s: AppState): number | null => {
  const fill = s.run.series.rowFill;
  return fill.length ? fill[fill.length - 1] : null;
};
export const selectElapsedS = (s: AppState) => last(s.run.series.elapsedS);

export function selectTotalSteps(s: AppState): number | null {
  return s.run.nSteps ?? (s.run.summary?.nSteps || null);
}

/** 0..1 of the run's steps done; null before the step count is known. */
export function selectProgress(s: AppState): number | null {
  const total = selectTotalSteps(s);
  const step = selectLatestStep(s) ?? s.run.summary?.step ?? null;
  if (!total || step == null) return null;
  return Math.min(1, step / total);
}

/** Seconds left at the pace of the last (up to) 20 steps; null before two steps or a known total. */
export function selectEtaS(s: AppState): number | null {
  const { steps, elapsedS } = s.run.series;
  const total = selectTotalSteps(s);
  const n = steps.length;
  if (!total || n === 0) return null;
  const remaining = total - steps[n - 1];
  if (remaining <= 0) return 0;
  const from = Math.max(0, n - 21);
  const stepsDone = steps[n - 1] - (from === n - 1 ? 0 : steps[from]);
  const secs = elapsedS[n - 1] - (from === n - 1 ? 0 : elapsedS[from]);
  if (stepsDone <= 0 || secs <= 0) return null;
  return (remaining * secs) / stepsDone;
}

export interface ChartPoint {
  x: number;
  y: number;
}
export interface ChartSeries {
  raw: ChartPoint[];
  smooth: ChartPoint[];
  eval: ChartPoint[];
  /** Points in the full series (before downsampling). */
  total: number;
}

const chart = memoLast((steps: number[], loss: number[], smoothed: number[], evalSteps: number[], evalLoss: number[], maxPoints: number): ChartSeries => ({
  raw: lttb(steps, loss, maxPoints),
  smooth: lttb(steps, smoothed, maxPoints),
  eval: lttb(evalSteps, evalLoss, maxPoints),
  total: steps.length,
}));
/** The loss chart's series, each downsampled (LTTB) to at most `maxPoints`. */
export function selectChartSeries(s: AppState, maxPoints: number): ChartSeries {
  const { steps, loss, evalSteps, evalLoss } = s.run.series;
  return chart(steps, loss, selectSmoothedLoss(s), evalSteps, evalLoss, maxPoints);
}

const lrChart = memoLast((steps: number[], lr: number[], maxPoints: number) => lttb(steps, lr, maxPoints));
export const selectLrSeries = (s: AppState, maxPoints: number) => lrChart(s.run.series.steps, s.run.series.lr, maxPoints);

/** The run a reloaded window should follow: the newest one still training. */
export function activeRun(list: RunSummary[] | null): RunSummary | null {
  return list?.find((r) => isActive(r.status)) ?? null;
}

// ---- plan and ops --------------------------------------------------------------------------

export const selectPlanOps = (s: AppState): OpsReport | null => asOpsReport(s.plan.result.data?.ops);
/** The report the Ops view shows: the plan's or the followed run's. */
export const selectActiveOps = (s: AppState): OpsReport | null => (s.ops.source === 'plan' ? selectPlanOps(s) : s.ops.run.data ?? null);

/** Share of compute nodes on a backend other than the CPU (a GPU, or the tests' refusing one). */
export function gpuNodeShare(report: OpsReport | null): number | null {
  if (!report) return null;
  let share = 0;
  for (const [backend, v] of Object.entries(report.share)) if (backend !== 'CPU') share += v.node_share;
  return share;
}
export function gpuFlopsShare(report: OpsReport | null): number | null {
  if (!report) return null;
  let share = 0;
  for (const [backend, v] of Object.entries(report.share)) if (backend !== 'CPU') share += v.flops_share;
  return share;
}
export const selectGpuNodeShare = (s: AppState) => gpuNodeShare(selectActiveOps(s));
export const selectGpuFlopsShare = (s: AppState) => gpuFlopsShare(selectActiveOps(s));

const rows = memoLast(opsRows);
export const selectOpsRows = (s: AppState) => rows(selectActiveOps(s), s.ops.view);

const shares = memoLast(backendShares);
export const selectBackendShares = (s: AppState) => shares(selectActiveOps(s));

const targets = memoLast(targetsInGraph);
/** Target modules the chosen model has (from the plan's graph); null until a plan exists. */
export const selectModelTargets = (s: AppState) => targets(selectPlanOps(s));

export function selectPlanFresh(s: AppState): boolean {
  return s.plan.key != null && s.plan.key === selectRunSettingsKey(s);
}
