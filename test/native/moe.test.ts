/**
 * Mixture of experts (Qwen3-MoE, Qwen3-VL-MoE, Qwen2-MoE, Granite MoE, gpt-oss, Mixtral): the training graph's MoE FFN equals llama.cpp inference,
 * its gradients match finite differences through the router and the frozen experts
 * (MUL_MAT_ID's backward, patch 0010), LoRA training on attention lowers the loss, and the
 * scan counts every op of llama.cpp's MoE graph as differentiable.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readGguf } from '../helpers/gguf.ts';
import { honeTrain, tempDir, vocab } from '../helpers/native.ts';

const TEXT = 'Once upon a time, there was a little dog named Max. He loved to run in the park with his red ball.';

// A copy of a model with one tensor's bytes zeroed (zero blocks decode to zeros in every type).
const zeroTensor = (src: string, name: string, out: string) => {
  const raw = readGguf(src).raw.get(name);
  assert.ok(raw, `${src} has no tensor ${name}`);
  raw.fill(0);
  writeFileSync(out, new Uint8Array(raw.buffer)); // the view's buffer is the whole file
};

describe('qwen3moe: forward equals llama.cpp, gradients, training', () => {
  const dir = tempDir();
  const data = join(dir, 'text.txt');
  writeFileSync(data, TEXT);
  const make = (type: string, embd: number, experts = 8, used = 2, tied = true) => {
    const out = join(dir, `qwen3moe-${embd}-${type}-${experts}-${used}${tied ? '-tied' : ''}.gguf`);
    const m = honeTrain(['make-model', '--arch', 'qwen3moe', '--embd', String(embd), '--layers', '3', '--heads', '4', '--kv-heads', '2',
      '--head-dim', '32', '--ff', '256', '--experts', String(experts), '--experts-used', String(used), '--expert-ff', '64', '--type', type,
      '--vocab-from', vocab('qwen2'), ...(tied ? ['--tied'] : []), '--out', out]);
    assert.equal(m.code, 0, m.stderr);
    return out;
  };

  for (const [type, embd, bound] of [['f32', 128, 1e-5], ['q8_0', 128, 2e-2], ['q4_k_m', 256, 2e-2]] as const) {
    test(`${type}: the forward pass with a non-zero adapter is within ${bound} of llama.cpp's logits`, () => {
      const model = make(type, embd);
      const c = honeTrain(['check-forward', '--model', model, '--perturb-b', '0.05', '--text', TEXT, '--json']);
      assert.equal(c.code, 0, c.stderr);
      const ev = c.events.find((e) => e.type === 'check-forward')!;
      assert.ok(ev.tokens > 10);
      assert.ok(ev.max_rel_diff <= bound, JSON.stringify(ev));
    });
  }

  // floor: the check's floor where a layout's scales make every gradient small (Granite's logits / 8)
  const checkGrad = (model: string, floor?: string) => {
    const r = honeTrain(['check-grad', '--model', model, '--elements', '4', '--seed', '3', '--json', ...(floor ? ['--floor', floor] : [])]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    return { grads: r.events.filter((e) => e.type === 'grad'), summary: r.events.find((e) => e.type === 'check-grad')! };
  };

  test('f32, every expert used: gradients through the router, the weights\' renormalisation and the experts match finite differences', () => {
    // with all 4 of 4 experts selected no step of the difference can change the selection, so
    // the loss is smooth and every element is held to the check's bound
    const { summary } = checkGrad(make('f32', 128, 4, 4));
    assert.equal(summary.pass, true, JSON.stringify(summary));
    assert.ok(summary.checked >= 20 && summary.vector_rel_error < 1e-3, JSON.stringify(summary));
  });

  test('f32, top 2 of 8 experts: where the selection holds over the step, every gradient is within 1% of the differences', () => {
    // a step that moves a token's 2nd and 3rd experts past each other makes the loss jump (top-k
    // is not differentiable): those elements show as the full and half steps disagreeing
    const { grads } = checkGrad(make('f32', 128));
    const smooth = grads.filter((g) => Math.abs(g.numeric - g.numeric_half) <= 1e-3 * Math.abs(g.numeric_half) + 1e-6 && Math.abs(g.numeric_half) > 1e-3);
    assert.ok(smooth.length >= 40, `${smooth.length} of ${grads.length} elements without a selection change`);
    for (const g of smooth) assert.ok(Math.abs(g.analytic - g.numeric_half) <= 1e-2 * Math.abs(g.numeric_half), JSON.stringify(g));
  });

  test('q4_k_m: LoRA on attention and the head trains (the loss falls); the experts and the router stay frozen', () => {
    const model = make('q4_k_m', 256, 8, 2, false);
    const out = join(dir, 'run');
    const r = honeTrain(['--model', model, '--data', data, '--out', out, '--steps', '8', '--ctx', '64', '--lr', '1e-2', '--rank', '4',
      '--targets', 'all,output', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const losses = r.events.filter((e) => e.type === 'step').map((e) => e.loss);
    assert.ok(losses.at(-1) < 0.8 * losses[0], `loss ${losses[0]} -> ${losses.at(-1)}`);
    // 'all' is what exists: attention's four projections in 3 layers, no FFN (rank 4; q and o
    // are 256 x 128, 4 heads of 32; k and v 256 x 64), and the head (256 x 151936)
    const start = r.events.find((e) => e.type === 'start')!;
    assert.equal(start.adapter_params, 3 * 4 * ((256 + 128) * 2 + (256 + 64) * 2) + 4 * (256 + 151936));
  });

  test('an FFN target alone is refused: a mixture-of-experts layer has no dense ffn_up', () => {
    const model = make('f32', 128);
    const r = honeTrain(['--model', model, '--data', data, '--out', join(dir, 'ffn-only'), '--steps', '1', '--targets', 'ffn_up']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /none of the target modules exists in this model/);
  });

  test('qwen3vlmoe (Qwen3-VL\'s interleaved M-RoPE with the same experts): F32 forward within 1e-5 of llama.cpp', () => {
    const out = join(dir, 'qwen3vlmoe.gguf');
    const m = honeTrain(['make-model', '--arch', 'qwen3vlmoe', '--embd', '128', '--layers', '2', '--heads', '4', '--kv-heads', '2',
      '--head-dim', '32', '--ff', '256', '--experts', '8', '--experts-used', '2', '--expert-ff', '64', '--vocab-from', vocab('qwen2'), '--tied', '--out', out]);
    assert.equal(m.code, 0, m.stderr);
    const c = honeTrain(['check-forward', '--model', out, '--perturb-b', '0.05', '--text', TEXT, '--json']);
    assert.equal(c.code, 0, c.stderr);
    assert.ok(c.events[0].max_rel_diff <= 1e-5, JSON.stringify(c.events[0]));
  });

  // A described MoE architecture end to end: the forward at each type within its bound, every
  // expert used (no selection change within a step: every element held to the bound) for the
  // gradients, LoRA training on attention and the head. Returns its model maker.
  // expertWidth: make-model's expert arguments (Granite's experts are --ff wide); floor: check-grad's;
  // lr: the training run's
  const endToEnd = (arch: string, shape: string[], vocabName: 'qwen2' | 'llama-spm', types: Array<[string, number]>, trainType: string,
    { expertWidth = ['--expert-ff', '64'], floor, lr = '1e-2' }: { expertWidth?: string[]; floor?: string; lr?: string } = {}) => {
    const made = (type: string, used: number) => {
      const out = join(dir, `${arch}-${type}-${used}.gguf`);
      const m = honeTrain(['make-model', '--arch', arch, '--embd', '128', '--heads', '4', '--kv-heads', '2', '--ff', '192', '--experts', '4',
        '--experts-used', String(used), ...expertWidth, ...shape, '--type', type, '--vocab-from', vocab(vocabName), '--out', out]);
      assert.equal(m.code, 0, m.stderr);
      return out;
    };
    for (const [type, bound] of types) {
      const c = honeTrain(['check-forward', '--model', made(type, 2), '--perturb-b', '0.05', '--text', TEXT, '--json']);
      assert.equal(c.code, 0, c.stderr);
      assert.ok(c.events[0].tokens > 10 && c.events[0].max_rel_diff <= bound, `${type}: ${JSON.stringify(c.events[0])}`);
    }
    const { summary } = checkGrad(made('f32', 4), floor);
    assert.equal(summary.pass, true, JSON.stringify(summary));
    assert.ok(summary.checked >= 20 && summary.vector_rel_error < 1e-3, JSON.stringify(summary));
    const r = honeTrain(['--model', made(trainType, 2), '--data', data, '--out', join(dir, `${arch}-run`), '--steps', '8', '--ctx', '64',
      '--lr', lr, '--targets', 'all,output', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const losses = r.events.filter((e) => e.type === 'step').map((e) => e.loss);
    assert.ok(losses.at(-1) < 0.8 * losses[0], `loss ${losses[0]} -> ${losses.at(-1)}`);
    return made;
  };

  test('qwen2moe (Qwen2 attention, weights as selected, a sigmoid-gated shared expert): forward equals llama.cpp, gradients, training', () => {
    endToEnd('qwen2moe', ['--layers', '3'], 'qwen2', [['f32', 1e-5], ['q8_0', 2e-2]], 'f32');
  });

  // Granite's experts are --ff wide; its scales (logits / 8, residual branches x 0.22) leave every
  // gradient of the probe under check-grad's default floor and slow its training at lr 1e-2
  const GRANITE = { expertWidth: [], floor: '1e-5', lr: '3e-2' };
  test('granitemoe (Granite\'s scales, renormalised weights, experts as wide as feed_forward_length): forward equals llama.cpp, gradients, training', () => {
    endToEnd('granitemoe', ['--layers', '3'], 'llama-spm', [['f32', 1e-5], ['q8_0', 2e-2]], 'q8_0', GRANITE);
  });

  test('granite with experts (llama.cpp\'s granite loader reads them as granitemoe\'s): forward equals llama.cpp, gradients, training', () => {
    endToEnd('granite', ['--layers', '2'], 'llama-spm', [['f32', 1e-5]], 'f32', GRANITE);
  });

  test('granitemoe with a shared expert (Granite MoE Shared: added ungated): forward equals llama.cpp, gradients, training', () => {
    const made = endToEnd('granitemoe', ['--layers', '2', '--shared-ff', '96'], 'llama-spm', [['f32', 1e-5], ['q4_k_m', 2e-2]], 'f32', GRANITE);
    // the shared expert matters: llama.cpp's logits move when its down projection is zeroed
    const shared = made('f32', 2);
    const zeroed = join(dir, 'granitemoe-no-shared.gguf');
    zeroTensor(shared, 'blk.1.ffn_down_shexp.weight', zeroed);
    const c = honeTrain(['compare-logits', '--model', shared, '--model-b', zeroed, '--text', TEXT, '--json']);
    assert.equal(c.code, 0, c.stderr);
    assert.ok(c.events[0].max_rel_diff > 1e-3, JSON.stringify(c.events[0]));
  });

  // Mixtral: a llama file with experts (llama.cpp's llama loader reads them where expert_count is set)
  test('llama with experts (Mixtral: softmax router, renormalised weights, experts as wide as feed_forward_length): forward equals llama.cpp, gradients, training', () => {
    const made = endToEnd('llama', ['--layers', '2'], 'llama-spm', [['f32', 1e-5], ['q4_k_m', 2e-2]], 'q4_k_m', { expertWidth: [] });
    const scan = honeTrain(['scan', '--model', made('f32', 2), '--json']).events.find((e) => e.type === 'scan')!;
    assert.ok(scan.ops.includes('MUL_MAT_ID'), JSON.stringify(scan.ops)); // llama.cpp's own graph routes the experts too
    const shared = honeTrain(['make-model', '--arch', 'llama', '--experts', '4', '--shared-ff', '64', '--vocab-from', vocab('llama-spm'), '--out', join(dir, 'x.gguf')]);
    assert.notEqual(shared.code, 0);
    assert.match(shared.stderr, /--shared-ff/); // llama.cpp's llama graph has no shared expert
  });

  test('gpt-oss (biased router, softmax over the selected logits, biased experts, SwiGLU-OAI; sinks, windows, YaRN): forward equals llama.cpp, gradients, training; llama.cpp\'s own graph needs ADD_ID and SWIGLU_OAI backwards, ours does not', () => {
    const made = endToEnd('gpt-oss', ['--layers', '2', '--head-dim', '32', '--rope-yarn', '4:16', '--kv', 'attention.sliding_window=5'], 'llama-spm',
      [['f32', 1e-5], ['q8_0', 2e-2], ['q4_k_m', 2e-2]], 'q4_k_m');
    const scan = honeTrain(['scan', '--model', made('f32', 2), '--json']).events.find((e) => e.type === 'scan')!;
    assert.deepEqual([...scan.no_backward].sort(), ['ADD_ID', 'SWIGLU_OAI'], JSON.stringify(scan));
  });

  test('the scan finds a backward for every op of llama.cpp\'s qwen3moe graph (top-k indices need none)', () => {
    const model = make('f32', 128);
    const r = honeTrain(['scan', '--model', model, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const s = r.events.find((e) => e.type === 'scan')!;
    assert.deepEqual(s.no_backward, [], JSON.stringify(s));
    assert.ok(s.ops.includes('MUL_MAT_ID') && s.ops.includes('CLAMP'), JSON.stringify(s.ops));
  });
});
