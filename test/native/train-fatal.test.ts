/**
 * A run that ggml ends mid-way (on a GPU: a CUDA allocation failing inside a kernel launch,
 * which nothing can catch) leaves a clear last word — what failed, on which device, the memory
 * plan of the run — and stays resumable from its newest checkpoint. Machines without a GPU test
 * the same path with HONE_TEST_FAKE_GPU_OOM_AT_STEP, which ends step N with the CUDA error lines
 * and ggml's abort; the GPU run itself is native/scripts/device-cuda.sh's `oom` stage.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { RunSettings, ServiceEvent } from '../../electron/common/service.ts';
import { EngineHost } from '../../electron/services/engine/client.ts';
import { NodeHoneService } from '../../electron/services/hone-service.ts';
import { requireFixture } from '../helpers/fixtures.ts';
import { bin, tempDir } from '../helpers/native.ts';

const TEXT = 'Once upon a time, there was a little dog named Max. Max loved to run in the park with his red ball. One day, Max saw a big cat under a tree.';

test('hone-train: the abort names the device, the error and the plan; the run resumes from its checkpoint', (t) => {
  const model = requireFixture(t, 'stories260K.gguf');
  if (!model) return;
  const dir = tempDir();
  const data = join(dir, 'text.txt');
  writeFileSync(data, TEXT);
  const out = join(dir, 'run');
  const args = ['--model', model, '--data', data, '--out', out, '--steps', '10', '--ctx', '16', '--rank', '4', '--backend', 'cpu', '--threads', '1', '--checkpoint-every', '2', '--json'];
  const r = spawnSync(bin('hone-train'), args, { encoding: 'utf8', env: { ...process.env, HONE_TEST_FAKE_GPU_OOM_AT_STEP: '5' } });
  assert.equal(r.signal, 'SIGABRT', `ended by ggml's abort (status ${r.status}): ${r.stderr}`);
  const fatal = r.stderr.split('\n').find((l) => l.startsWith('hone: fatal: '));
  assert.ok(fatal, r.stderr);
  assert.match(fatal, /CUDA0 ran out of memory during training/);
  assert.match(fatal, /CUDA error: out of memory/);
  assert.match(fatal, /the run planned CPU [\d.]+ MiB \(.*compute_buffer.*\) of [\d.]+ MiB free for a context of 16 tokens, micro-batch 1, rank 4/);
  assert.match(fatal, /Resume the run from its newest checkpoint once other programs use less of CUDA0's memory/);
  const steps = r.stdout.split('\n').filter((l) => l.includes('"type":"step"'));
  assert.equal(steps.length, 4, 'steps 1-4 trained, step 5 died');
  assert.deepEqual(readdirSync(join(out, 'checkpoints')).sort(), ['2', '4']);
  assert.ok(!existsSync(join(out, 'adapter.gguf')));

  const resumed = spawnSync(bin('hone-train'), ['--resume', join(out, 'checkpoints', '4'), '--json'], { encoding: 'utf8' });
  assert.equal(resumed.status, 0, resumed.stderr);
  const after = resumed.stdout.split('\n').filter((l) => l.includes('"type":"step"')).map((l) => JSON.parse(l).step);
  assert.deepEqual(after, [5, 6, 7, 8, 9, 10]);
  assert.ok(existsSync(join(out, 'adapter.gguf')));
});

test('the app: the run shows interrupted with the engine\'s report, resumable, and resumes', { timeout: 240_000 }, async (t) => {
  const model = requireFixture(t, 'stories260K.gguf');
  if (!model) return;
  const dir = tempDir('hone-fatal-');
  const data = join(dir, 'stories.jsonl');
  writeFileSync(data, TEXT.split('. ').map((text) => JSON.stringify({ text })).join('\n') + '\n');
  // the first host dies at step 7; the next one (the resume) is a normal host
  let hosts = 0;
  const service = new NodeHoneService({
    dataDir: join(dir, 'data'),
    hostFactory: () => EngineHost.start(hosts++ === 0 ? { ...process.env, HONE_TEST_FAKE_GPU_OOM_AT_STEP: '7' } : process.env),
  });
  t.after(() => service.dispose());
  const events: ServiceEvent[] = [];
  const ended = new Promise<void>((resolve) =>
    service.subscribe((e) => {
      events.push(e);
      if (e.type === 'run-status' && ['interrupted', 'finished', 'failed'].includes(e.run.status)) resolve();
    }),
  );
  const settings: RunSettings = { model, data: [data], steps: 12, ctx: 16, rank: 4, targets: 'all', lr: 1e-2, backend: 'cpu', threads: 1, checkpointEvery: 3 };
  const { id } = await service.runs.start(settings);
  await ended;
  const cut = (await service.runs.list()).find((r) => r.id === id)!;
  assert.equal(cut.status, 'interrupted');
  assert.equal(cut.resumableStep, 6);
  assert.equal(cut.error?.code, 'host_exited');
  assert.match(cut.error!.message, /CUDA0 ran out of memory during training/);
  const fatal = (cut.error!.detail as { fatal?: { code: string; detail: { device: string; plan: string } } }).fatal;
  assert.equal(fatal?.code, 'out_of_memory');
  assert.equal(fatal?.detail.device, 'CUDA0');
  assert.match(fatal!.detail.plan, /^CPU [\d.]+ MiB/);
  const exited = events.find((e) => e.type === 'host-exited') as Extract<ServiceEvent, { type: 'host-exited' }>;
  assert.match(exited.reason, /SIGABRT: CUDA0 ran out of memory/);

  const finished = new Promise<void>((resolve) => service.subscribe((e) => e.type === 'run-status' && e.run.id === id && e.run.status === 'finished' && resolve()));
  await service.runs.resume(id);
  await finished;
  const done = await service.runs.get(id);
  assert.equal(done.step, 12);
  assert.equal(done.error, null);
});
