/**
 * Killing the engine host at a planned moment (loading, a step, a checkpoint write, the
 * adapter and run.json written at the end, a merge), and telling where the kill landed. Shared
 * by test/native/killed-host.test.ts and scripts/kill-sweep.ts.
 */
import { join } from 'node:path';
import { toPlain } from '../../electron/common/errors.ts';
import type { ExportRequest } from '../../electron/common/export.ts';
import type { RunEventRecord, RunSummary } from '../../electron/common/runs.ts';
import type { RunSettings, ServiceEvent } from '../../electron/common/service.ts';
import type { KillableService } from './killable-service.ts';
import { tempLeftovers } from './run-files.ts';
import { rng } from './train-data.ts';

export const KILL_PHASES = ['load', 'step', 'checkpoint', 'save', 'merge'] as const;
export type KillPhase = (typeof KILL_PHASES)[number];

/**
 * One kill. `at`: load: which of the loading phases (0 load, 1 render, 2 build); step: killed
 * `delayMs` after checkpoint `at` was reported, in step at+1; checkpoint: killed `delayMs` after
 * step `at` was reported, while its checkpoint is written; save: after the adapter write began;
 * merge: after tensor `at` was merged.
 */
export interface KillPlan {
  phase: KillPhase;
  at: number;
  delayMs: number;
}

const LOADING = ['load', 'render', 'build'] as const;
/** Upper bounds of the drawn delay (ms): about the time the phase takes on this tiny model. */
const DELAY_MS: Record<KillPhase, number> = { load: 4, step: 40, checkpoint: 4, save: 1, merge: 1 };
/** A merge of stories260K writes 48 tensors: kills are drawn over the first half (the IPC lag eats the rest). */
const MERGE_TENSORS = 24;

/** `n` kills drawn from `seed`: the phases in turn (each gets its share), the moment within each drawn. */
export function planKills(seed: number, n: number, steps: number, phases: readonly KillPhase[] = KILL_PHASES): KillPlan[] {
  const random = rng(seed);
  return Array.from({ length: n }, (_, i) => {
    const phase = phases[i % phases.length];
    const span = phase === 'load' ? LOADING.length : phase === 'step' ? steps - 1 : phase === 'merge' ? MERGE_TENSORS : steps;
    const at = phase === 'load' ? Math.floor(random() * span) : 1 + Math.floor(random() * span);
    const delayMs = Math.round(random() * DELAY_MS[phase] * 100) / 100;
    return { phase, at: phase === 'save' ? steps : at, delayMs };
  });
}

export function describePlan(p: KillPlan): string {
  const when = {
    load: `while ${LOADING[p.at]}ing`,
    step: `in step ${p.at + 1}`,
    checkpoint: `writing checkpoint ${p.at}`,
    save: 'writing the adapter and run.json',
    merge: `merging after tensor ${p.at}`,
  }[p.phase];
  return `${when} (+${p.delayMs} ms)`;
}

/** The service event a run's kill waits for. */
function trigger(p: KillPlan): (e: ServiceEvent) => boolean {
  return (e) => {
    if (e.type !== 'run') return false;
    const ev = e.record.event;
    if (p.phase === 'load') return ev.type === 'phase' && ev.phase === LOADING[p.at];
    if (p.phase === 'step') return ev.type === 'checkpoint' && ev.step === p.at;
    if (p.phase === 'checkpoint') return ev.type === 'step' && ev.step === p.at;
    return ev.type === 'phase' && ev.phase === 'save';
  };
}

export interface KilledRun {
  id: string;
  plan: KillPlan;
  /** The run as it ended: interrupted, or finished when the kill came after its last write. */
  ended: RunSummary;
  /** Where the kill landed, read from what the run left. */
  landed: string;
}

/** Starts a run and kills its host as `plan` says; resolves once the run ended. */
export async function killedRun(ks: KillableService, settings: RunSettings, plan: KillPlan): Promise<KilledRun> {
  if (plan.phase === 'merge') throw new Error('a merge kill needs killedMerge');
  void ks.killWhen(trigger(plan), plan.delayMs);
  const { id } = await ks.service.runs.start(settings);
  const ended = await ks.ended(id);
  await ks.settle();
  const folder = join(ks.service.dataDir, 'runs', id);
  const landed = ended.status === 'interrupted' ? whereLanded(folder, await ks.service.runs.events(id)) : `after the run ended (${ended.status})`;
  return { id, plan, ended, landed };
}

/** What the run was doing when its host died: a temporary file it left, else its last event. */
export function whereLanded(folder: string, records: RunEventRecord[]): string {
  const left = tempLeftovers(folder);
  const checkpoint = left.find((p) => p.startsWith('checkpoints'));
  if (checkpoint) return `mid checkpoint write (${checkpoint} left)`;
  if (left.length) return `mid file write (${left.join(', ')} left)`;
  const last = records.filter((r) => r.event.type !== 'status' && r.event.type !== 'host-exited').at(-1)?.event;
  if (!last) return 'before the host reported anything';
  if (last.type === 'step') return `after step ${last.step}, before its checkpoint was reported`;
  if (last.type === 'checkpoint') return `in step ${last.step + 1}`;
  if (last.type === 'phase') return `in phase ${last.phase}`;
  return `after a ${last.type} event`;
}

export interface KilledMerge {
  plan: KillPlan;
  /** killed: the export failed with host_exited; finished: the kill came after the merge. */
  outcome: 'killed' | 'finished';
  /** The tensor the merge had reported when the kill fired. */
  firedAt: number | null;
}

/** An export whose merge is killed as `plan` says. Other failures are thrown. */
export async function killedMerge(ks: KillableService, request: ExportRequest, plan: KillPlan): Promise<KilledMerge> {
  let firedAt: number | null = null;
  void ks.killWhen((e) => e.type === 'export-progress' && e.stage === 'merge' && e.done >= plan.at, plan.delayMs).then((e) => {
    if (e.type === 'export-progress') firedAt = e.done;
  });
  try {
    await ks.service.exports.create(request);
    return { plan, outcome: 'finished', firedAt };
  } catch (err) {
    if (toPlain(err).code !== 'host_exited') throw err;
    return { plan, outcome: 'killed', firedAt };
  } finally {
    await ks.settle();
  }
}

/** Resumes an interrupted run on the service and waits for it to end. */
export async function resumed(ks: KillableService, id: string): Promise<RunSummary> {
  const end = ks.ended(id);
  await ks.service.runs.resume(id);
  return end;
}
