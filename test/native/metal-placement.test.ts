/**
 * Where the training graph would run on a Mac, checked on every commit without one. Metal's op
 * acceptance is a pure function (patch 0011: ggml_metal_supports_op over the tensor and the GPU
 * family's features), compiled into the engine here; `--test-metal-rules FAMILY` schedules a
 * stand-in backend whose supports_op is exactly that function, so the op report of a dry run
 * shows the placement the real Metal backend would get from the scheduler: on Apple7 and later
 * (every Apple-silicon Mac) every node of the forward and backward graph, for the real graphs
 * of llama, qwen2, qwen3 and gemma3 at Q4_K_M and Q8_0; on older families, the ones that
 * would fall back to the CPU, each with the reason. HONE_METAL_OUT_PROD=0 sends OUT_PROD back
 * to the CPU, as on a Mac.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { requireFixture } from '../helpers/fixtures.ts';
import { bin, honeTrain, makeModel, run, stepLosses, tempDir, vocab, type SyntheticSpec } from '../helpers/native.ts';
import { opsSchema, validate } from '../helpers/ops-schema.ts';

const TEXT = 'The quick brown fox jumps over the lazy dog. A stitch in time saves nine. '.repeat(8);

interface Placement {
  ops: any;
  /** compute nodes of the forward and backward graph that the scheduler left on the CPU */
  fallbacks: Array<{ op: string; name: string; reason: string }>;
  code: number | null;
  stderr: string;
  losses: number[];
}

function place(model: string, family: string, args: string[] = [], env: Record<string, string> = {}): Placement {
  const dir = tempDir();
  const data = join(dir, 'text.txt');
  writeFileSync(data, TEXT);
  const out = join(dir, 'run');
  const r = honeTrain(['--model', model, '--data', data, '--out', out, '--rank', '8', '--targets', 'all', '--ctx', '64',
    '--threads', '2', '--json', '--test-metal-rules', family, ...args], undefined, env);
  let ops: any = null;
  try { ops = JSON.parse(readFileSync(join(out, 'ops.json'), 'utf8')); } catch { /* refused before the report */ }
  if (ops) assert.deepEqual(validate(ops, opsSchema), [], 'ops.json must follow docs/ops-json.md');
  const fallbacks = ops ? ops.cpu_fallbacks.filter((f: any) => ops.nodes[f.i].pass !== 'optimizer') : [];
  return { ops, fallbacks, code: r.code, stderr: r.stderr, losses: stepLosses(r) };
}

const listed = (p: Placement) => p.fallbacks.map((f) => `${f.op} ${f.name}: ${f.reason}`).join('\n');

const SHAPES: Array<Omit<SyntheticSpec, 'type'>> = [
  { arch: 'llama', embd: 128, layers: 2, heads: 4, kvHeads: 2, ff: 256, vocab: 'llama-spm' },
  { arch: 'qwen2', embd: 128, layers: 2, heads: 4, kvHeads: 2, ff: 256, vocab: 'qwen2' },
  { arch: 'qwen3', embd: 128, layers: 2, heads: 4, kvHeads: 2, ff: 256, headDim: 64, vocab: 'qwen2' },
  { arch: 'gemma3', embd: 256, layers: 2, heads: 4, kvHeads: 1, ff: 512, headDim: 64, vocab: 'llama-spm' },
];

describe('Metal placement of the training graph (no Mac needed)', () => {
  const models = new Map<string, string>();
  const model = (s: Omit<SyntheticSpec, 'type'>, type: SyntheticSpec['type']) => {
    const key = `${s.arch}-${type}`;
    if (!models.has(key)) models.set(key, makeModel(tempDir(), { ...s, type }));
    return models.get(key)!;
  };

  for (const shape of SHAPES) {
    for (const type of ['q4_k_m', 'q8_0'] as const) {
      test(`${shape.arch} ${type}: on Apple7+ every node of the forward and backward graph runs on the GPU`, () => {
        const p = place(model(shape, type), 'apple7', ['--steps', '1', '--dry-run']);
        assert.equal(p.code, 0, p.stderr);
        assert.deepEqual(p.ops.backends, ['MTL-RULES-APPLE7', 'CPU']);
        assert.deepEqual(p.fallbacks, [], `ops Metal would refuse:\n${listed(p)}`);
        const graph = p.ops.nodes.filter((n: any) => n.compute && n.pass !== 'optimizer');
        assert.ok(graph.length > 100, `a real training graph (${graph.length} compute nodes)`);
        assert.ok(graph.every((n: any) => n.backend === 'MTL-RULES-APPLE7'));
        // the backward matmuls through the frozen quantized weights are there, and on the GPU
        const quantOutProd = graph.filter((n: any) => n.op === 'OUT_PROD' && !['f32', 'f16'].includes(n.src?.[0]?.type));
        assert.ok(quantOutProd.length > 0, 'OUT_PROD with a quantized src0 is part of the graph');
      });
    }
  }

  // Gemma 4 (make-model cannot write it): the probe's windowed and global layers, per-layer
  // embeddings and a shared-K/V layer, at Q4_K_M
  test('gemma4 q4_k_m: on Apple7+ every node of the forward and backward graph runs on the GPU', () => {
    const dir = tempDir();
    const f32 = join(dir, 'gemma4.gguf'), q4 = join(dir, 'gemma4-q4_k_m.gguf');
    const p = honeTrain(['probe-arch', '--arch', 'gemma4', '--vocab-from', vocab('llama-spm'), '--out', f32, '--kv',
      'block_count=3,attention.sliding_window_pattern=1:0:1,attention.shared_kv_layers=1,attention.sliding_window=3,' +
      'attention.key_length=16,attention.value_length=16,attention.key_length_swa=8,attention.value_length_swa=8,rope.dimension_count=16,' +
      'rope.dimension_count_swa=8,embedding_length_per_layer_input=8']);
    assert.equal(p.code, 0, p.stderr);
    assert.equal(run(bin('llama-quantize'), [f32, q4, 'Q4_K_M']).code, 0);
    const placed = place(q4, 'apple7', ['--steps', '1', '--dry-run']);
    assert.equal(placed.code, 0, placed.stderr);
    assert.deepEqual(placed.fallbacks, [], `ops Metal would refuse:\n${listed(placed)}`);
    const graph = placed.ops.nodes.filter((n: any) => n.compute && n.pass !== 'optimizer');
    assert.ok(graph.length > 100 && graph.every((n: any) => n.backend === 'MTL-RULES-APPLE7'), `${graph.length} compute nodes`);
  });

  test('older GPU families: the nodes that would fall back are listed with the family\'s reason', (t) => {
    const q4 = model(SHAPES[0], 'q4_k_m');
    const byFamily: Record<string, Placement> = {};
    for (const family of ['metal3', 'apple6']) {
      const p = place(q4, family, ['--steps', '1', '--dry-run']);
      assert.equal(p.code, 0, p.stderr);
      byFamily[family] = p;
      const ops = [...new Set(p.fallbacks.map((f) => f.op))].sort();
      t.diagnostic(`${family}: ${p.fallbacks.length} of the graph's nodes on the CPU: ${ops.join(', ')}`);
      const name = `MTL-RULES-${family.toUpperCase()}`;
      for (const f of p.fallbacks) assert.match(f.reason, new RegExp(`^${name}: ${f.op}.* not supported$`), `${f.op} ${f.name}`);
    }
    // Metal 3 without Apple7 (Intel/AMD Macs) has no simdgroup matrices: OUT_PROD needs them
    assert.ok(byFamily.metal3.fallbacks.some((f) => f.op === 'OUT_PROD'));
    assert.ok(!byFamily.metal3.fallbacks.some((f) => f.op === 'RMS_NORM'), 'reductions exist there');
    // Apple6 has no simdgroup reductions either: norms and matmuls stay on the CPU
    for (const op of ['OUT_PROD', 'MUL_MAT', 'RMS_NORM']) assert.ok(byFamily.apple6.fallbacks.some((f) => f.op === op), op);
    assert.ok(byFamily.apple6.fallbacks.length > byFamily.metal3.fallbacks.length);
  });

  test('HONE_METAL_OUT_PROD=0 sends exactly the OUT_PROD nodes to the CPU, saying why; a bad value is refused', () => {
    const q8 = model(SHAPES[2], 'q8_0');
    const p = place(q8, 'apple7', ['--steps', '1', '--dry-run'], { HONE_METAL_OUT_PROD: '0' });
    assert.equal(p.code, 0, p.stderr);
    const outProd = p.ops.nodes.filter((n: any) => n.compute && n.pass !== 'optimizer' && n.op === 'OUT_PROD');
    assert.ok(outProd.length > 0);
    assert.deepEqual(p.fallbacks.map((f) => f.op), outProd.map(() => 'OUT_PROD'), listed(p));
    for (const f of p.fallbacks) assert.match(f.reason, /HONE_METAL_OUT_PROD=0/);
    const bad = place(q8, 'apple7', ['--steps', '1', '--dry-run'], { HONE_METAL_OUT_PROD: 'off' });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /HONE_METAL_OUT_PROD is 'off': use 0 .* or 1/);
  });

  test('an unknown family is refused naming the known ones; training under the stand-in gives the CPU\'s losses', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const bad = place(model, 'apple99', ['--steps', '1', '--dry-run']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /unknown Metal GPU family 'apple99' \(known: apple7, metal3, apple6\)/);
    const dir = tempDir();
    const data = join(dir, 'text.txt');
    writeFileSync(data, TEXT);
    const plain = honeTrain(['--model', model, '--data', data, '--out', join(dir, 'plain'), '--rank', '8', '--targets', 'all', '--ctx', '64',
      '--threads', '2', '--json', '--steps', '3']);
    const metal = place(model, 'apple7', ['--steps', '3']);
    assert.equal(metal.code, 0, metal.stderr);
    assert.deepEqual(metal.fallbacks, [], listed(metal));
    const a = stepLosses(plain);
    assert.equal(metal.losses.length, 3);
    a.forEach((l, i) => assert.ok(Math.abs(l - metal.losses[i]) <= 1e-6 * Math.abs(l), `step ${i + 1}: ${l} vs ${metal.losses[i]}`));
  });
});
