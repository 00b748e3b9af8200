/**
 * The killed-host test at length (a script, not a test): many runs on stories260K whose engine
 * host is SIGKILLed at seeded moments (loading, a step, a checkpoint write, the adapter and
 * run.json write, a merge), each checked as test/native/killed-host.test.ts checks them, then
 * resumed and compared with a run never killed. Prints every kill, where it landed, the resumed
 * result, and a count by phase; exits 1 when anything was lost or left partial.
 *
 *   node --import tsx scripts/kill-sweep.ts [--seed 53] [--kills 100] [--steps 10]
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { ExportRequest } from '../electron/common/export.ts';
import type { RunSettings } from '../electron/common/service.ts';
import { fixturePath } from '../test/helpers/fixtures.ts';
import { maxRelativeDifference, readGguf } from '../test/helpers/gguf.ts';
import { KillableService } from '../test/helpers/killable-service.ts';
import { describePlan, killedMerge, killedRun, planKills, resumed, type KillPlan } from '../test/helpers/kill-trials.ts';
import { sha256 } from '../test/helpers/native.ts';
import { partialRunFiles, tempLeftovers } from '../test/helpers/run-files.ts';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const seed = arg('seed', Number(process.env.HONE_KILL_SEED ?? 53));
const kills = arg('kills', 100);
const steps = arg('steps', 10);

const dir = mkdtempSync(join(tmpdir(), 'hone-kill-sweep-'));
const dataDir = join(dir, 'data');
const settings: RunSettings = {
  model: fixturePath('stories260K.gguf'), data: [fixturePath('chat_elements_limericks.jsonl')],
  steps, ctx: 256, rank: 4, targets: 'all', lr: 1e-2, backend: 'cpu', threads: 1, checkpointEvery: 1, keepCheckpoints: 2,
};
const ks = new KillableService(dataDir);
const failures: string[] = [];
/** phase -> where its kills landed -> count */
const landings = new Map<string, Map<string, number>>();
const tally = (phase: string, landed: string) => {
  const kind = landed.replace(/\s*\(.*\)$/, '').replace(/\d+/g, 'N');
  const m = landings.get(phase) ?? new Map<string, number>();
  m.set(kind, (m.get(kind) ?? 0) + 1);
  landings.set(phase, m);
};

try {
  console.log(`seed ${seed}, ${kills} kills, runs of ${steps} steps, in ${dir}`);
  const { id: refId } = await ks.service.runs.start(settings);
  const ref = await ks.ended(refId);
  if (ref.status !== 'finished') throw new Error(`the run never killed ended ${ref.status}: ${JSON.stringify(ref.error)}`);
  const refRun = JSON.parse(readFileSync(join(dataDir, 'runs', refId, 'run.json'), 'utf8'));
  const refMerged = (await ks.service.exports.create({ format: 'merged', run: refId, out: join(dir, 'merged-whole.gguf') })).out;
  console.log(`never killed: final loss ${ref.lastLoss}`);

  for (const [i, plan] of planKills(seed, kills, steps).entries()) {
    const problems = plan.phase === 'merge' ? await mergeTrial(plan, i, refId, sha256(refMerged)) : await runTrial(plan, ref.lastLoss!, ref.adapter!, refRun);
    console.log(`${String(i + 1).padStart(4)}  ${problems.line}${problems.failed.length ? `\n      FAILED: ${problems.failed.join('; ')}` : ''}`);
    failures.push(...problems.failed.map((f) => `${i + 1} ${describePlan(plan)}: ${f}`));
  }
} finally {
  await ks.dispose();
  rmSync(dir, { recursive: true, force: true });
}

console.log('\nwhere the kills landed, by phase:');
for (const [phase, m] of landings) console.log(`  ${phase.padEnd(10)} ${[...m].map(([k, n]) => `${n} ${k}`).join(', ')}`);
console.log(failures.length ? `\n${failures.length} failure(s):\n  ${failures.join('\n  ')}` : `\nall ${kills} kills: nothing lost, nothing partial`);
process.exitCode = failures.length ? 1 : 0;

/** A run killed as planned, checked, resumed and compared with the run never killed. */
async function runTrial(plan: KillPlan, refLoss: number, refAdapter: string, refRun: Record<string, any>) {
  const k = await killedRun(ks, settings, plan);
  tally(plan.phase, k.landed);
  const folder = join(dataDir, 'runs', k.id);
  const failed = [...partialRunFiles(folder)];
  const listed = (await ks.service.runs.list()).find((r) => r.id === k.id);
  if (!listed) failed.push('not listed');
  const records = await ks.service.runs.events(k.id).catch((e: Error) => (failed.push(`events log: ${e.message}`), []));
  if (records.some((r, n) => r.seq !== n + 1)) failed.push('events log out of sequence');
  const root = join(folder, 'checkpoints');
  const newest = existsSync(root) ? Math.max(-1, ...readdirSync(root).filter((n) => /^\d+$/.test(n)).map(Number)) : -1;
  if ((listed?.resumableStep ?? -1) !== newest) failed.push(`resumable from ${listed?.resumableStep}, newest checkpoint ${newest}`);
  let result = 'not resumed';
  if (k.ended.status === 'interrupted' && k.ended.resumableStep !== null) {
    const done = await resumed(ks, k.id);
    const d = done.adapter ? maxRelativeDifference(readGguf(refAdapter), readGguf(done.adapter)) : Infinity;
    const runJson = JSON.parse(readFileSync(join(folder, 'run.json'), 'utf8'));
    if (done.status !== 'finished') failed.push(`resumed: ${done.status} ${JSON.stringify(done.error)}`);
    if (done.lastLoss !== refLoss || runJson.metrics.finalLoss !== refRun.metrics.finalLoss) failed.push(`final loss ${done.lastLoss} (run.json ${runJson.metrics.finalLoss}), never killed ${refLoss}`);
    if (!(d <= 1e-6)) failed.push(`adapter differs by ${d}`);
    for (const key of ['steps', 'tokens', 'positions']) if (runJson.metrics[key] !== refRun.metrics[key]) failed.push(`run.json metrics.${key} ${runJson.metrics[key]}, never killed ${refRun.metrics[key]}`);
    failed.push(...partialRunFiles(folder), ...tempLeftovers(folder).map((f) => `${f} left after the resume`));
    result = `resumed from ${k.ended.resumableStep}: ${done.status}, final loss ${done.lastLoss}, adapter max diff ${d}`;
  } else if (k.ended.status === 'interrupted') {
    const refused = await ks.service.runs.resume(k.id).then(() => 'resumed without a checkpoint', (e: Error) => (/no checkpoint/.test(e.message) ? null : e.message));
    if (refused) failed.push(refused);
    result = 'no checkpoint yet: resume refused, start again';
  }
  return { line: `${describePlan(plan)}: ${k.landed}; ${k.ended.status}; ${result}`, failed };
}

/** A merge killed as planned: nothing partial beside its output, then the same model once merged again. */
async function mergeTrial(plan: KillPlan, i: number, run: string, whole: string) {
  const request: ExportRequest = i % 2 ? { format: 'merged', run } : { format: 'merged', run, out: join(dir, `merged-${i}`, 'model.gguf') };
  const out = request.out ?? join(dataDir, 'runs', run, 'exports', 'merged');
  const model = request.out ?? join(out, 'model.gguf');
  const before = existsSync(model) ? sha256(model) : null;
  const k = await killedMerge(ks, request, plan);
  tally('merge', k.outcome === 'killed' ? 'killed mid-merge' : 'after the merge ended');
  const failed: string[] = [];
  const beside = readdirSync(dirname(out)).filter((n) => n !== basename(out) && n.includes('.tmp'));
  if (beside.length) failed.push(`left beside the output: ${beside.join(', ')}`);
  if (k.outcome === 'killed' && (existsSync(model) ? sha256(model) : null) !== before) failed.push('the output changed');
  await ks.service.exports.create(request);
  if (sha256(model) !== whole) failed.push('merged again, the model differs from the merge never killed');
  return { line: `${describePlan(plan)}: ${k.outcome} after tensor ${k.firedAt}; merged again: ${failed.length ? 'differs' : 'same model'}`, failed };
}
