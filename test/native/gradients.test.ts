/**
 * Correct gradients (issue 3): the training graph's gradients against finite differences,
 * K and V adapters that receive gradients, a forward pass identical to llama.cpp inference
 * with a non-zero adapter for every trainable architecture, and the architecture scan.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { requireFixture } from '../helpers/fixtures.ts';
import { honeTrain, makeModel, tempDir, vocab, type SyntheticSpec } from '../helpers/native.ts';

const TEXT = 'Once upon a time, there was a little dog named Max. He loved to run in the park with his red ball.';

function checkGrad(model: string, extra: string[] = []) {
  const r = honeTrain(['check-grad', '--model', model, '--elements', '4', '--seed', '3', '--json', ...extra]);
  const grads = r.events.filter((e) => e.type === 'grad');
  const summary = r.events.find((e) => e.type === 'check-grad');
  assert.ok(summary, `no summary event: ${r.stdout}${r.stderr}`);
  return { r, grads, summary };
}

describe('gradients match central finite differences', () => {
  // The bound per element is |a - n| <= 1e-2 |n| + atol, atol measured from the finite
  // difference's own error (steps eps and eps/2), so it holds on any CPU and build.
  test('stories260K (F32): every checked element of A and B, lowest and top layer, within 1e-2 |n| + the measured atol', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const { r, grads, summary } = checkGrad(model);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(summary.pass, true);
    assert.equal(summary.criterion, 'every element');
    assert.ok(summary.checked >= 30, `only ${summary.checked} elements above the floor`);
    // the measured noise floor is far below the gradients it judges (else the check has no teeth)
    assert.ok(summary.atol > 0 && summary.atol < 0.1 * summary.floor, JSON.stringify(summary));
    for (const layer of [0, 4]) {
      for (const w of ['attn_q', 'attn_k', 'attn_v', 'attn_output', 'ffn_down']) {
        for (const ab of ['lora_a', 'lora_b']) {
          const name = `blk.${layer}.${w}.weight.${ab}`;
          const mine = grads.filter((g) => g.tensor === name);
          assert.equal(mine.length, 4, `${name} sampled`);
          assert.ok(mine.some((g) => g.checked), `${name}: no element above the floor`);
          for (const g of mine.filter((x) => x.checked)) {
            assert.ok(g.pass && Math.abs(g.analytic - g.numeric) <= g.tolerance, `${name}[${g.index}]: ${JSON.stringify(g)}`);
            // the documented tolerance (values print with 9 significant digits; the engine takes
            // numeric - numeric_half in F32, whose rounding is relative to the two values, not to
            // their difference)
            const expected = 1e-2 * Math.abs(g.numeric) + Math.max(2 * Math.abs(g.numeric - g.numeric_half), summary.atol);
            const f32 = 4 * 2 ** -23 * (Math.abs(g.numeric) + Math.abs(g.numeric_half));
            assert.ok(Math.abs(g.tolerance - expected) <= 1e-6 * expected + f32, `${name}[${g.index}]: tolerance ${g.tolerance}, expected ${expected}`);
          }
        }
      }
    }
  });

  test('K and V adapters receive real gradients (attention reads the micro-batch\'s own K and V)', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const { grads } = checkGrad(model, ['--targets', 'attn_k,attn_v']);
    for (const w of ['attn_k', 'attn_v']) {
      for (const layer of [0, 4]) {
        const g = grads.filter((x) => x.tensor.startsWith(`blk.${layer}.${w}.`) && x.checked);
        assert.ok(g.length > 0, `blk.${layer}.${w}: no gradient above the floor`);
        for (const x of g) {
          assert.ok(Math.abs(x.analytic) > 0 && Math.sign(x.analytic) === Math.sign(x.numeric), JSON.stringify(x));
        }
      }
    }
  });

  test('synthetic llama at Q8_0: the sampled gradient agrees with differences on the dequantized weights', () => {
    const dir = tempDir();
    const model = makeModel(dir, { arch: 'llama', embd: 256, layers: 2, heads: 4, kvHeads: 2, ff: 512, type: 'q8_0', vocab: 'llama-spm' });
    const { r, summary } = checkGrad(model);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(summary.criterion, 'sampled vector (quantized base)');
    assert.ok(summary.checked >= 20);
    assert.ok(summary.vector_rel_error <= 5e-2, JSON.stringify(summary));
  });

  test('the check exits non-zero above its bound: a gradient 2% off fails, on every target module', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const all = ['--targets', 'attn_q,attn_k,attn_v,attn_output,ffn_gate,ffn_up,ffn_down', '--elements', '8'];
    const exact = checkGrad(model, all);
    assert.equal(exact.r.code, 0, exact.r.stdout);
    assert.ok(exact.summary.checked >= 150, JSON.stringify(exact.summary));
    // --test-scale-grad multiplies the analytic side only: the numeric side (and so atol) is unchanged
    const { r, grads, summary } = checkGrad(model, [...all, '--test-scale-grad', '1.02']);
    assert.equal(r.code, 1);
    assert.equal(summary.pass, false);
    // (atol can move: an analytic value scaled past the floor adds an element to the check)
    assert.deepEqual(grads.map((g) => g.numeric), exact.grads.map((g) => g.numeric));
    assert.ok(summary.failed >= summary.checked / 2, JSON.stringify(summary));
    assert.ok(grads.some((g) => g.checked && !g.pass && g.tensor.includes('ffn_gate')));
  });
});

describe('the training forward pass equals llama.cpp inference with a non-zero adapter', () => {
  const dir = tempDir();
  const shapes: Array<[string, SyntheticSpec]> = [
    ['llama', { arch: 'llama', embd: 256, layers: 2, heads: 4, kvHeads: 2, ff: 512, type: 'f32', vocab: 'llama-spm' }],
    ['qwen2', { arch: 'qwen2', embd: 256, layers: 2, heads: 4, kvHeads: 2, ff: 512, type: 'f32', vocab: 'qwen2', tied: true }],
    ['qwen3', { arch: 'qwen3', embd: 256, layers: 2, heads: 4, kvHeads: 2, ff: 512, headDim: 96, type: 'f32', vocab: 'qwen2', tied: true }],
  ];
  for (const [name, spec] of shapes) {
    for (const type of ['f32', 'q8_0', 'q4_k_m'] as const) {
      const bound = type === 'f32' ? 1e-5 : 2e-2; // quantized: activations are quantized too (see train-lora)
      test(`${name} ${type}: relative logit difference <= ${bound}`, () => {
        const model = makeModel(dir, { ...spec, type });
        const r = honeTrain(['check-forward', '--model', model, '--perturb-b', '0.05', '--text', TEXT, '--json']);
        assert.equal(r.code, 0, r.stderr);
        const c = r.events.find((e) => e.type === 'check-forward')!;
        assert.ok(c.tokens > 10);
        assert.ok(c.max_rel_diff <= bound, JSON.stringify(c));
      });
    }
  }

  test('stories260K (F32) with a non-zero adapter: within 1e-5', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const r = honeTrain(['check-forward', '--model', model, '--perturb-b', '0.05', '--text', TEXT, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.events.find((e) => e.type === 'check-forward')!.max_rel_diff <= 1e-5);
  });
});

// Architectures whose llama.cpp graph is llama's (RoPE normal, or NeoX for exaone; smollm3
// skips RoPE every 4th layer, so the models have 5 layers; minicpm and granite scale the
// embeddings, residual branches, logits and attention), Qwen3's or a post-norm one: made by
// make-model in the layout of their description, each checked against llama.cpp and trained.
describe('architectures on our llama and qwen3 graphs: mistral3, deci, ernie4_5, exaone, smollm3, minicpm, granite, xverse, internlm2, nanbeige, qwen2vl, qwen3vl, seed_oss, pangu-embedded, arcee, hunyuan-dense, maincoder, olmo2, exaone4, stablelm, phi3', () => {
  const dir = tempDir();
  const data = join(dir, 'text.txt');
  writeFileSync(data, TEXT);
  const layouts: Record<string, { vocab: 'llama-spm' | 'qwen2' | 'phi-3' }> = {
    mistral3: { vocab: 'llama-spm' }, deci: { vocab: 'llama-spm' },
    ernie4_5: { vocab: 'llama-spm' }, exaone: { vocab: 'llama-spm' },
    smollm3: { vocab: 'llama-spm' }, minicpm: { vocab: 'llama-spm' },
    granite: { vocab: 'llama-spm' },
    // found by probe-arch + scan: llama's graph (internlm2 with an optional output-projection bias)
    xverse: { vocab: 'llama-spm' }, internlm2: { vocab: 'llama-spm' },
    nanbeige: { vocab: 'llama-spm' },
    // Qwen2-VL / Qwen3-VL text: M-RoPE (sections; interleaved for Qwen3-VL) over positions (t, t, t, 0)
    qwen2vl: { vocab: 'qwen2' }, qwen3vl: { vocab: 'qwen2' },
    // llama's graph with NeoX RoPE: Seed-OSS (its FFN norm named post_attention_norm), openPangu
    // Embedded (a required output-projection bias)
    seed_oss: { vocab: 'llama-spm' }, 'pangu-embedded': { vocab: 'llama-spm' },
    // Arcee: llama's attention, an FFN of relu(up x)^2 without a gate
    arcee: { vocab: 'llama-spm' },
    // Hunyuan: Qwen3's tensors, Q/K norms after RoPE; Maincoder: the same with normal RoPE
    'hunyuan-dense': { vocab: 'qwen2' }, maincoder: { vocab: 'qwen2' },
    // OLMo 2: its own layout (norms after attention and FFN, Q/K norms over whole projections)
    olmo2: { vocab: 'llama-spm' },
    // EXAONE 4: OLMo 2's post-norms with per-head Q/K norms
    exaone4: { vocab: 'llama-spm' },
    // StableLM with its FFN norm (LayerNorms with biases, patch 0006); the probe's model has none
    stablelm: { vocab: 'llama-spm' },
    // Phi-3: fused Q/K/V and gate/up, Q scaled after NeoX RoPE
    phi3: { vocab: 'phi-3' },
  };
  for (const arch of Object.keys(layouts)) {
    for (const type of ['f32', 'q8_0']) {
      test(`${arch} ${type}: forward equals llama.cpp${type === 'f32' ? ' and training lowers the loss' : ''}`, () => {
        const model = join(dir, `${arch}-${type}.gguf`);
        const m = honeTrain(['make-model', '--arch', arch, '--embd', '128', '--layers', '5', '--heads', '4',
          '--kv-heads', '2', '--ff', '256', '--type', type, '--vocab-from', vocab(layouts[arch].vocab), '--out', model]);
        assert.equal(m.code, 0, m.stderr);
        const c = honeTrain(['check-forward', '--model', model, '--perturb-b', '0.05', '--text', TEXT, '--json']);
        assert.equal(c.code, 0, c.stderr);
        assert.ok(c.events[0].max_rel_diff <= (type === 'f32' ? 1e-5 : 2e-2), JSON.stringify(c.events[0]));
        if (type !== 'f32') return;
        const r = honeTrain(['--model', model, '--data', data, '--out', join(dir, `${arch}-run`), '--steps', '8', '--ctx', '64',
          // granite divides its logits by 8: a larger step moves them as far
          '--lr', arch === 'granite' ? '4e-2' : '1e-2', '--targets', 'all,output', '--json']);
        assert.equal(r.code, 0, r.stderr);
        const losses = r.events.filter((e) => e.type === 'step').map((e) => e.loss);
        assert.ok(losses.at(-1) < 0.8 * losses[0], `loss ${losses[0]} -> ${losses.at(-1)}`);
        if (arch === 'arcee') {
          // a module the architecture does not have is skipped by 'all', refused when it is the only one
          const none = honeTrain(['--model', model, '--data', data, '--out', join(dir, 'arcee-gate'), '--steps', '1', '--targets', 'ffn_gate']);
          assert.equal(none.code, 1);
          assert.match(none.stderr, /none of the target modules exists in this model/);
        }
        if (arch === 'nanbeige') {
          // a looped Nanbeige (its layers run num_loops times) is refused, naming the key
          const looped = join(dir, 'nanbeige-looped.gguf');
          const lm = honeTrain(['make-model', '--arch', 'nanbeige', '--embd', '64', '--layers', '1', '--heads', '2',
            '--ff', '128', '--kv', 'num_loops=2', '--vocab-from', vocab('llama-spm'), '--out', looped]);
          assert.equal(lm.code, 0, lm.stderr);
          const refused = honeTrain(['--model', looped, '--data', data, '--out', join(dir, 'nanbeige-looped-run'), '--steps', '1']);
          assert.equal(refused.code, 1);
          assert.match(refused.stderr, /looped layers \(nanbeige\.num_loops = 2\) cannot train yet/);
        }
        if (arch === 'olmo2' || arch === 'exaone4' || arch === 'arcee' || arch === 'qwen3vl') {
          // a graph of its own (post-norms, relu^2, M-RoPE): its gradients against finite differences too.
          // Post-norms curve the loss more, so central differences at eps 1e-2 are off by ~1e-2 on
          // elements near the default floor: the floor is 5e-3 for those two.
          const { r: g, summary } = checkGrad(model, arch === 'arcee' || arch === 'qwen3vl' ? [] : ['--floor', '5e-3']);
          assert.equal(g.code, 0, g.stdout + g.stderr);
          assert.equal(summary.pass, true, JSON.stringify(summary));
          assert.ok(summary.checked >= 20 && summary.vector_rel_error < 1e-3, JSON.stringify(summary));
        }
      });
    }
  }
});

describe('which architectures train', () => {
  const dir = tempDir();
  test('llama, qwen2 and qwen3 graphs have a backward for every op', () => {
    for (const [arch, v] of [['llama', 'llama-spm'], ['qwen2', 'qwen2'], ['qwen3', 'qwen2']] as const) {
      const model = makeModel(dir, { arch, embd: 64, layers: 1, heads: 2, kvHeads: 1, ff: 128, type: 'f32', vocab: v });
      const r = honeTrain(['scan', '--model', model, '--json']);
      assert.equal(r.code, 0, r.stderr);
      const s = r.events[0];
      assert.equal(s.arch, arch);
      assert.equal(s.graph_differentiable, true, JSON.stringify(s));
      assert.ok(s.ops.includes('MUL_MAT') && s.ops.includes('SOFT_MAX'));
    }
  });

  test('an architecture with an op ggml cannot differentiate is refused naming the op (Apertus: XIELU), and nothing crashes', () => {
    const model = join(dir, 'apertus.gguf');
    const p = honeTrain(['probe-arch', '--arch', 'apertus', '--vocab-from', vocab('llama-spm'), '--out', model, '--json']);
    assert.equal(p.code, 0, p.stdout + p.stderr);
    assert.equal(p.events.find((e) => e.type === 'probe')!.status, 'blocked');
    const scan = honeTrain(['scan', '--model', model, '--json']).events[0];
    assert.deepEqual(scan.no_backward, ['XIELU']);
    const data = join(dir, 'apertus.txt');
    writeFileSync(data, TEXT);
    const r = honeTrain(['--model', model, '--data', data, '--out', join(dir, 'apertus-run'), '--steps', '1']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /architecture 'apertus' cannot train yet: op XIELU has no backward in ggml/);
  });

  test('a Chameleon graph, differentiable since patch 0010 (CLAMP) but not written in Hone\'s graph, is refused saying so', () => {
    const model = join(dir, 'chameleon.gguf');
    const p = honeTrain(['probe-arch', '--arch', 'chameleon', '--vocab-from', vocab('llama-spm'), '--out', model, '--json']);
    assert.equal(p.code, 0, p.stdout + p.stderr);
    assert.deepEqual(honeTrain(['scan', '--model', model, '--json']).events[0].no_backward, []);
    const data = join(dir, 'chameleon.txt');
    writeFileSync(data, TEXT);
    const r = honeTrain(['--model', model, '--data', data, '--out', join(dir, 'chameleon-run'), '--steps', '1']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /architecture 'chameleon' cannot train yet: every op of its graph has a backward, but Hone's training graph does not implement this architecture yet/);
  });

  test('probe-arch makes a model of an architecture from its loader alone, then scans it', () => {
    // starcoder2 (LayerNorm + GELU, biases everywhere) and olmo2 (Q/K norms over whole
    // projections, post-norms): their layouts from the loader alone.
    const probe = (arch: string) => {
      const r = honeTrain(['probe-arch', '--arch', arch, '--vocab-from', vocab('llama-spm'), '--out', join(dir, `${arch}-probe.gguf`), '--json']);
      return { code: r.code, p: r.events.find((e) => e.type === 'probe')! };
    };
    const star = probe('starcoder2');
    assert.equal(star.code, 0, JSON.stringify(star.p));
    assert.equal(star.p.status, 'differentiable', JSON.stringify(star.p));
    assert.deepEqual(star.p.no_backward, []); // GELU has a backward since patch 0005, NORM since 0006
    assert.ok(star.p.tensors > 10 && star.p.tries > star.p.tensors, JSON.stringify(star.p));
    const olmo = probe('olmo2');
    assert.equal(olmo.p.status, 'differentiable', JSON.stringify(olmo.p));
    assert.deepEqual(olmo.p.no_backward, []);
    // an architecture llama.cpp does not know: refused by the loader, reported, no crash
    const none = probe('no-such-arch');
    assert.equal(none.code, 1);
    assert.equal(none.p.status, 'not_loaded');
    assert.match(none.p.error, /unknown model architecture: 'no-such-arch'/);
  });
});
