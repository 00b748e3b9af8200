/**
 * A run's recorded events folded into columns the chart and the stats read. Pure: the event
 * batcher and the history replay both go through `foldRecords`, so a reloaded window and a
 * live one end with the same series. Records at or below `lastSeq` are skipped (a replay and
 * the live stream overlap).
 */
import type { EngineEvent, TokenStats } from '../../../electron/common/engine-api.ts';
import type { PlainError } from '../../../electron/common/errors.ts';
import type { RunEventRecord, RunStatus } from '../../../electron/common/runs.ts';

/** Columns, one entry per optimizer step (train) or evaluation (eval), in step order. */
export interface RunSeries {
  steps: number[];
  loss: number[];
  lr: number[];
  /** Real (non-padding) tokens per second. */
  tokensPerS: number[];
  /** Real tokens / processed positions; null for steps logged before the engine reported it. */
  rowFill: (number | null)[];
  elapsedS: number[];
  tokens: number[];
  evalSteps: number[];
  evalLoss: number[];
}

export interface RunProgress {
  series: RunSeries;
  lastSeq: number;
  nSteps: number | null;
  phase: { phase: string; message: string } | null;
  tokens: TokenStats | null;
  /** The newest status the events recorded (the summary is the authority; this fills gaps). */
  status: RunStatus | null;
  error: PlainError | null;
  lastCheckpointStep: number | null;
}

export const emptySeries = (): RunSeries => ({ steps: [], loss: [], lr: [], tokensPerS: [], rowFill: [], elapsedS: [], tokens: [], evalSteps: [], evalLoss: [] });

export const emptyProgress = (): RunProgress => ({
  series: emptySeries(),
  lastSeq: 0,
  nSteps: null,
  phase: null,
  tokens: null,
  status: null,
  error: null,
  lastCheckpointStep: null,
});

type StepEvent = Extract<EngineEvent, { type: 'step' }>;
type EvalEvent = Extract<EngineEvent, { type: 'eval' }>;

/** Folds records (any order; sorted here) into a new progress; `prev` is not modified. */
export function foldRecords(prev: RunProgress, records: readonly RunEventRecord[]): RunProgress {
  const fresh = records.filter((r) => r.seq > prev.lastSeq).sort((a, b) => a.seq - b.seq);
  if (fresh.length === 0) return prev;
  const steps: StepEvent[] = [];
  const evals: EvalEvent[] = [];
  const next: RunProgress = { ...prev };
  for (const r of fresh) {
    const e = r.event;
    switch (e.type) {
      case 'step':
        steps.push(e);
        next.nSteps = e.nSteps;
        break;
      case 'eval':
        evals.push(e);
        break;
      case 'phase':
        next.phase = { phase: e.phase, message: e.message };
        break;
      case 'tokens':
        next.tokens = e.stats;
        break;
      case 'checkpoint':
        next.lastCheckpointStep = e.step;
        break;
      case 'status':
        next.status = e.status;
        next.error = e.error ?? null;
        break;
      default:
        break; // host-exited reaches the UI as a service event with its reason
    }
  }
  next.lastSeq = fresh[fresh.length - 1].seq;
  if (steps.length || evals.length) next.series = appendSeries(prev.series, steps, evals);
  return next;
}

// events logged before the engine reported row fill have none
const fillOf = (e: StepEvent): number | null => (typeof e.rowFill === 'number' ? e.rowFill : null);

function appendSeries(s: RunSeries, steps: StepEvent[], evals: EvalEvent[]): RunSeries {
  // a continued run's steps go on from where it stopped; a resumed one may repeat a step it
  // had recorded before the crash: the newer record wins
  let last = s.steps.length ? s.steps[s.steps.length - 1] : -Infinity;
  for (const e of steps) {
    if (e.step <= last) return rebuild(s, steps, evals);
    last = e.step;
  }
  let lastEval = s.evalSteps.length ? s.evalSteps[s.evalSteps.length - 1] : -Infinity;
  for (const e of evals) {
    if (e.step <= lastEval) return rebuild(s, steps, evals);
    lastEval = e.step;
  }
  return {
    steps: s.steps.concat(steps.map((e) => e.step)),
    loss: s.loss.concat(steps.map((e) => e.loss)),
    lr: s.lr.concat(steps.map((e) => e.lr)),
    tokensPerS: s.tokensPerS.concat(steps.map((e) => e.tokensPerS)),
    rowFill: s.rowFill.concat(steps.map(fillOf)),
    elapsedS: s.elapsedS.concat(steps.map((e) => e.elapsedS)),
    tokens: s.tokens.concat(steps.map((e) => e.tokens)),
    evalSteps: s.evalSteps.concat(evals.map((e) => e.step)),
    evalLoss: s.evalLoss.concat(evals.map((e) => e.evalLoss)),
  };
}

/** The slow path: steps out of order, merged by step number (rare: a resume after a crash). */
function rebuild(s: RunSeries, steps: StepEvent[], evals: EvalEvent[]): RunSeries {
  const byStep = new Map<number, [number, number, number, number, number, number | null]>();
  s.steps.forEach((st, i) => byStep.set(st, [s.loss[i], s.lr[i], s.tokensPerS[i], s.elapsedS[i], s.tokens[i], s.rowFill[i]]));
  for (const e of steps) byStep.set(e.step, [e.loss, e.lr, e.tokensPerS, e.elapsedS, e.tokens, fillOf(e)]);
  const order = [...byStep.keys()].sort((a, b) => a - b);
  const evalBy = new Map<number, number>();
  s.evalSteps.forEach((st, i) => evalBy.set(st, s.evalLoss[i]));
  for (const e of evals) evalBy.set(e.step, e.evalLoss);
  const evalOrder = [...evalBy.keys()].sort((a, b) => a - b);
  return {
    steps: order,
    loss: order.map((k) => byStep.get(k)![0]),
    lr: order.map((k) => byStep.get(k)![1]),
    tokensPerS: order.map((k) => byStep.get(k)![2]),
    elapsedS: order.map((k) => byStep.get(k)![3]),
    tokens: order.map((k) => byStep.get(k)![4]),
    rowFill: order.map((k) => byStep.get(k)![5]),
    evalSteps: evalOrder,
    evalLoss: evalOrder.map((k) => evalBy.get(k)!),
  };
}
