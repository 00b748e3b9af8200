/**
 * A run's status.json: the service's own record of a run (status, error, schedule segments,
 * times, title, and the last step and losses seen), and the pure rules that move it: an
 * engine event updates the counters, a status change is stamped, and a run that was live when
 * its service ended is `interrupted` after a restart. docs/run-folder.md shows the schema.
 */
import type { EngineEvent, TrainConfig } from '../../common/engine-api.ts';
import { HoneError, isErrorCode, type PlainError } from '../../common/errors.ts';
import type { RunEventRecord, RunStatus, RunSummary } from '../../common/runs.ts';

export const STATUS_FILE_VERSION = 1;

/** status.json: a run's summary as the service records it; the resumable step is read from its checkpoints. */
export interface RunStatusFile extends Omit<RunSummary, 'resumableStep' | 'tokensPerS' | 'rowFill'> {
  version: typeof STATUS_FILE_VERSION;
  /** Absent in files written before the engine reported real tokens. */
  tokensPerS?: number | null;
  rowFill?: number | null;
}

/** A run in one of these is being worked on by a service's engine host. */
export const LIVE_STATUSES: readonly RunStatus[] = ['starting', 'running', 'pausing'];
/** A run in one of these can be resumed from its newest checkpoint. */
export const RESUMABLE_STATUSES: readonly RunStatus[] = ['paused', 'stopped', 'interrupted', 'failed'];
/** Statuses a run trains further from as a new schedule segment (runs.continue). */
export const CONTINUABLE_STATUSES: readonly RunStatus[] = ['finished', 'stopped', 'paused'];
const ALL_STATUSES: readonly RunStatus[] = [...LIVE_STATUSES, ...RESUMABLE_STATUSES, 'finished'];

export function isLive(status: RunStatus): boolean {
  return LIVE_STATUSES.includes(status);
}

const base = (p: string) => p.split(/[\\/]/).pop() || p;

/** "model.gguf · data.jsonl (+2) · 2026-12-01 14:22 UTC": the file names and when it started. */
export function runTitle(config: Pick<TrainConfig, 'model' | 'data'>, createdAt: Date): string {
  const more = config.data.length > 1 ? ` (+${config.data.length - 1})` : '';
  const when = createdAt.toISOString().slice(0, 16).replace('T', ' ');
  return `${base(config.model)} · ${base(config.data[0] ?? '')}${more} · ${when} UTC`;
}

export function newStatusFile(id: string, config: TrainConfig, now: Date): RunStatusFile {
  return {
    version: STATUS_FILE_VERSION,
    id,
    title: runTitle(config, now),
    status: 'starting',
    error: null,
    segments: 1,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    model: config.model,
    data: [...config.data],
    step: 0,
    nSteps: config.steps,
    lastLoss: null,
    lastEvalLoss: null,
    adapter: null,
  };
}

/** The counters an engine event moves (a step, an eval); other events change nothing. */
export function withEvent(st: RunStatusFile, e: EngineEvent | RunEventRecord['event']): RunStatusFile {
  if (e.type === 'step') {
    // events logged before real-token counts have no positions: no speed is claimed for them
    const real = typeof e.positions === 'number';
    return {
      ...st, step: e.step, nSteps: e.nSteps, lastLoss: e.loss,
      tokensPerS: real && e.elapsedS > 0 ? e.tokens / e.elapsedS : null,
      rowFill: real && e.positions > 0 ? e.tokens / e.positions : null,
    };
  }
  if (e.type === 'eval') return { ...st, lastEvalLoss: e.evalLoss };
  return st;
}

export function withStatus(st: RunStatusFile, status: RunStatus, error: PlainError | null, now: Date): RunStatusFile {
  return { ...st, status, error, updatedAt: now.toISOString() };
}

/**
 * After a restart: a run whose file says it is live, but that no engine host of this service
 * runs, was cut off when its service ended. It becomes `interrupted` (host_exited), with its
 * counters brought up to the last events it logged. Null when nothing changes.
 */
export function afterRestart(st: RunStatusFile, liveHere: boolean, records: RunEventRecord[], now: Date): RunStatusFile | null {
  if (liveHere || !isLive(st.status)) return null;
  const counted = records.reduce((s, r) => withEvent(s, r.event), st);
  const reason = `the service ended while the run was ${st.status}`;
  return withStatus(counted, 'interrupted', { code: 'host_exited', message: `${reason}; resume it from its newest checkpoint`, detail: { reason, previousStatus: st.status } }, now);
}

export function summaryOf(st: RunStatusFile, resumableStep: number | null): RunSummary {
  return {
    id: st.id,
    title: st.title,
    status: st.status,
    createdAt: st.createdAt,
    updatedAt: st.updatedAt,
    model: st.model,
    data: [...st.data],
    step: st.step,
    nSteps: st.nSteps,
    resumableStep,
    lastLoss: st.lastLoss,
    lastEvalLoss: st.lastEvalLoss,
    tokensPerS: st.tokensPerS ?? null,
    rowFill: st.rowFill ?? null,
    adapter: st.adapter,
    error: st.error,
    segments: st.segments,
  };
}

/** Checks a parsed status.json; `bad_format` naming the file and the first wrong field. */
export function checkStatusFile(v: unknown, file: string, id: string): RunStatusFile {
  const bad = (field: string, what: string) => new HoneError('bad_format', `${file}: '${field}' ${what}`, { file, field });
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new HoneError('bad_format', `${file}: not a JSON object`, { file });
  const s = v as Record<string, unknown>;
  if (s.version !== STATUS_FILE_VERSION) throw bad('version', `must be ${STATUS_FILE_VERSION} (got ${JSON.stringify(s.version)})`);
  if (s.id !== id) throw bad('id', `must be the folder's name ${id} (got ${JSON.stringify(s.id)})`);
  for (const k of ['title', 'createdAt', 'updatedAt', 'model'] as const) if (typeof s[k] !== 'string') throw bad(k, 'must be a string');
  if (!ALL_STATUSES.includes(s.status as RunStatus)) throw bad('status', `must be one of ${ALL_STATUSES.join(', ')} (got ${JSON.stringify(s.status)})`);
  if (!Array.isArray(s.data) || !s.data.every((d) => typeof d === 'string')) throw bad('data', 'must be a list of paths');
  for (const k of ['segments', 'step', 'nSteps'] as const) if (typeof s[k] !== 'number' || !Number.isInteger(s[k]) || (s[k] as number) < 0) throw bad(k, 'must be a whole number >= 0');
  for (const k of ['lastLoss', 'lastEvalLoss'] as const) if (s[k] !== null && typeof s[k] !== 'number') throw bad(k, 'must be a number or null');
  for (const k of ['tokensPerS', 'rowFill'] as const) if (s[k] !== undefined && s[k] !== null && typeof s[k] !== 'number') throw bad(k, 'must be a number or null');
  if (s.adapter !== null && typeof s.adapter !== 'string') throw bad('adapter', 'must be a path or null');
  const e = s.error as Record<string, unknown> | null;
  if (e !== null && (!e || typeof e !== 'object' || !isErrorCode(e.code) || typeof e.message !== 'string')) throw bad('error', 'must be null or {code, message}');
  return s as unknown as RunStatusFile;
}
