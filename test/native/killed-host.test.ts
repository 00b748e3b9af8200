/**
 * The engine host killed (SIGKILL) at seeded random moments: while loading, in a step, while a
 * checkpoint is written, while the finished run's adapter and run.json are written, in a merge.
 * After each, every run is listed (interrupted, resumable from its newest whole checkpoint), its
 * events log parses, no file at a final name is partial, and a resumed run ends with the
 * adapter, the final loss and the run.json of a run never killed; a killed merge leaves nothing
 * at its name or beside it. HONE_KILL_SEED picks other moments; scripts/kill-sweep.ts runs more.
 */
import assert from 'node:assert/strict';
import { cpSync, existsSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import type { HoneError } from '../../electron/common/errors.ts';
import type { RunSettings } from '../../electron/common/service.ts';
import { requireFixture, type SkippableTest } from '../helpers/fixtures.ts';
import { maxRelativeDifference, readGguf } from '../helpers/gguf.ts';
import { KillableService } from '../helpers/killable-service.ts';
import { describePlan, killedMerge, killedRun, planKills, resumed, type KilledRun } from '../helpers/kill-trials.ts';
import { sha256, tempDir } from '../helpers/native.ts';
import { partialRunFiles, tempLeftovers } from '../helpers/run-files.ts';

const SEED = Number(process.env.HONE_KILL_SEED ?? 53);
const STEPS = 10;
/** Three kills in each phase: twelve runs, three merges. */
const PLANS = planKills(SEED, 15, STEPS);

describe('the engine host killed at any moment', () => {
  const dir = tempDir('hone-killed-host-');
  const dataDir = join(dir, 'data');
  let reference: { id: string; lastLoss: number; adapter: string; runJson: Record<string, any> } | null = null;

  function settingsOf(t: SkippableTest): RunSettings | null {
    const model = requireFixture(t, 'stories260K.gguf');
    const data = requireFixture(t, 'chat_elements_limericks.jsonl');
    if (!model || !data) return null;
    // one thread: a step takes tens of milliseconds even on a busy machine; a checkpoint after every step
    return { model, data: [data], steps: STEPS, ctx: 256, rank: 4, targets: 'all', lr: 1e-2, backend: 'cpu', threads: 1, checkpointEvery: 1, keepCheckpoints: 2 };
  }

  /** A run never killed: what every resumed run must end as. */
  async function uninterrupted(ks: KillableService, settings: RunSettings) {
    if (reference) return reference;
    const { id } = await ks.service.runs.start(settings);
    const done = await ks.ended(id);
    assert.equal(done.status, 'finished', JSON.stringify(done.error));
    const folder = join(dataDir, 'runs', id);
    reference = { id, lastLoss: done.lastLoss!, adapter: done.adapter!, runJson: JSON.parse(readFileSync(join(folder, 'run.json'), 'utf8')) };
    return reference;
  }

  test('every killed run is listed, resumable from its newest checkpoint, and resumes to the run never killed', { timeout: 180_000 }, async (t) => {
    const settings = settingsOf(t);
    if (!settings) return;
    t.diagnostic(`seed ${SEED} (HONE_KILL_SEED changes it)`);
    const ks = new KillableService(dataDir);
    t.after(() => ks.dispose());
    const ref = await uninterrupted(ks, settings);

    const killed: KilledRun[] = [];
    for (const plan of PLANS.filter((p) => p.phase !== 'merge')) {
      const k = await killedRun(ks, settings, plan);
      t.diagnostic(`${describePlan(plan)}: ${k.landed}; resumable from ${k.ended.resumableStep ?? 'nothing'}`);
      killed.push(k);
    }
    await ks.dispose();

    // a new service, as after a restart of the app
    const again = new KillableService(dataDir);
    t.after(() => again.dispose());
    const listed = new Map((await again.service.runs.list()).map((r) => [r.id, r]));
    assert.deepEqual([...listed.keys()].sort(), [ref.id, ...killed.map((k) => k.id)].sort(), 'every run is listed');
    for (const k of killed) {
      const what = `${describePlan(k.plan)} (${k.landed})`;
      const run = listed.get(k.id)!;
      const folder = join(dataDir, 'runs', k.id);
      assert.deepEqual(partialRunFiles(folder), [], `${what}: no partial file at a final name`);
      const records = await again.service.runs.events(k.id);
      records.forEach((r, i) => assert.equal(r.seq, i + 1, `${what}: the events log numbers its records from 1`));
      const checkpoints = join(folder, 'checkpoints');
      const newest = existsSync(checkpoints) ? readdirSync(checkpoints).filter((n) => /^\d+$/.test(n)).map(Number) : [];
      assert.equal(run.resumableStep, newest.length ? Math.max(...newest) : null, `${what}: resumable from its newest checkpoint`);
      if (run.status === 'finished') continue; // the kill came after the last write: nothing was lost
      assert.equal(run.status, 'interrupted', what);
      assert.equal(run.error?.code, 'host_exited', what);
      assert.deepEqual(records.at(-1)?.event, { type: 'status', status: 'interrupted', error: run.error }, `${what}: the log ends with the interruption`);
      if (k.plan.phase === 'step') assert.equal(run.resumableStep, k.plan.at, `${what}: the checkpoint reported before the kill is kept`);
      if (k.plan.phase === 'save') assert.equal(run.resumableStep, STEPS, `${what}: the last step's checkpoint is kept`);

      if (run.resumableStep === null) {
        await assert.rejects(again.service.runs.resume(k.id), (e: HoneError) => e.code === 'invalid_argument' && /no checkpoint to resume from/.test(e.message), what);
        continue;
      }
      const done = await resumed(again, k.id);
      assert.equal(done.status, 'finished', `${what}: ${JSON.stringify(done.error)}`);
      assert.equal(done.step, STEPS, what);
      assert.equal(done.lastLoss, ref.lastLoss, `${what}: the final loss of the run never killed`);
      const d = maxRelativeDifference(readGguf(ref.adapter), readGguf(done.adapter!));
      assert.ok(d <= 1e-6, `${what}: the adapter differs from the run never killed by ${d}`);
      const runJson = JSON.parse(readFileSync(join(folder, 'run.json'), 'utf8'));
      for (const k of ['finalLoss', 'steps', 'tokens', 'positions'] as const) {
        assert.equal(runJson.metrics[k], ref.runJson.metrics[k], `${what}: run.json metrics.${k}`);
      }
      assert.deepEqual(partialRunFiles(folder), [], `${what}: resumed, every file is whole`);
      assert.deepEqual(tempLeftovers(folder), [], `${what}: resumed, no temporary file is left`);
    }
  });

  test('the checks can fail: a checkpoint cut short and a status.json half written are named', { timeout: 60_000 }, async (t) => {
    const settings = settingsOf(t);
    if (!settings) return;
    const ks = new KillableService(dataDir);
    t.after(() => ks.dispose());
    const copy = join(dir, 'cut-short');
    cpSync(join(dataDir, 'runs', (await uninterrupted(ks, settings)).id), copy, { recursive: true });
    assert.deepEqual(partialRunFiles(copy), []);
    const adapter = join(copy, 'checkpoints', String(STEPS), 'adapter.gguf');
    truncateSync(adapter, statSync(adapter).size - 100);
    writeFileSync(join(copy, 'status.json'), readFileSync(join(copy, 'status.json'), 'utf8').slice(0, 40));
    writeFileSync(join(copy, 'adapter.gguf.tmp'), '');
    const problems = partialRunFiles(copy);
    assert.equal(problems.length, 2, problems.join('\n'));
    assert.match(problems[0], /^status\.json: /);
    assert.match(problems[1], new RegExp(`^checkpoints.${STEPS}.adapter\\.gguf: tensor .* runs past the end of the file`));
    assert.deepEqual(tempLeftovers(copy), ['adapter.gguf.tmp']);
  });

  test('a merge killed mid-way leaves nothing at its name or beside it; the next export writes the same model', { timeout: 120_000 }, async (t) => {
    const settings = settingsOf(t);
    if (!settings) return;
    const ks = new KillableService(dataDir);
    t.after(() => ks.dispose());
    const ref = await uninterrupted(ks, settings);
    const whole = (await ks.service.exports.create({ format: 'merged', run: ref.id, out: join(dir, 'merged-whole', 'model.gguf') })).out;

    for (const [i, plan] of PLANS.filter((p) => p.phase === 'merge').entries()) {
      // a single .gguf file, and the folder form under the run's exports/
      const request = i % 2 === 0 ? { format: 'merged' as const, run: ref.id, out: join(dir, `merged-${i}`, 'model.gguf') } : { format: 'merged' as const, run: ref.id };
      const out = request.out ?? join(dataDir, 'runs', ref.id, 'exports', 'merged');
      const model = request.out ?? join(out, 'model.gguf');
      const before = existsSync(model) ? sha256(model) : null;
      const k = await killedMerge(ks, request, plan);
      const what = `${describePlan(plan)}: ${k.outcome} after tensor ${k.firedAt}, into ${request.out ? 'a file' : 'a folder'}`;
      t.diagnostic(what);
      const beside = readdirSync(dirname(out)).filter((n) => n !== basename(out));
      assert.deepEqual(beside.filter((n) => n.includes('.tmp')), [], `${what}: nothing partial beside the output`);
      // killed, the output's name holds what it held before: nothing, or the earlier whole export
      if (k.outcome === 'killed') assert.equal(existsSync(model) ? sha256(model) : null, before, `${what}: the output is as it was`);

      await ks.service.exports.create(request);
      assert.equal(sha256(model), sha256(whole), `${what}: the export after the kill is the merge never killed`);
      assert.deepEqual(tempLeftovers(dirname(out)), [], `${what}: no temporary file is left`);
    }
  });
});
