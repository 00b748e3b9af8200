/**
 * Activation recomputation (`--recompute`, gradient checkpointing): the backward pass reads
 * clones of the forward's activations, rebuilt from each layer's output, so the originals die
 * with the forward pass. The gradients must be the very ones of the plain graph: on the CPU the
 * recomputed values are the same computations on the same inputs, so losses and gradient norms
 * agree to the last bits. Checked on stories260K and on probe models of the layouts with the
 * most unusual graphs (shared K/V across layers, per-layer embeddings, experts, soft caps and
 * windows, gated delta-net recurrences), and the plan shows what it saves. With recomputation the
 * head and the loss run in chunks of rows whose logits are rebuilt before their backward (for
 * large vocabularies; a test hook asks for them on small ones): the same loss up to rounding.
 * Without it, selective recomputation (the CPU's default) rebuilds only the cheap tensors (norms,
 * RoPE, the gated activation) from what the backward keeps anyway: the very same losses and
 * gradient norms as with it off (HONE_SELECTIVE_RECOMPUTE=0), from a smaller plan. A GPU's
 * default (auto) plans the plain graph and takes selective recomputation only where that does
 * not fit.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { DELTA_NET_KV, DELTA_NET_TENSORS, GEMMA4_KV } from '../helpers/arch-probes.ts';
import { requireFixture } from '../helpers/fixtures.ts';
import { honeTrain, makeModel, tempDir, vocab, type RunResult } from '../helpers/native.ts';
import { relDiff } from '../helpers/train-data.ts';

const TEXT = 'Once upon a time, there was a little dog named Max. He loved to run in the park with his red ball. ';

// probe-arch arguments of each layout (as in architectures.test.ts)
const PROBES: Record<string, string[]> = {
  'gemma4 (shared K/V, per-layer embeddings, windows, soft-capped logits)': ['--arch', 'gemma4', '--kv',
    `block_count=3,attention.sliding_window_pattern=1:0:1,attention.shared_kv_layers=1,${GEMMA4_KV}`,
    '--layer-tensors', 'attn_v.weight@0,layer_output_scale.weight@1'],
  'gemma4 with experts': ['--arch', 'gemma4', '--kv', `block_count=3,attention.sliding_window_pattern=1:0:1,${GEMMA4_KV},expert_count=4,` +
    'expert_used_count=2,expert_feed_forward_length=32', '--layer-tensors', 'ffn_gate_inp.weight@0:2,ffn_down_exps.scale@0:2'],
  'gemma2 (soft-capped scores, windows)': ['--arch', 'gemma2', '--kv',
    'attention.sliding_window=3,rope.freq_base_swa=500,attn_logit_softcapping=2.0,final_logit_softcapping=3.0'],
  'qwen35 (gated delta-net)': ['--arch', 'qwen35', '--kv', DELTA_NET_KV, ...DELTA_NET_TENSORS],
};

function steps(r: RunResult) {
  return r.events.filter((e) => e.type === 'step');
}

function nodes(dir: string): number {
  return JSON.parse(readFileSync(join(dir, 'ops.json'), 'utf8')).nodes.length;
}

describe('activation recomputation', () => {
  const dir = tempDir();
  const data = join(dir, 'text.txt');
  writeFileSync(data, TEXT.repeat(12));

  // the same run with selective recomputation off and on (the default): bit for bit the same
  // losses and gradient norms on the CPU; the backward reads clones of the cheap tensors
  function compareSelective(model: string, name: string, ctx: number, cloned: RegExp) {
    const args = ['--model', model, '--data', data, '--steps', '3', '--ctx', String(ctx), '--lr', '5e-2', '--json'];
    const off = honeTrain([...args, '--out', join(dir, `${name}-sel-off`)], undefined, { HONE_SELECTIVE_RECOMPUTE: '0' });
    assert.equal(off.code, 0, off.stderr);
    const on = honeTrain([...args, '--out', join(dir, `${name}-sel-on`)]);
    assert.equal(on.code, 0, on.stderr);
    assert.deepEqual(steps(on).map((e) => [e.loss, e.grad_norm]), steps(off).map((e) => [e.loss, e.grad_norm]));
    assert.equal(steps(on).length, 3);
    const clones = (d: string) => JSON.parse(readFileSync(join(dir, d, 'ops.json'), 'utf8')).nodes
      .map((n: { name: string }) => n.name).filter((n: string) => n.endsWith(' (re)'));
    assert.deepEqual(clones(`${name}-sel-off`), [], 'no clones with selective recomputation off');
    assert.ok(clones(`${name}-sel-on`).some((n: string) => cloned.test(n)), `${name}: the backward reads a clone matching ${cloned}: ${clones(`${name}-sel-on`).join(', ')}`);
  }

  // the same run with and without --recompute: same losses and gradient norms, more nodes
  function compare(model: string, name: string, ctx: number, stepsN = 3, extra: string[] = []) {
    const args = ['--model', model, '--data', data, '--steps', String(stepsN), '--ctx', String(ctx), '--lr', '5e-2', '--json'];
    const plain = honeTrain([...args, '--out', join(dir, `${name}-plain`)]);
    assert.equal(plain.code, 0, plain.stderr);
    const re = honeTrain([...args, '--out', join(dir, `${name}-re`), '--recompute', ...extra]);
    assert.equal(re.code, 0, re.stderr);
    const a = steps(plain), b = steps(re);
    assert.equal(b.length, stepsN);
    for (let i = 0; i < stepsN; i++) {
      assert.ok(relDiff(b[i].loss, a[i].loss) <= 1e-6, `${name} step ${i + 1} loss: ${b[i].loss} vs ${a[i].loss}`);
      assert.ok(relDiff(b[i].grad_norm, a[i].grad_norm) <= 1e-5, `${name} step ${i + 1} grad norm: ${b[i].grad_norm} vs ${a[i].grad_norm}`);
    }
    // the clones are there: the backward reads recomputed activations, not the forward's
    assert.ok(nodes(join(dir, `${name}-re`)) > nodes(join(dir, `${name}-plain`)), 'recomputation adds nodes');
  }

  test('stories260K: the same losses and gradient norms with --recompute, from a graph with the clones', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    compare(model, 'stories', 64, 4);
  });

  test('stories260K: the head and the loss in chunks of 16 rows give the same losses and gradient norms', (t) => {
    // a 512-token vocabulary never needs chunks: the test hook asks for them (4 chunks at 64 tokens)
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    compare(model, 'stories-chunks', 64, 4, ['--test-head-chunk-rows', '16']);
  });

  test('stories260K: selective recomputation gives the same losses and gradient norms as none, rebuilding the norms and SwiGLU', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    compareSelective(model, 'stories', 64, /^ffn_act-\d+ \(re\)$/);
    const names = JSON.parse(readFileSync(join(dir, 'stories-sel-on', 'ops.json'), 'utf8')).nodes.map((n: { name: string }) => n.name);
    // (Llama's rotated Q and K stay: rebuilding them would keep Q and K, which nothing else reads)
    for (const what of ['attn_norm-1', 'ffn_norm-1', 'ffn_act-1']) assert.ok(names.includes(`${what} (re)`), `${what} is rebuilt`);
  });

  test('qwen3 (Q/K norms): selective recomputation rebuilds the rotated Q and K from Q and K, which their norms keep', () => {
    const model = makeModel(dir, { arch: 'qwen3', embd: 128, layers: 2, heads: 4, kvHeads: 2, headDim: 32, ff: 256, type: 'q8_0', vocab: 'llama-spm' });
    compareSelective(model, 'qwen3', 32, /^q_rope-1 \(re\)$/);
    const names = JSON.parse(readFileSync(join(dir, 'qwen3-sel-on', 'ops.json'), 'utf8')).nodes.map((n: { name: string }) => n.name);
    assert.ok(names.includes('k_rope-1 (re)'), 'k_rope-1 is rebuilt');
  });

  for (const [name, probe] of Object.entries(PROBES)) {
    test(`${name}: the same losses and gradient norms with --recompute, and with selective recomputation off and on`, () => {
      const model = join(dir, `${name.split(' ')[0]}-${Object.keys(PROBES).indexOf(name)}.gguf`);
      const p = honeTrain(['probe-arch', '--vocab-from', vocab('llama-spm'), '--out', model, '--json', ...probe]);
      assert.equal(p.code, 0, p.stdout + p.stderr);
      compare(model, `probe${Object.keys(PROBES).indexOf(name)}`, 32);
      compareSelective(model, `probe${Object.keys(PROBES).indexOf(name)}`, 32, / \(re\)$/);
    });
  }

  // 16 layers: the layers' activations, not the kept [32000, 1024] logits, are most of the plain plan
  let planModel = '';
  const planArgs = (out: string) => {
    planModel ||= makeModel(dir, { arch: 'llama', embd: 256, layers: 16, heads: 4, kvHeads: 2, ff: 768, type: 'q8_0', vocab: 'llama-spm' });
    return ['--model', planModel, '--data', data, '--out', join(dir, out), '--steps', '1', '--ctx', '1024', '--json'];
  };
  const computeBytes = (r: RunResult) => {
    assert.equal(r.code, 0, r.stderr);
    const plan = r.events.find((x) => x.type === 'plan')!;
    return plan.memory.items.find((i: { what: string }) => i.what === 'compute_buffer').bytes as number;
  };

  test('the memory plan at 1024 tokens: selective recomputation holds less, full recomputation a fraction, and a plan that does not fit advises it', () => {
    const args = planArgs;
    const none = computeBytes(honeTrain([...args('plan-none'), '--dry-run'], undefined, { HONE_SELECTIVE_RECOMPUTE: '0' }));
    const plain = computeBytes(honeTrain([...args('plan-plain'), '--dry-run']));
    // selective recomputation (the default) holds less than no recomputation: 310 against 390 MiB
    // here, where the kept [32000, 1024] logits are a third of the plan
    assert.ok(plain < 0.85 * none, `compute buffer ${plain} with selective recomputation against ${none} without`);
    const re = computeBytes(honeTrain([...args('plan-re'), '--dry-run', '--recompute']));
    assert.ok(re < 0.5 * plain, `compute buffer ${re} with recomputation against ${plain} without`);
    // a limit between the two: refused without recomputation, naming it; trained with it
    const limit = String(Math.round((plain + re) / 2));
    const refused = honeTrain([...args('limit-plain'), '--memory-limit', limit]);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stdout + refused.stderr, /does not fit in CPU memory.*or turn on activation recomputation/);
    const trained = honeTrain([...args('limit-re'), '--memory-limit', limit, '--recompute']);
    assert.equal(trained.code, 0, trained.stderr);
    assert.equal(steps(trained).length, 1);
    // the head in chunks of 128 rows: one chunk's logits live at a time instead of all 1024 rows'
    // (125 MiB of the recomputing plan)
    const chunked = computeBytes(honeTrain([...args('plan-chunks'), '--dry-run', '--recompute', '--test-head-chunk-rows', '128']));
    assert.ok(chunked < 0.6 * re, `compute buffer ${chunked} with the head in chunks against ${re} without`);
  });

  test('auto (a GPU\'s default): the plain graph where its plan fits, selective recomputation where only that fits, every layer where only that fits', () => {
    const none = computeBytes(honeTrain([...planArgs('auto-none'), '--dry-run'], undefined, { HONE_SELECTIVE_RECOMPUTE: '0' }));
    const selective = computeBytes(honeTrain([...planArgs('auto-selective'), '--dry-run'], undefined, { HONE_SELECTIVE_RECOMPUTE: '1' }));
    assert.ok(selective < 0.85 * none, `compute buffer ${selective} with selective recomputation against ${none} without`);
    const auto = { HONE_SELECTIVE_RECOMPUTE: 'auto' };
    // free memory holds the plain graph: auto plans it (and the backward reads no clones)
    const roomy = honeTrain([...planArgs('auto-roomy'), '--dry-run'], undefined, auto);
    assert.equal(computeBytes(roomy), none);
    const mode = (r: RunResult) => {
      const m = r.events.find((x) => x.type === 'plan')!.memory as { mode: string; mode_reason: string };
      return { mode: m.mode, mode_reason: m.mode_reason };
    };
    assert.deepEqual(mode(roomy), { mode: 'plain', mode_reason: 'the plain graph fits' });
    assert.equal(nodes(join(dir, 'auto-roomy')), nodes(join(dir, 'auto-none')));
    // a limit between the two plans: the plain graph would be refused, auto trains with selective recomputation
    const limit = String(Math.round((none + selective) / 2));
    assert.notEqual(honeTrain([...planArgs('auto-off-limited'), '--memory-limit', limit], undefined, { HONE_SELECTIVE_RECOMPUTE: '0' }).code, 0);
    const tightPlan = honeTrain([...planArgs('auto-tight-plan'), '--dry-run', '--memory-limit', limit], undefined, auto);
    assert.equal(computeBytes(tightPlan), selective);
    assert.equal(mode(tightPlan).mode, 'selective');
    assert.match(mode(tightPlan).mode_reason, /^the plain graph does not fit \(CPU: [\d.]+ MiB planned, [\d.]+ MiB the limit\)$/);
    // below the selective plan, above full recomputation's: auto recomputes every layer
    const re = computeBytes(honeTrain([...planArgs('auto-re'), '--dry-run', '--recompute'], undefined, auto));
    const lower = String(Math.round((selective + re) / 2));
    const fullPlan = honeTrain([...planArgs('auto-full-plan'), '--dry-run', '--memory-limit', lower], undefined, auto);
    assert.equal(computeBytes(fullPlan), re);
    assert.equal(mode(fullPlan).mode, 'recompute');
    assert.match(mode(fullPlan).mode_reason, /^neither the plain graph \(CPU: .*\) nor selective recomputation \(CPU: .*\) fits$/);
    assert.equal(nodes(join(dir, 'auto-tight-plan')), nodes(join(dir, 'auto-selective')));
    const tight = honeTrain([...planArgs('auto-tight'), '--memory-limit', limit], undefined, auto);
    assert.equal(tight.code, 0, tight.stderr);
    assert.equal(nodes(join(dir, 'auto-tight')), nodes(join(dir, 'auto-selective')));
    assert.equal(steps(tight).length, 1);
    assert.ok(Number.isFinite(steps(tight)[0].loss));
  });
});
