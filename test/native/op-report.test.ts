/**
 * Where every op runs and what memory it takes: DIR/ops.json from hone-train, before training
 * (--dry-run) and after a run. Every node of the real graph is listed with its backend, the
 * counts match the graph, the engine computes no wasted gradient (and the detector does see
 * one when a frozen tensor is marked trainable), CPU fallbacks carry the refusing backend's
 * reason (seen without a GPU through a test backend that refuses chosen ops), the memory
 * plan matches the measured peak, and a plan that does not fit is refused by name.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { requireFixture } from '../helpers/fixtures.ts';
import { honeTrain, makeModel, repoRoot, stepLosses, tempDir } from '../helpers/native.ts';
import { memorySchema, opsSchema, validate } from '../helpers/ops-schema.ts';

const TEXT =
  'Once upon a time, there was a little dog named Max. Max loved to run in the park with his red ball. ' +
  'One day, Max saw a big cat under a tree. The cat was sad because it could not find its home. ';

const MiB = 1024 * 1024;

/** One synthetic Q4_K_M llama shared by the tests that need it (made once per process). */
let q4: string | undefined;
function q4Model(): string {
  q4 ??= makeModel(tempDir(), { arch: 'llama', embd: 256, layers: 2, heads: 4, kvHeads: 2, ff: 512, type: 'q4_k_m', vocab: 'llama-spm' });
  return q4;
}

function dataFile(dir: string, repeat = 1): string {
  const p = join(dir, 'text.txt');
  writeFileSync(p, TEXT.repeat(repeat));
  return p;
}

/** Runs hone-train and returns DIR/ops.json, checked against the documented schema. */
function train(model: string, args: string[], expectCode = 0) {
  const dir = tempDir();
  const out = join(dir, 'run');
  const r = honeTrain(['--model', model, '--data', dataFile(dir, 4), '--out', out, '--rank', '4', '--targets', 'all', '--json', ...args]);
  assert.equal(r.code, expectCode, r.stderr);
  const opsPath = join(out, 'ops.json');
  const ops = existsSync(opsPath) ? JSON.parse(readFileSync(opsPath, 'utf8')) : null;
  if (ops) assert.deepEqual(validate(ops), [], 'ops.json must follow docs/ops-json.md');
  return { r, out, ops };
}

/** Counts that must agree with the graph and with each other in every report. */
function checkCounts(ops: any, nLoraTensors: number) {
  assert.equal(ops.schema, 'hone.ops/1');
  assert.equal(ops.nodes.length, ops.n_nodes, 'every node of the graph is listed');
  assert.equal(ops.n_nodes, ops.graph.forward_nodes + ops.graph.backward_nodes + ops.graph.optimizer_nodes);
  ops.nodes.forEach((n: any, i: number) => assert.equal(n.i, i));
  const passes = ops.nodes.map((n: any) => n.pass);
  assert.equal(passes.filter((p: string) => p === 'forward').length, ops.graph.forward_nodes);
  assert.equal(passes.filter((p: string) => p === 'optimizer').length, ops.graph.optimizer_nodes);
  const compute = ops.nodes.filter((n: any) => n.compute);
  assert.equal(compute.length, ops.n_compute_nodes);
  assert.equal(ops.by_op.reduce((a: number, e: any) => a + e.count, 0), ops.n_compute_nodes);
  assert.equal(Object.values(ops.share).reduce((a: number, e: any) => a + e.nodes, 0), ops.n_compute_nodes);
  // The adapter's trainable tensors: every B, and the A's, where q/k/v share one fused A and
  // gate/up another (per layer: 7 B + 4 A); one AdamW node updates them all, over the adapter's buffer.
  assert.equal(ops.graph.trainable_tensors, nLoraTensors);
  assert.equal(ops.nodes.filter((n: any) => n.op === 'OPT_STEP_ADAMW').length, 1);
  // Every matrix product against a base weight names it and its layer.
  for (const n of compute.filter((n: any) => n.op === 'MUL_MAT' && n.weight?.startsWith('blk.'))) {
    assert.equal(n.layer, Number(n.weight.split('.')[1]), `${n.name}: layer of ${n.weight}`);
  }
}

function checkAllOnCpuNoWaste(ops: any) {
  assert.deepEqual(ops.backends, ['CPU']);
  assert.ok(ops.nodes.every((n: any) => n.backend === 'CPU'));
  assert.deepEqual(ops.cpu_fallbacks, [], 'no fallback without an accelerator');
  assert.equal(ops.n_splits, 1);
  assert.deepEqual(ops.copies, []);
  assert.equal(ops.gradient_waste_nodes, 0);
  assert.deepEqual(ops.gradient_waste, []);
  assert.deepEqual(ops.gradient_waste_backward_nodes, []);
}

describe('op report (ops.json)', () => {
  test('stories260K: --dry-run lists every node on the CPU, counts match the graph, no gradient waste; the real run reports the same graph', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const dry = train(model, ['--ctx', '32', '--steps', '2', '--dry-run']);
    assert.deepEqual(readdirSync(dry.out), ['ops.json'], 'a dry run writes the report and nothing else');
    const plan = dry.r.events.find((e) => e.type === 'plan')!;
    assert.equal(plan.fits, true);
    assert.deepEqual(validate(plan.memory, memorySchema), []);
    assert.equal(dry.ops.dry_run, true);
    checkCounts(dry.ops, 5 * 11); // 5 layers x (7 B + 4 A)
    checkAllOnCpuNoWaste(dry.ops);
    assert.equal(dry.ops.profile, null);

    const real = train(model, ['--ctx', '32', '--steps', '2']);
    assert.equal(real.ops.dry_run, false);
    checkCounts(real.ops, 5 * 11);
    checkAllOnCpuNoWaste(real.ops);
    const sig = (ops: any) => ops.nodes.map((n: any) => `${n.op} ${n.name} ${n.backend} ${n.shape}`);
    assert.deepEqual(sig(real.ops), sig(dry.ops), 'the dry run schedules the graph that runs');
    assert.deepEqual(real.ops.memory.items, dry.ops.memory.items, 'the dry run plans the allocations that happen');
  });

  test('synthetic llama at Q4_K_M: quantized matrix products and their OUT_PROD backward on the CPU, no waste', () => {
    const model = q4Model();
    const { ops } = train(model, ['--ctx', '32', '--steps', '2']);
    checkCounts(ops, 2 * 11);
    checkAllOnCpuNoWaste(ops);
    const types = (op: string) => new Set(ops.by_op.filter((e: any) => e.op === op).map((e: any) => e.src0_type));
    assert.ok(types('MUL_MAT').has('q4_K'), 'forward products read the Q4_K weights');
    assert.ok(types('OUT_PROD').has('q4_K'), 'the input gradient is an OUT_PROD against the Q4_K weights');
  });

  test('the waste detector flags a frozen tensor marked trainable, with the backward nodes it costs', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const { ops } = train(model, ['--ctx', '32', '--steps', '2', '--dry-run', '--test-frozen-param', 'token_embd.weight']);
    const entry = ops.gradient_waste.find((w: any) => w.tensor === 'token_embd.weight');
    assert.ok(entry, 'token_embd.weight is listed');
    assert.equal(entry.op, 'GET_ROWS_BACK');
    assert.ok(entry.bytes >= 512 * 64 * 4, 'its gradient is as large as the embedding');
    const wasted = ops.gradient_waste_backward_nodes;
    assert.equal(ops.gradient_waste_nodes, wasted.length);
    assert.ok(wasted.some((n: any) => n.op === 'GET_ROWS_BACK'), 'the GET_ROWS_BACK node is counted');
    // Below layer 0's adapter nothing else needs the residual stream's gradient: all of it is waste.
    assert.ok(wasted.some((n: any) => n.layer === 0 && n.op === 'OUT_PROD'));
    assert.ok(ops.gradient_waste_flops > 0);
    // The frozen tensor is no optimizer parameter: the one AdamW node covers the adapter's buffer alone.
    assert.equal(ops.graph.trainable_tensors, 5 * 11);
    assert.equal(ops.nodes.filter((n: any) => n.op === 'OPT_STEP_ADAMW').length, 1);

    const notDry = train(model, ['--ctx', '32', '--steps', '2', '--test-frozen-param', 'token_embd.weight'], 1);
    assert.match(notDry.r.stderr, /--test-frozen-param needs --dry-run/);
    const unknown = train(model, ['--ctx', '32', '--steps', '2', '--dry-run', '--test-frozen-param', 'blk.9.nothing'], 1);
    assert.match(unknown.r.stderr, /no tensor 'blk\.9\.nothing'/);
  });

  test('CPU fallbacks without a GPU: a backend refusing OUT_PROD sends exactly those nodes to the CPU, each with its reason, and training is unchanged', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const plain = train(model, ['--ctx', '32', '--steps', '3', '--threads', '2']);
    const refused = train(model, ['--ctx', '32', '--steps', '3', '--threads', '2', '--test-refuse-ops', 'OUT_PROD']);
    const ops = refused.ops;
    checkCounts(ops, 5 * 11);
    assert.deepEqual(ops.backends, ['CPU-REFUSING', 'CPU']);
    const compute = ops.nodes.filter((n: any) => n.compute && n.pass !== 'optimizer');
    const outProd = compute.filter((n: any) => n.op === 'OUT_PROD');
    assert.ok(outProd.length > 0);
    for (const n of compute) assert.equal(n.backend, n.op === 'OUT_PROD' ? 'CPU' : 'CPU-REFUSING', `${n.op} ${n.name}`);
    const graphFallbacks = ops.cpu_fallbacks.filter((f: any) => ops.nodes[f.i].pass !== 'optimizer');
    assert.equal(graphFallbacks.length, outProd.length, 'every CPU node of the graph is a listed fallback');
    for (const f of graphFallbacks) {
      assert.equal(f.op, 'OUT_PROD');
      assert.match(f.reason, /^CPU-REFUSING: OUT_PROD with src0 f32 \[\d+,\d+,\d+,1\], src1 f32 \[\d+,\d+,\d+,1\] not supported$/);
      assert.equal(ops.nodes[f.i].cpu_reason, f.reason);
    }
    // The optimizer runs where the adapter lives (the CPU here), and says so.
    for (const f of ops.cpu_fallbacks.filter((f: any) => ops.nodes[f.i].pass === 'optimizer')) assert.match(f.reason, /optimizer graph on the primary backend \(CPU\)/);
    assert.ok(ops.n_splits > outProd.length, `each fallback is a split (${ops.n_splits} splits)`);
    assert.ok(ops.transitions.some((x: any) => x.from === 'CPU-REFUSING' && x.to === 'CPU' && x.op === 'OUT_PROD'));
    assert.deepEqual(ops.copies, [], 'both backends read host memory: nothing is copied');
    assert.ok(ops.share.CPU.flops_share > 0 && ops.share['CPU-REFUSING'].flops_share > 0);
    // Same kernels, other placement: the same losses.
    const a = stepLosses(plain.r), b = stepLosses(refused.r);
    assert.equal(b.length, 3);
    a.forEach((l, i) => assert.ok(Math.abs(l - b[i]) <= 1e-6 * Math.abs(l), `step ${i + 1}: ${l} vs ${b[i]}`));

    const bad = train(model, ['--ctx', '32', '--steps', '1', '--dry-run', '--test-refuse-ops', 'OUT_PROD,NOT_AN_OP'], 1);
    assert.match(bad.r.stderr, /unknown ggml op 'NOT_AN_OP'/);
  });

  test('the memory plan matches the measured CPU peak; mapped weights are reported apart', () => {
    const model = q4Model();
    const dry = train(model, ['--ctx', '128', '--steps', '3', '--threads', '2', '--dry-run']);
    const { r, out, ops } = train(model, ['--ctx', '128', '--steps', '3', '--threads', '2']);
    const cpu = ops.memory.backends.find((b: any) => b.pool === 'CPU');
    const items = ops.memory.items;
    const sum = (f: (i: any) => boolean) => items.filter(f).reduce((a: number, i: any) => a + i.bytes, 0);
    assert.equal(cpu.plan_bytes, sum((i) => i.trainer && i.pool === 'CPU'));
    assert.equal(cpu.mapped_bytes, sum((i) => i.mapped));
    const weights = items.find((i: any) => i.what === 'weights');
    assert.equal(weights.mapped, true, 'CPU weights are the file mapping');
    assert.equal(cpu.mapped_bytes, weights.bytes);
    assert.equal(cpu.resident_bytes, items.find((i: any) => i.what === 'adapter').bytes);
    assert.ok(cpu.plan_bytes > 16 * MiB, 'a compute buffer large enough for the comparison to mean something');
    assert.equal(dry.ops.memory.backends[0].plan_bytes, cpu.plan_bytes, 'the dry run plans the same bytes');
    assert.equal(dry.ops.memory.backends[0].measured_peak_bytes, null);
    // Stated tolerance: the process's own memory grows by the plan within 10% + 8 MiB
    // (allocator slack, thread stacks, the prepared data set).
    const peak = cpu.measured_peak_bytes;
    assert.ok(peak >= 0.9 * cpu.plan_bytes && peak <= 1.1 * cpu.plan_bytes + 8 * MiB,
      `measured ${(peak / MiB).toFixed(1)} MiB against a plan of ${(cpu.plan_bytes / MiB).toFixed(1)} MiB`);
    assert.ok(cpu.measured_mapped_bytes >= weights.bytes * 0.9, 'the mapped weights are resident as file pages, counted apart');
    const run = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8'));
    assert.deepEqual(validate(run.memory, memorySchema), []);
    assert.deepEqual(run.memory.backends, ops.memory.backends);
    const start = r.events.find((e) => e.type === 'start')!;
    assert.deepEqual(start.memory.items, ops.memory.items);
  });

  test('a plan that does not fit is refused before training, naming the sizes and what to lower', () => {
    const model = q4Model();
    const { r, out } = train(model, ['--ctx', '128', '--steps', '3', '--memory-limit', '4M'], 1);
    const err = r.events.find((e) => e.type === 'error')!;
    assert.equal(err.code, 'out_of_memory');
    assert.match(err.message, /does not fit in CPU memory: it needs [\d.]+ MiB \(.*compute_buffer [\d.]+ MiB.*\) but 4\.0 MiB is the memory limit/);
    assert.match(err.message, /lower the context \(128 tokens\), the micro-batch \(1 sequence\(s\)\), the LoRA rank \(4\)/);
    assert.ok(!r.events.some((e) => e.type === 'step'));
    assert.ok(!existsSync(out), 'nothing written');

    const dry = train(model, ['--ctx', '128', '--steps', '3', '--memory-limit', '4M', '--dry-run'], 1);
    assert.equal(dry.ops.memory.backends[0].fits, false, 'a dry run still writes the plan');
    assert.equal(dry.ops.memory.backends[0].limit_bytes, 4 * MiB);
    assert.equal(dry.r.events.find((e) => e.type === 'plan')!.fits, false);

    const bad = train(model, ['--ctx', '128', '--steps', '3', '--memory-limit', 'lots'], 1);
    assert.match(bad.r.stderr, /--memory-limit must be a size in bytes/);
  });

  test('--profile: per-node wall time and the slowdown it costs', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const { ops } = train(model, ['--ctx', '32', '--steps', '5', '--profile']);
    const p = ops.profile;
    assert.equal(p.steps_profiled, 2); // steps 2 and 4; step 1 also allocates and is left out
    assert.equal(p.steps_unprofiled, 2);
    assert.ok(p.step_s_profiled > 0 && p.step_s_unprofiled > 0);
    assert.ok(Math.abs(p.slowdown - p.step_s_profiled / p.step_s_unprofiled) < 1e-6 * p.slowdown);
    const graphNodes = ops.nodes.filter((n: any) => n.pass !== 'optimizer');
    assert.ok(graphNodes.every((n: any) => typeof n.time_ms === 'number' && n.time_ms >= 0 && n.runs === 2), 'every graph node is timed on each profiled step');
    assert.ok(ops.nodes.filter((n: any) => n.pass === 'optimizer').every((n: any) => n.time_ms === null && n.runs === 0));
    const runs = p.by_op.reduce((a: number, e: any) => a + e.runs, 0);
    assert.equal(runs, graphNodes.length * 2, 'each node timed once per profiled step');
  });

  test('docs/ops-json.md documents every field of the schema', () => {
    const doc = readFileSync(join(repoRoot, 'docs', 'ops-json.md'), 'utf8');
    const keys = new Set<string>();
    const walk = (s: any) => {
      if (typeof s !== 'object' || s === null) return;
      for (const k of ['object', 'optional']) if (s[k]) for (const [name, sub] of Object.entries(s[k])) { keys.add(name); walk(sub); }
      if (s.array) walk(s.array);
      if (s.map) walk(s.map);
      if (s.anyOf) s.anyOf.forEach(walk);
    };
    walk(opsSchema);
    // Field names as written in the page's code spans (`name` or `{a, b, c}`).
    const documented = new Set([...doc.matchAll(/`([^`]+)`/g)].flatMap((m) => m[1].split(/[^A-Za-z0-9_]+/)));
    const missing = [...keys].filter((k) => !documented.has(k));
    assert.deepEqual(missing, []);
  });
});
