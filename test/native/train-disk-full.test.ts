/**
 * A full disk loses nothing: a checkpoint that cannot be written is reported, its partial
 * folder removed, and training goes on with its state in memory (hone-train and the service);
 * what cannot be written at the end names the checkpoint the run resumes from; a stop whose
 * checkpoint fails holds the run until a retry finds room. On a tmpfs of a few hundred KiB.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { HoneError } from '../../electron/common/errors.ts';
import type { RunSummary } from '../../electron/common/runs.ts';
import type { ServiceEvent } from '../../electron/common/service.ts';
import { NodeHoneService } from '../../electron/services/hone-service.ts';
import { requireFixture } from '../helpers/fixtures.ts';
import { honeTrain, tempDir } from '../helpers/native.ts';
import { mountSmallDisk } from '../helpers/small-disk.ts';

const TEXT = 'Once upon a time there was a little dog named Max who loved to run in the park with his red ball.\n'.repeat(20);
// stories260K, rank 4 on every module: a checkpoint takes ~290 KiB, the adapter ~95 KiB
const TRAIN = ['--ctx', '32', '--rank', '4', '--targets', 'all', '--threads', '1', '--lr', '1e-2'];

const tmpLeft = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.tmp')) : []);

describe('a disk that fills up mid-run', () => {
  test('hone-train: checkpoints that fail are reported and retried, training finishes, the end names the checkpoint to resume', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const disk = mountSmallDisk(t, 420 * 1024);
    if (!disk) return;
    t.after(() => disk.unmount());
    const dir = tempDir();
    const data = join(dir, 't.txt');
    writeFileSync(data, TEXT);
    const out = join(disk.path, 'run');
    const r = honeTrain(['--model', model, '--data', data, '--out', out, '--steps', '8', '--checkpoint-every', '2', '--keep-checkpoints', '0', ...TRAIN, '--json']);
    const steps = r.events.filter((e) => e.type === 'step').map((e) => e.step);
    assert.deepEqual(steps, [1, 2, 3, 4, 5, 6, 7, 8], 'every step trained');
    const good = r.events.filter((e) => e.type === 'checkpoint');
    const failed = r.events.filter((e) => e.type === 'checkpoint_failed');
    assert.deepEqual(good.map((e) => e.step), [2]);
    assert.deepEqual(failed.map((e) => e.step), [4, 6, 8], 'each later checkpoint tried again, and said so');
    for (const f of failed) {
      assert.equal(f.code, 'io_error');
      assert.match(f.message, /checkpoints\/\d+\.tmp\/.*(disk full|cannot write)/);
      assert.equal(f.last_good, good[0].path);
    }
    assert.deepEqual(tmpLeft(join(out, 'checkpoints')), [], 'no partial checkpoint left behind');
    // the end cannot be written whole: the error says where the run resumes from
    assert.equal(r.code, 1);
    const err = r.events.find((e) => e.type === 'error')!;
    assert.equal(err.code, 'io_error');
    assert.ok(err.message.endsWith(`the run stays resumable from its last good checkpoint: hone-train --resume ${good[0].path}`), err.message);
    // ... and it does
    const resumed = honeTrain(['--resume', good[0].path, '--out', join(dir, 'resumed'), '--json']);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual(resumed.events.filter((e) => e.type === 'step').map((e) => e.step), [3, 4, 5, 6, 7, 8]);
  });

  test('the service: a stop whose checkpoint cannot be written holds the run; a retry after room was made writes it', { timeout: 240_000 }, async (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const disk = mountSmallDisk(t, 2 * 1024 * 1024);
    if (!disk) return;
    t.after(() => disk.unmount());
    const dir = tempDir();
    const data = join(dir, 'stories.jsonl');
    writeFileSync(data, TEXT.trim().split('\n').map((text) => JSON.stringify({ text })).join('\n') + '\n');
    const service = new NodeHoneService({ dataDir: join(disk.path, 'hone'), home: dir, env: {} });
    t.after(() => service.dispose());
    const events: ServiceEvent[] = [];
    const waiters: Array<[(e: ServiceEvent) => boolean, (e: ServiceEvent) => void]> = [];
    service.subscribe((e) => {
      events.push(e);
      for (const w of waiters.splice(0)) (w[0](e) ? w[1](e) : waiters.push(w));
    });
    const until = (pred: (e: ServiceEvent) => boolean) => new Promise<ServiceEvent>((resolve) => {
      const seen = events.find(pred);
      if (seen) resolve(seen);
      else waiters.push([pred, resolve]);
    });
    const run = await service.runs.start({ model, data: [data], steps: 400, ctx: 32, rank: 4, targets: 'all', lr: 1e-2, backend: 'cpu', threads: 1, checkpointEvery: 1000 });
    await until((e) => e.type === 'run' && e.record.event.type === 'step' && e.record.event.step >= 3);
    const filler = disk.fill(64 * 1024); // room for the log, not for a checkpoint
    await service.runs.stop(run.id);
    const held = await until((e) => e.type === 'run' && e.record.event.type === 'checkpoint-failed' && e.record.event.held);
    const f = (held as Extract<ServiceEvent, { type: 'run' }>).record.event as { step: number; message: string; lastGood: string | null };
    assert.equal(f.lastGood, null);
    const pausing = (await service.runs.list())[0];
    assert.equal(pausing.status, 'pausing', 'held, not ended: its state is still in memory');
    assert.match(pausing.error!.message, new RegExp(`checkpoint at step ${f.step} not written`));

    // still no room: the retry fails and the run stays held
    const n = events.length;
    await service.runs.resume(run.id);
    await until((e) => events.indexOf(e) >= n && e.type === 'run' && e.record.event.type === 'checkpoint-failed' && e.record.event.held);
    assert.deepEqual(tmpLeft(join(disk.path, 'hone', 'runs', run.id, 'checkpoints')), []);

    rmSync(filler); // room again
    await service.runs.resume(run.id);
    const ended = await until((e) => e.type === 'run-status' && e.run.id === run.id && e.run.status === 'stopped');
    const summary: RunSummary = (ended as Extract<ServiceEvent, { type: 'run-status' }>).run;
    assert.equal(summary.resumableStep, f.step, 'the checkpoint of the step the stop finished');
    assert.equal(summary.error, null, 'the written checkpoint clears the failure');
    await assert.rejects(service.runs.resume('not..valid'), (e: HoneError) => e.code === 'invalid_argument');
  });
});
