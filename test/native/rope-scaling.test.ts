/**
 * Long-context position scaling as released files carry it: YaRN RoPE scaling
 * (rope.scaling.type "yarn": gpt-oss, Mistral 3, OLMo 3), LongRoPE's frequency factors (Phi-3 128k,
 * Phi-3.5, Phi-4-mini), YaRN's ext_factor, original context and
 * attention factor the training graph passes to the rope op (and so to its backward), and
 * Mistral 3's attention temperature (Q scaled per position after RoPE). Checked on synthetic
 * models whose original context is short enough that the frequencies are a real mix of
 * interpolated and extrapolated ones and the temperature changes within the text: forward equal
 * to llama.cpp with a non-zero adapter, different from the unscaled model's, gradients against
 * finite differences, a training run whose loss falls.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { honeTrain, tempDir, vocab } from '../helpers/native.ts';

const TEXT = 'Once upon a time, there was a little dog named Max. He loved to run in the park with his red ball, and he ran every day.';

const CASES = [
  { name: 'llama, normal RoPE, factor 4 over 16 positions', arch: 'llama', yarn: '4:16', extra: [] as string[] },
  { name: 'qwen3, NeoX RoPE, factor 8 over 24 positions, attention factor 0.9', arch: 'qwen3', yarn: '8:24:0.9', extra: ['--head-dim', '32'] },
  { name: 'mistral3, factor 4 over 8 positions, attention temperature 0.5', arch: 'mistral3', yarn: '4:8', extra: ['--kv', 'attention.temperature_scale=0.5'] },
  // Mellum's windowed layer (0) runs plain RoPE, its global layer (1) the scaled one; top 2 of 4
  // experts: a step of 1e-3, which moves no token's selection
  { name: 'mellum, factor 4 over 16 positions in its global layer, plain RoPE in its windowed one', arch: 'mellum', yarn: '4:16',
    extra: ['--experts', '4', '--experts-used', '2', '--expert-ff', '32', '--kv', 'attention.sliding_window=3,attention.sliding_window_pattern=2'], eps: '1e-3' },
] as { name: string; arch: string; yarn: string; extra: string[]; eps?: string }[];

/**
 * Asserts that training lowered the loss: the mean of the last four of 12 steps against the mean
 * of the first four (falls of 0.13 to 0.32 measured; at a learning rate of 1e-9 the two means
 * agree to 1e-6: the text has four windows, so each mean covers all of them). One step's loss is
 * one window of the text, and windows differ by about 0.1 here, so one step against another
 * said more about the windows, and through rounding at this learning rate about the
 * machine, than about training.
 */
function assertLossFalls(losses: number[]) {
  assert.equal(losses.length, 12);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const first = mean(losses.slice(0, 4)), last = mean(losses.slice(-4));
  assert.ok(last < first - 0.08, `mean loss of the first four steps ${first}, of the last four ${last}: ${losses.join(' ')}`);
}

describe('RoPE scaling: YaRN, attention temperature', () => {
  const dir = tempDir();
  const data = join(dir, 'text.txt');
  writeFileSync(data, TEXT.repeat(6));
  for (const c of CASES) {
    test(`${c.name}: forward equals llama.cpp, gradients match finite differences, the loss falls`, () => {
      const model = join(dir, `${c.arch}-yarn.gguf`);
      const make = (out: string, yarn: string[]) => honeTrain(['make-model', '--arch', c.arch, '--embd', '64', '--layers', '2', '--heads', '4',
        '--kv-heads', '2', '--ff', '128', ...c.extra, ...yarn, '--vocab-from', vocab('llama-spm'), '--out', out]);
      const m = make(model, ['--rope-yarn', c.yarn]);
      assert.equal(m.code, 0, m.stderr);

      const fwd = honeTrain(['check-forward', '--model', model, '--perturb-b', '0.05', '--text', TEXT, '--json']);
      assert.equal(fwd.code, 0, fwd.stderr);
      assert.ok(fwd.events[0].max_rel_diff <= 1e-5, JSON.stringify(fwd.events[0]));
      // the scaling changes the logits: the same weights without it give others
      const plain = join(dir, `${c.arch}-plain.gguf`);
      assert.equal(make(plain, []).code, 0);
      const apart = honeTrain(['compare-logits', '--model', model, '--model-b', plain, '--text', TEXT, '--json']);
      assert.equal(apart.code, 0, apart.stderr);
      assert.ok(apart.events[0].max_rel_diff > 1e-3, `YaRN must change llama.cpp's logits: ${JSON.stringify(apart.events[0])}`);

      const g = honeTrain(['check-grad', '--model', model, '--elements', '4', '--seed', '3', '--json', ...(c.eps ? ['--eps', c.eps] : [])]);
      const summary = g.events.find((e) => e.type === 'check-grad')!;
      assert.equal(g.code, 0, g.stdout + g.stderr);
      assert.equal(summary.pass, true, JSON.stringify(summary));
      assert.ok(summary.checked >= 5 && summary.vector_rel_error < 1e-3, JSON.stringify(summary));

      const r = honeTrain(['--model', model, '--data', data, '--out', join(dir, `${c.arch}-run`), '--steps', '12', '--ctx', '48', '--lr', '5e-2', '--json']);
      assert.equal(r.code, 0, r.stderr);
      assertLossFalls(r.events.filter((e) => e.type === 'step').map((e) => e.loss as number));
    });
  }

  // LongRoPE: two sets of per-dimension frequency factors; llama.cpp applies the long set when its
  // context passes the original one, else the short set. check-forward's reference context is 256
  // (llama.cpp pads contexts to 256), so an original context of 512 takes the short set and one
  // of 128 the long set; training windows pick as that context would.
  test('LongRoPE (Phi-3 128k, Phi-3.5, Phi-4-mini): the short factors within the original context, the long ones past it, as llama.cpp; gradients, the loss falls', () => {
    const made = (orig: number) => {
      const out = join(dir, `phi3-longrope-${orig}.gguf`);
      const m = honeTrain(['make-model', '--arch', 'phi3', '--embd', '64', '--layers', '2', '--heads', '4', '--kv-heads', '2', '--ff', '128',
        '--longrope', String(orig), '--vocab-from', vocab('phi-3'), '--out', out]);
      assert.equal(m.code, 0, m.stderr);
      return out;
    };
    const short = made(512), long = made(128);
    for (const model of [short, long]) {
      const fwd = honeTrain(['check-forward', '--model', model, '--perturb-b', '0.05', '--text', TEXT, '--json']);
      assert.equal(fwd.code, 0, fwd.stderr);
      assert.ok(fwd.events[0].max_rel_diff <= 1e-5, `${model}: ${JSON.stringify(fwd.events[0])}`);
    }
    // the same weights under the two sets give llama.cpp different logits: each check above saw its own set
    const apart = honeTrain(['compare-logits', '--model', short, '--model-b', long, '--text', TEXT, '--json']);
    assert.equal(apart.code, 0, apart.stderr);
    assert.ok(apart.events[0].max_rel_diff > 1e-3, `the long factors must change llama.cpp's logits: ${JSON.stringify(apart.events[0])}`);

    const g = honeTrain(['check-grad', '--model', short, '--elements', '4', '--seed', '3', '--json']);
    const summary = g.events.find((e) => e.type === 'check-grad')!;
    assert.equal(g.code, 0, g.stdout + g.stderr);
    assert.ok(summary.pass && summary.checked >= 5 && summary.vector_rel_error < 1e-3, JSON.stringify(summary));
    const r = honeTrain(['--model', long, '--data', data, '--out', join(dir, 'phi3-longrope-run'), '--steps', '12', '--ctx', '48', '--lr', '5e-2', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assertLossFalls(r.events.filter((e) => e.type === 'step').map((e) => e.loss as number));
  });

  test('a malformed --rope-yarn is refused naming its form', () => {
    const r = honeTrain(['make-model', '--arch', 'llama', '--rope-yarn', '0.5:16', '--vocab-from', vocab('llama-spm'), '--out', join(dir, 'bad.gguf')]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /--rope-yarn takes FACTOR:ORIGINAL_CONTEXT\[:ATTN_FACTOR\] with FACTOR > 1, got '0.5:16'/);
  });
});
