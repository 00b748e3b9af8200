/**
 * What the engine says it can do, and the plan a person sees before training: the engine
 * host's capabilities (backends, trainable architectures, every option's default, the same
 * defaults hone-train uses) and plan (memory per pool and op placement of the graph a setting
 * would build, nothing trained).
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { TrainConfig } from '../../electron/common/engine-api.ts';
import { OPTION_KINDS } from '../../electron/common/settings-schema.ts';
import { EngineHost } from '../../electron/services/engine/client.ts';
import { requireFixture } from '../helpers/fixtures.ts';
import { honeTrain, repoRoot, run, tempDir } from '../helpers/native.ts';
import { validate } from '../helpers/ops-schema.ts';
import { runSchema } from '../helpers/run-schema.ts';

const TEXT = 'Once upon a time, there was a little dog named Max. He loved to run in the park with his red ball. ' +
  'One day Max met a cat under a big tree, and they played until the sun went down.';

describe('engine capabilities and the training plan', () => {
  const host = EngineHost.start();
  after(() => host.kill());

  test('capabilities: the CPU backend with its memory, the trainable architectures, a default for every option', async () => {
    const caps = await host.request('capabilities', {});
    const cpu = caps.backends.at(-1)!;
    assert.equal(cpu.name, 'CPU');
    assert.equal(cpu.kind, 'cpu');
    assert.ok(cpu.freeBytes > 0 && cpu.freeBytes <= cpu.totalBytes, JSON.stringify(cpu));
    for (const arch of ['llama', 'qwen2', 'qwen3', 'gemma3', 'gemma4', 'olmo2']) assert.ok(caps.trainableArchitectures.includes(arch), arch);
    assert.ok(!caps.trainableArchitectures.includes('gemma3n'), 'Gemma 3n\'s graph is not written');
    for (const k of Object.keys(OPTION_KINDS)) assert.ok(k in caps.defaults, `no default for ${k}`);
    assert.equal(caps.defaults.ctx, 512);
    assert.equal(caps.defaults.lr, 1e-4);
  });

  test('hone and hone-train resolve the same defaults and write run.json in one schema', async (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const dir = tempDir();
    const data = join(dir, 'story.txt');
    writeFileSync(data, TEXT);
    const common = ['--model', model, '--data', data, '--steps', '2', '--ctx', '32'];
    const engine = honeTrain([...common, '--out', join(dir, 'engine')]);
    assert.equal(engine.code, 0, engine.stderr);
    const node = run(process.execPath, ['--import', 'tsx', join(repoRoot, 'bin', 'hone.mjs'), 'train', ...common, '--out', join(dir, 'node'), '--json']);
    assert.equal(node.code, 0, node.stderr);
    const e = JSON.parse(readFileSync(join(dir, 'engine', 'run.json'), 'utf8'));
    const n = JSON.parse(readFileSync(join(dir, 'node', 'run.json'), 'utf8'));
    assert.deepEqual(validate(e, runSchema), [], 'hone-train run.json');
    assert.deepEqual(validate(n, runSchema), [], 'hone run.json');
    assert.deepEqual([e.schema, e.writer, n.schema, n.writer], ['hone.run/1', 'hone-train', 'hone.run/1', 'hone']);
    // every option both record has the same value (paths aside)
    for (const k of Object.keys(e.config)) {
      if (k in n.config && !['out'].includes(k)) assert.deepEqual(n.config[k], e.config[k], `${k}: hone ${JSON.stringify(n.config[k])}, hone-train ${JSON.stringify(e.config[k])}`);
    }
    assert.equal(e.config.alpha, 2 * e.config.rank);
    // both run folders hold the options the run trained with as config.json
    // (config.json as asked, run.json as it ran: an automatic micro-batch is the trainer's choice there)
    const asked = JSON.parse(readFileSync(join(dir, 'engine', 'config.json'), 'utf8'));
    assert.equal(asked.ubatch, 0);
    assert.equal(e.config.ubatch, e.memory.ubatch);
    assert.deepEqual({ ...asked, ubatch: e.config.ubatch }, e.config);
    assert.equal(JSON.parse(readFileSync(join(dir, 'node', 'config.json'), 'utf8')).rank, n.config.rank);
    assert.deepEqual(
      [n.model.arch, n.model.nParams, n.adapter.nParams, n.metrics.steps, n.data.sequences],
      [e.model.arch, e.model.nParams, e.adapter.nParams, e.metrics.steps, e.data.sequences],
    );
  });

  test('plan: stories260K on the CPU fits, every op on the CPU, the model kept for the next plan', async (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const { defaults } = await host.request('capabilities', {});
    const config: TrainConfig = { ...defaults, model, data: ['unused.txt'], ctx: 64, backend: 'cpu', threads: 2 };
    const first = await host.request('plan', { config });
    assert.equal(first.fits, true, first.notFit ?? '');
    assert.equal(first.cached, false);
    assert.deepEqual(first.pools.map((p) => p.pool), ['CPU']);
    const cpu = first.pools[0];
    const item = (what: string) => cpu.items.find((i) => i.what === what)?.bytes ?? 0;
    // AdamW's two moments per trainable element (plus alignment)
    const moments = item('optimizer_state') - 2 * item('adapter');
    assert.ok(item('compute_buffer') > 0 && moments >= 0 && moments < 4096, JSON.stringify(cpu.items));
    assert.equal(cpu.planBytes, cpu.items.filter((i) => i.trainer).reduce((s, i) => s + i.bytes, 0));
    const ops = first.ops as { dry_run: boolean; n_nodes: number; nodes: Array<{ backend: string }>; cpu_fallbacks: unknown[] };
    assert.equal(ops.dry_run, true);
    assert.ok(ops.n_nodes > 100 && ops.nodes.every((n) => n.backend === 'CPU'));
    assert.deepEqual(ops.cpu_fallbacks, []);

    // a setting that does not touch the model: the loaded model is reused; the graph follows the setting
    const wider = await host.request('plan', { config: { ...config, ctx: 128, rank: 16 } });
    assert.equal(wider.cached, true);
    assert.ok(wider.pools[0].planBytes > cpu.planBytes);
    const adapter = (p: typeof first) => p.pools[0].items.find((i) => i.what === 'adapter')!.bytes;
    // (the adapter's buffer is a whole number of 256-byte rows: AdamW runs over it as one tensor)
    assert.ok(Math.abs(adapter(wider) - 2 * adapter(first)) <= 256, `rank 16 doubles the adapter: ${adapter(wider)} vs ${adapter(first)}`);
    assert.equal(adapter(first) % 256, 0);
  });

  test('plan: a memory limit the run does not fit is reported with the pool and the sizes; a missing model is io_error', async (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const { defaults } = await host.request('capabilities', {});
    const config: TrainConfig = { ...defaults, model, data: ['unused.txt'], ctx: 64, backend: 'cpu', memoryLimit: 100_000 };
    const p = await host.request('plan', { config });
    assert.equal(p.fits, false);
    assert.equal(p.pools[0].fits, false);
    assert.equal(p.pools[0].limitBytes, 100_000);
    assert.match(p.notFit!, /does not fit in CPU memory: it needs [\d.]+ MiB .* lower the context \(64 tokens\)/);
    await assert.rejects(host.request('plan', { config: { ...config, model: join(tempDir(), 'gone.gguf') } }), (e: { code: string; message: string }) =>
      e.code === 'io_error' && /gone\.gguf: cannot read the model/.test(e.message));
  });
});
