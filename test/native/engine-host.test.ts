/**
 * Training from Node: the addon directly (events in order, falling loss, cancel within one
 * step, dispose, errors as {code, message}) and through the engine host process (a host killed
 * with SIGKILL mid-run is reported with its last checkpoint; a new host resumes from it).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { EngineEvent, TrainConfig } from '../../electron/common/engine-api.ts';
import { loadAddon, type NativeEvent } from '../../electron/engine-host/binding.ts';
import { EngineHost } from '../../electron/services/engine/client.ts';
import { requireFixture } from '../helpers/fixtures.ts';
import { tempDir } from '../helpers/native.ts';

const TEXT =
  'Once upon a time, there was a little dog named Max. Max loved to run in the park with his red ball. ' +
  'One day, Max saw a big cat under a tree. The cat was sad because it could not find its home.';

describe('training from Node through the addon', () => {
  test('stories260K: step events arrive in order with falling loss, and settle before the promise', async (t) => {
    const path = requireFixture(t, 'stories260K.gguf');
    if (!path) return;
    const hone = loadAddon();
    const model = await hone.Model.load({ path, backend: 'cpu', threads: 2 });
    const renderer = model.createRenderer();
    const [r] = await renderer.renderBatch([JSON.stringify({ text: TEXT })]);
    assert.ok(!('error' in r));
    const adapter = hone.Adapter.create(model, { rank: 4, alpha: 8, targets: 'all' });
    const trainer = await hone.Trainer.create(model, adapter, { nCtx: 64, nSteps: 20, lr: 1e-2, maxGradNorm: 0 });
    const events: NativeEvent[] = [];
    const res = await trainer.train({ train: [{ tokens: r.tokens, mask: r.mask }] }, (e) => events.push(e));
    assert.deepEqual(res, { stopped: false, step: 20 });
    const steps = events.filter((e) => e.type === 'step') as Extract<NativeEvent, { type: 'step' }>[];
    assert.deepEqual(steps.map((e) => e.step), Array.from({ length: 20 }, (_, i) => i + 1));
    const first = steps[0].loss, last3 = steps.slice(-3).reduce((a, e) => a + e.loss, 0) / 3;
    assert.ok(last3 < 0.8 * first, `loss should fall: first ${first}, last three ${steps.slice(-3).map((e) => e.loss)}`);
    trainer.dispose();
    trainer.dispose(); // safe twice
    adapter.dispose();
    renderer.dispose();
    model.dispose();
    model.dispose();
    assert.throws(() => model.info(), (e: { code: string }) => e.code === 'disposed');
  });

  test('cancel stops within one step; engine errors reject with {code, message}', async (t) => {
    const path = requireFixture(t, 'stories260K.gguf');
    if (!path) return;
    const hone = loadAddon();
    await assert.rejects(hone.Model.load({ path: join(tempDir(), 'missing.gguf') }), (e: { code: string; message: string }) =>
      e.code === 'io_error' && /missing\.gguf/.test(e.message));
    await assert.rejects(hone.Model.load({ path, backend: 'cpu', gpuPrecision: 'fp8' }), (e: { code: string; message: string }) =>
      e.code === 'invalid_argument' && /unknown GPU precision 'fp8'/.test(e.message));
    const model = await hone.Model.load({ path, backend: 'cpu', threads: 2 });
    assert.equal(model.info().gpuPrecision, '', 'the CPU has no GPU precision');
    const tokens = model.tokenize(TEXT, true);
    const adapter = hone.Adapter.create(model, { rank: 4, targets: 'attn_q,attn_v' });
    assert.throws(() => hone.Adapter.create(model, { targets: 'attn_q,bogus' }), (e: { code: string; message: string }) =>
      e.code === 'invalid_argument' && /bogus/.test(e.message));
    const trainer = await hone.Trainer.create(model, adapter, { nCtx: 32, nBatch: 4, nUbatch: 1, nSteps: 200, lr: 1e-3 });
    let cancelledAt = -1;
    let after = 0;
    const res = await trainer.train({ train: [{ tokens }] }, (e) => {
      if (e.type !== 'step') return;
      if (cancelledAt < 0) { cancelledAt = e.step; trainer.cancel(); } else after++;
    });
    assert.equal(res.stopped, true);
    assert.ok(after <= 1, `${after} steps finished after cancel`);
    assert.ok(res.step <= cancelledAt + 1);
    // Bad arguments are checked before anything reaches the engine.
    assert.throws(() => trainer.train({ train: [{ tokens: new Int32Array([1, 2]), mask: new Uint8Array(3) }] }),
      (e: { code: string; message: string }) => e.code === 'invalid_argument' && /train\[0\]\.mask/.test(e.message));
    trainer.dispose();
    adapter.dispose();
    model.dispose();
  });
});

describe('the engine host process', () => {
  test('a host killed with SIGKILL mid-run is reported with its last checkpoint, and a new host resumes from it', async (t) => {
    const path = requireFixture(t, 'stories260K.gguf');
    if (!path) return;
    const dir = tempDir();
    const data = join(dir, 'text.jsonl');
    writeFileSync(data, TEXT.split('. ').map((s) => JSON.stringify({ text: s + '.' })).join('\n') + '\n');
    const host = EngineHost.start();
    const { defaults } = await host.request('capabilities', {});
    const config: TrainConfig = { ...defaults, model: path, data: [data], out: join(dir, 'run'), steps: 12, ctx: 32, rank: 4, targets: 'all',
      lr: 1e-2, backend: 'cpu', threads: 2, checkpointEvery: 2, keepCheckpoints: 0 };

    const seen: EngineEvent[] = [];
    const run = host.request('train', { config, resume: null }, (e) => {
      seen.push(e);
      if (e.type === 'checkpoint' && e.step >= 4) host.kill('SIGKILL');
    });
    await assert.rejects(run, (e: { code: string; detail: { reason: string; lastCheckpoint: string } }) =>
      e.code === 'host_exited' && /SIGKILL/.test(e.detail.reason) && existsSync(join(e.detail.lastCheckpoint, 'state.json')));
    const exited = seen.find((e) => e.type === 'host-exited') as Extract<EngineEvent, { type: 'host-exited' }>;
    assert.ok(exited && exited.lastCheckpoint, 'the host-exited event carries the last checkpoint');
    assert.equal(host.alive, false);
    await assert.rejects(host.request('stop', {}), (e: { code: string }) => e.code === 'host_exited');

    const host2 = EngineHost.start();
    try {
      const steps: number[] = [];
      const res = await host2.request('train', { config, resume: exited.lastCheckpoint }, (e) => { if (e.type === 'step') steps.push(e.step); });
      assert.equal(res.stopped, false);
      assert.equal(res.step, 12);
      assert.ok(steps[0] > 1, `resumed runs continue after the checkpoint (first step ${steps[0]})`);
      assert.ok(existsSync(res.adapter!));
      const runJson = JSON.parse(readFileSync(res.runJson!, 'utf8'));
      assert.equal(runJson.metrics.steps, 12);
      assert.equal(runJson.resumedFrom, exited.lastCheckpoint);
    } finally {
      host2.kill();
    }
  });
});
