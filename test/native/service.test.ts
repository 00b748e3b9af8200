/**
 * The service as every front end uses it, on the real engine host and engine with the
 * stories260K fixture: import, plan, a run streamed to the end, one job at a time, stop and
 * resume across a new service instance, a finished run continued as a new schedule segment, a
 * host killed mid-run, delete, a torn events log.
 */
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { HoneError } from '../../electron/common/errors.ts';
import type { RunEventRecord, RunStatus, RunSummary } from '../../electron/common/runs.ts';
import type { RunSettings, ServiceEvent } from '../../electron/common/service.ts';
import { EngineHost } from '../../electron/services/engine/client.ts';
import { NodeHoneService } from '../../electron/services/hone-service.ts';
import { requireFixture } from '../helpers/fixtures.ts';
import { sha256, tempDir } from '../helpers/native.ts';

const SENTENCES = [
  'Once upon a time, there was a little dog named Max.',
  'Max loved to run in the park with his red ball.',
  'One day, Max saw a big cat under a tree.',
  'The cat was sad because it could not find its home.',
  'Max wanted to help the cat, so he barked very loud.',
  'A girl named Lily heard Max and came to see what was wrong.',
];
const ENDED: readonly RunStatus[] = ['finished', 'stopped', 'paused', 'failed', 'interrupted'];

/**
 * A temp data folder, a text dataset of one record per sentence, and run settings on the
 * fixture. One thread: a step of this tiny model then takes milliseconds even on a busy machine
 * (threads waiting for each other on shared cores take seconds).
 */
function setup(model: string, extra: Partial<RunSettings> = {}) {
  const dir = tempDir('hone-service-');
  const data = join(dir, 'stories.jsonl');
  writeFileSync(data, SENTENCES.map((text) => JSON.stringify({ text })).join('\n') + '\n');
  const settings: RunSettings = { model, data: [data], steps: 16, ctx: 32, rank: 4, targets: 'all', lr: 1e-2, backend: 'cpu', threads: 1, checkpointEvery: 4, ...extra };
  return { dir, dataDir: join(dir, 'hone-data'), data, settings };
}

/** Everything a service sends, and a way to wait for what is to come. */
class Recorder {
  events: ServiceEvent[] = [];
  private waiters: Array<{ pred: (e: ServiceEvent) => boolean; resolve: (e: ServiceEvent) => void }> = [];

  constructor(service: NodeHoneService, onEvent?: (e: ServiceEvent) => void) {
    service.subscribe((e) => {
      this.events.push(e);
      onEvent?.(e);
      this.waiters = this.waiters.filter((w) => (w.pred(e) ? (w.resolve(e), false) : true));
    });
  }

  until(pred: (e: ServiceEvent) => boolean, what: string, ms = 120_000): Promise<ServiceEvent> {
    const seen = this.events.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
      this.waiters.push({ pred, resolve: (e) => (clearTimeout(timer), resolve(e)) });
    });
  }

  /** The run's summary once it ended. */
  async ended(id: string): Promise<RunSummary> {
    const e = await this.until((x) => x.type === 'run-status' && x.run.id === id && ENDED.includes(x.run.status), `run ${id} to end`);
    return (e as Extract<ServiceEvent, { type: 'run-status' }>).run;
  }

  records(id: string): RunEventRecord[] {
    return this.events.flatMap((e) => (e.type === 'run' && e.runId === id ? [e.record] : []));
  }
}

const statusesOf = (records: RunEventRecord[]) => records.flatMap((r) => (r.event.type === 'status' ? [r.event.status] : []));
const stepsOf = (records: RunEventRecord[]) => records.flatMap((r) => (r.event.type === 'step' ? [r.event] : []));

function assertIncreasingFromOne(records: RunEventRecord[]) {
  assert.equal(records[0]?.seq, 1);
  records.forEach((r, i) => assert.equal(r.seq, i + 1, `record ${i} has seq ${r.seq}`));
}

describe('the service on the real engine', () => {
  test('import, plan, a run streamed to the end; one job at a time; the log is what was streamed, a torn line skipped', { timeout: 240_000 }, async (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const { dir, dataDir, data, settings } = setup(model);
    const service = new NodeHoneService({ dataDir, home: dir, env: {} });
    t.after(() => service.dispose());

    const info = await service.info();
    assert.equal(info.version, JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version);
    assert.equal(info.dataDir, dataDir);
    assert.ok(info.engine.trainableArchitectures.includes('llama'));

    const imported = await service.datasets.import([data]);
    assert.deepEqual(imported.files, [data]);
    assert.equal(imported.report.records.total, SENTENCES.length);
    assert.equal(imported.report.records.valid, SENTENCES.length);
    const inspected = await service.datasets.inspect(settings);
    assert.equal(inspected.tokens.examples, SENTENCES.length);
    assert.equal(inspected.tokens.ctx, 32);
    const plan = await service.plan(settings);
    assert.equal(typeof plan.fits, 'boolean');
    assert.ok(plan.pools.some((p) => p.pool === 'CPU'), JSON.stringify(plan.pools.map((p) => p.pool)));

    // a missing input is refused before any run folder exists
    const missing = join(dir, 'missing.jsonl');
    await assert.rejects(service.runs.start({ ...settings, data: [missing] }), (e: HoneError) => e.code === 'io_error' && e.message.includes(missing));
    await assert.rejects(service.runs.start({ ...settings, out: join(dir, 'x') }), (e: HoneError) => e.code === 'invalid_argument' && /settings\.out/.test(e.message));
    assert.deepEqual(await service.runs.list(), []);

    service.subscribe(() => {
      throw new Error('a listener that throws does not break the run');
    });
    const rec = new Recorder(service);
    const started = await service.runs.start(settings);
    assert.equal(started.status, 'starting');
    await assert.rejects(service.runs.start(settings), (e: HoneError) => e.code === 'busy' && e.message.includes(started.id));
    await assert.rejects(service.runs.delete(started.id), (e: HoneError) => e.code === 'busy');
    const done = await rec.ended(started.id);

    assert.equal(done.status, 'finished', JSON.stringify(done.error));
    assert.equal(done.step, 16);
    assert.equal(done.nSteps, 16);
    const folder = join(dataDir, 'runs', started.id);
    assert.equal(done.adapter, join(folder, 'adapter.gguf'));
    assert.ok(existsSync(done.adapter!));
    const streamed = rec.records(started.id);
    assertIncreasingFromOne(streamed);
    assert.deepEqual(statusesOf(streamed), ['starting', 'running', 'finished']);
    const steps = stepsOf(streamed);
    assert.deepEqual(steps.map((s) => s.step), Array.from({ length: 16 }, (_, i) => i + 1));
    assert.ok(steps.every((s) => Number.isFinite(s.loss) && s.loss > 0), 'every step loss is a finite number');
    assert.equal(done.lastLoss, steps.at(-1)!.loss);
    assert.ok(streamed.some((r) => r.event.type === 'checkpoint'));
    const firstStep = streamed.findIndex((r) => r.event.type === 'step');
    assert.equal(streamed[firstStep - 1].event.type, 'status', 'running is recorded before the first step');
    const statusEvents = rec.events.flatMap((e) => (e.type === 'run-status' ? [e.run.status] : []));
    assert.deepEqual(statusEvents, ['starting', 'running', 'finished']);

    assert.deepEqual(await service.runs.events(started.id), streamed, 'events.jsonl holds what was streamed');
    assert.deepEqual(await service.runs.events(started.id, 5), streamed.filter((r) => r.seq > 5));
    const detail = await service.runs.get(started.id);
    assert.equal(detail.folder, folder);
    assert.equal(detail.config.out, folder);
    assert.equal(detail.config.steps, 16);
    assert.deepEqual(detail.config, JSON.parse(readFileSync(join(folder, 'config.json'), 'utf8')));
    assert.equal(detail.tokens?.ctx, 32);
    assert.deepEqual(await service.runs.opReport(started.id), JSON.parse(readFileSync(join(folder, 'ops.json'), 'utf8')));
    assert.deepEqual(await service.runs.list(), [done]);
    await assert.rejects(service.runs.resume(started.id), (e: HoneError) => e.code === 'invalid_argument' && /finished/.test(e.message));

    // a crash mid-write leaves half a line: skipped, and a new service lists the run the same
    appendFileSync(join(folder, 'events.jsonl'), `{"seq":${streamed.length + 1},"at":"2026-`);
    assert.deepEqual(await service.runs.events(started.id), streamed);
    const again = new NodeHoneService({ dataDir, home: dir, env: {} });
    t.after(() => again.dispose());
    assert.deepEqual(await again.runs.list(), [done]);
    assert.deepEqual(await again.runs.events(started.id), streamed);
  });

  test('a stopped run: pausing, then stopped with a checkpoint; a new service lists it the same and resumes it to the end', { timeout: 240_000 }, async (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const { dataDir, settings } = setup(model, { steps: 400, checkpointEvery: 5 });
    const first = new NodeHoneService({ dataDir });
    t.after(() => first.dispose());
    let stopping: Promise<RunSummary> | null = null;
    const rec = new Recorder(first, (e) => {
      if (!stopping && e.type === 'run' && e.record.event.type === 'step' && e.record.event.step >= 3) stopping = first.runs.stop(e.runId);
    });
    const { id } = await first.runs.start(settings);
    const stopped = await rec.ended(id);
    assert.equal((await stopping!)?.status, 'pausing');
    assert.equal(stopped.status, 'stopped');
    assert.ok(stopped.step >= 3 && stopped.step < 400, `stopped at step ${stopped.step}`);
    assert.equal(stopped.resumableStep, stopped.step, 'the stop wrote a checkpoint of the step it finished');
    assert.deepEqual(statusesOf(rec.records(id)), ['starting', 'running', 'pausing', 'stopped']);
    await assert.rejects(first.runs.stop(id), (e: HoneError) => e.code === 'invalid_argument' && /stopped, not running/.test(e.message));
    await first.dispose();

    const second = new NodeHoneService({ dataDir });
    t.after(() => second.dispose());
    assert.deepEqual(await second.runs.list(), [stopped]);
    const rec2 = new Recorder(second);
    assert.equal((await second.runs.resume(id)).status, 'starting');
    const done = await rec2.ended(id);
    assert.equal(done.status, 'finished', JSON.stringify(done.error));
    assert.equal(done.step, 400);
    assert.ok(existsSync(done.adapter!));
    const resumedSteps = stepsOf(rec2.records(id)).map((s) => s.step);
    assert.equal(resumedSteps[0], stopped.step + 1, 'the resumed run goes on after its checkpoint');
    assert.equal(resumedSteps.at(-1), 400);
    const all = await second.runs.events(id);
    assertIncreasingFromOne(all);
    assert.deepEqual(statusesOf(all), ['starting', 'running', 'pausing', 'stopped', 'starting', 'running', 'finished']);
    assert.deepEqual(all.slice(-rec2.records(id).length), rec2.records(id));
  });

  test('the host killed mid-run: interrupted with a host-exited event; a new service shows it resumable and resumes it', { timeout: 240_000 }, async (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const { dataDir, settings } = setup(model, { steps: 200, checkpointEvery: 2 });
    const hosts: EngineHost[] = [];
    const hostFactory = () => {
      const h = EngineHost.start();
      hosts.push(h);
      return h;
    };
    const first = new NodeHoneService({ dataDir, hostFactory });
    t.after(() => first.dispose());
    let killed = false;
    const rec = new Recorder(first, (e) => {
      if (!killed && e.type === 'run' && e.record.event.type === 'checkpoint' && e.record.event.step >= 4) {
        killed = true;
        hosts.at(-1)!.kill('SIGKILL');
      }
    });
    const { id } = await first.runs.start(settings);
    const cut = await rec.ended(id);
    assert.equal(cut.status, 'interrupted');
    assert.equal(cut.error?.code, 'host_exited');
    assert.match((cut.error?.detail as { reason: string }).reason, /SIGKILL/);
    const exited = (await rec.until((e) => e.type === 'host-exited', 'host-exited')) as Extract<ServiceEvent, { type: 'host-exited' }>;
    assert.equal(exited.runId, id);
    assert.equal(exited.error.code, 'host_exited');
    assert.match(exited.reason, /SIGKILL/);
    assert.ok(cut.resumableStep !== null && cut.resumableStep >= 4 && cut.resumableStep < 200, `resumable from ${cut.resumableStep}`);
    // the next call that needs the engine starts a new host
    assert.equal((await first.datasets.inspect(settings)).tokens.examples, SENTENCES.length);
    assert.equal(hosts.length, 2);
    assert.equal(hosts[1].alive, true);
    await first.dispose();

    const second = new NodeHoneService({ dataDir });
    t.after(() => second.dispose());
    const [listed] = await second.runs.list();
    assert.deepEqual([listed.id, listed.status, listed.resumableStep], [id, 'interrupted', cut.resumableStep]);
    const rec2 = new Recorder(second);
    await second.runs.resume(id);
    const done = await rec2.ended(id);
    assert.equal(done.status, 'finished', JSON.stringify(done.error));
    assert.equal(done.step, 200);
    assert.equal(done.error, null);
    assert.equal(stepsOf(rec2.records(id))[0].step, cut.resumableStep! + 1);
    assertIncreasingFromOne(await second.runs.events(id));
  });

  test('continue: a finished run trains a new segment on its adapter and optimizer state; a finished run leaves a checkpoint at its last step', { timeout: 240_000 }, async (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const { dir, dataDir, settings } = setup(model, { steps: 12, checkpointEvery: 5 });
    const service = new NodeHoneService({ dataDir, home: dir, env: {} });
    t.after(() => service.dispose());
    const rec = new Recorder(service);
    const first = await service.runs.start(settings);
    const done = await rec.ended(first.id);
    assert.equal(done.status, 'finished', JSON.stringify(done.error));
    assert.equal(done.resumableStep, 12, 'the last step left a checkpoint (12 is no multiple of 5)');
    await assert.rejects(service.runs.resume(first.id), (e: HoneError) => e.code === 'invalid_argument' && /continue/.test(e.message));
    await assert.rejects(service.runs.continue(first.id, { steps: 0 }), (e: HoneError) => e.code === 'invalid_argument');

    const more = await service.runs.continue(first.id, { steps: 6 });
    assert.equal(more.segments, 2);
    const again = await rec.until((e) => e.type === 'run-status' && e.run.id === first.id && e.run.status === 'finished' && e.run.segments === 2, 'the second segment to finish');
    const end = (again as Extract<ServiceEvent, { type: 'run-status' }>).run;
    assert.equal(end.step, 18);
    assert.equal(end.nSteps, 18);
    const records = await service.runs.events(first.id);
    assertIncreasingFromOne(records);
    const seg0 = stepsOf(records.filter((r) => r.segment === 0)), seg1 = stepsOf(records.filter((r) => r.segment === 1));
    assert.deepEqual(seg0.map((s) => s.step), Array.from({ length: 12 }, (_, i) => i + 1));
    assert.deepEqual(seg1.map((s) => s.step), Array.from({ length: 6 }, (_, i) => i + 13), 'steps count on from the first segment');
    // the adapter carried over: the new segment starts where the first one ended, far below where it began
    assert.ok(seg1[0].loss < seg0[0].loss - 0.5 * (seg0[0].loss - seg0.at(-1)!.loss), `loss ${seg0[0].loss} -> ${seg0.at(-1)!.loss}, continued at ${seg1[0].loss}`);
    const run = JSON.parse(readFileSync(join(dataDir, 'runs', first.id, 'run.json'), 'utf8'));
    assert.equal(run.metrics.steps, 18);
    assert.match(run.resumedFrom, /checkpoints[\\/]12$/);
  });

  test('dispose stops a live run with a checkpoint and ends the engine host', { timeout: 240_000 }, async (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const { dataDir, settings } = setup(model, { steps: 2000, checkpointEvery: 0 });
    const hosts: EngineHost[] = [];
    const service = new NodeHoneService({ dataDir, hostFactory: () => (hosts.push(EngineHost.start()), hosts.at(-1)!) });
    t.after(() => service.dispose());
    const rec = new Recorder(service);
    const { id } = await service.runs.start(settings);
    await rec.until((e) => e.type === 'run' && e.record.event.type === 'step', 'a first step');
    await service.dispose();
    await service.dispose(); // safe twice
    assert.equal(hosts.length, 1);
    assert.equal(hosts[0].alive, false);
    assert.equal(rec.events.some((e) => e.type === 'host-exited'), false, 'ending the host on purpose is not a crash');
    const [run] = await new NodeHoneService({ dataDir }).runs.list();
    assert.equal(run.id, id);
    assert.equal(run.status, 'stopped');
    assert.ok(run.step < 2000);
    assert.equal(run.resumableStep, run.step, 'the stop wrote a checkpoint (none was due before)');
    await assert.rejects(service.runs.start(settings), (e: HoneError) => e.code === 'disposed');
  });

  test('delete refuses a live run, then removes the run folder only: the model and the data keep their bytes', { timeout: 240_000 }, async (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const { dataDir, data, settings } = setup(model, { steps: 2000, checkpointEvery: 5 });
    const before = { model: sha256(model), data: sha256(data) };
    const service = new NodeHoneService({ dataDir });
    t.after(() => service.dispose());
    let pausing: Promise<RunSummary> | null = null;
    let refused: Promise<unknown> | null = null;
    const rec = new Recorder(service, (e) => {
      if (pausing || e.type !== 'run' || e.record.event.type !== 'step') return;
      refused = service.runs.delete(e.runId).then(
        () => assert.fail('a running run was deleted'),
        (err: HoneError) => assert.equal(err.code, 'busy'),
      );
      pausing = service.runs.pause(e.runId);
    });
    const { id } = await service.runs.start(settings);
    const paused = await rec.ended(id);
    await refused;
    assert.equal((await pausing!)?.status, 'pausing');
    assert.equal(paused.status, 'paused');
    assert.ok(paused.resumableStep !== null);
    const folder = join(dataDir, 'runs', id);
    assert.ok(existsSync(join(folder, 'checkpoints')));

    await assert.rejects(service.runs.delete(`..`), (e: HoneError) => e.code === 'invalid_argument');
    await assert.rejects(service.runs.delete(`${id}/..`), (e: HoneError) => e.code === 'invalid_argument');
    await assert.rejects(service.runs.delete('20000101-000000-0000'), (e: HoneError) => e.code === 'not_found');
    await service.runs.delete(id);
    assert.equal(existsSync(folder), false);
    assert.deepEqual(readdirSync(join(dataDir, 'runs')), []);
    assert.deepEqual({ model: sha256(model), data: sha256(data) }, before);
    assert.deepEqual(await service.runs.list(), []);
    await assert.rejects(service.runs.get(id), (e: HoneError) => e.code === 'not_found');
  });
});
