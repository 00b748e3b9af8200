/**
 * The engine foundation end to end through hone-train: a LoRA trains against a frozen GGUF
 * base (F32, Q8_0, Q4_K_M), the base file is untouched, and the exported adapter, loaded by
 * llama.cpp's own adapter loader and run through llama_decode, gives the engine's logits.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { requireFixture } from '../helpers/fixtures.ts';
import { bin, honeTrain, makeModel, run, sha256, stepLosses, tempDir } from '../helpers/native.ts';

// On quantized bases MUL_MAT quantizes its activations (to Q8_0/Q8_K blocks), so a last-bit
// difference between the two graphs can move an activation across a rounding boundary and
// shift that element by up to one quantization step: agreement is close, not bit-exact.
const QUANTIZED_MAX_REL = 2e-2;

const TEXT =
  'Once upon a time, there was a little dog named Max. Max loved to run in the park with his red ball. ' +
  'One day, Max saw a big cat under a tree. The cat was sad because it could not find its home.';

function trainAndVerify(model: string, opts: { steps: number; lr: string; ctx?: number; targets?: string; prompt: string; maxRel: number }) {
  const dir = tempDir();
  const data = join(dir, 'text.txt');
  writeFileSync(data, TEXT);
  const out = join(dir, 'run');
  const before = sha256(model);
  const r = honeTrain(['--model', model, '--data', data, '--out', out, '--steps', String(opts.steps), '--ctx', String(opts.ctx ?? 64),
    '--lr', opts.lr, '--rank', '4', '--alpha', '8', '--targets', opts.targets ?? 'all', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const losses = stepLosses(r);
  assert.equal(losses.length, opts.steps);
  const first = losses[0];
  const last = losses.slice(-3).reduce((a, b) => a + b, 0) / 3;
  assert.ok(last < 0.8 * first, `loss should fall clearly: first ${first}, last three ${losses.slice(-3)}`);
  assert.equal(sha256(model), before, 'the base model file must be bit-identical after training');

  const adapter = join(out, 'adapter.gguf');
  assert.ok(existsSync(adapter));
  const runJson = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8'));
  assert.equal(runJson.config.rank, 4);
  assert.equal(runJson.config.steps, opts.steps);
  assert.equal(runJson.model.gpuPrecision, '', 'the CPU has no GPU precision to record');
  assert.ok(Math.abs(runJson.metrics.finalLoss - losses.at(-1)!) < 1e-6);

  const check = honeTrain(['check-forward', '--model', model, '--adapter', adapter, '--text', opts.prompt, '--json']);
  assert.equal(check.code, 0, check.stderr);
  const cmp = check.events.find((e) => e.type === 'check-forward')!;
  assert.ok(cmp.tokens > 3);
  assert.ok(cmp.max_rel_diff <= opts.maxRel, `engine vs llama.cpp logits differ by ${cmp.max_rel_diff} (relative)`);
  return { losses, adapter };
}

describe('LoRA training on a resident GGUF base', () => {
  test('stories260K (F32): loss falls, base untouched, exported adapter matches llama.cpp inference', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    trainAndVerify(model, { steps: 30, lr: '1e-2', prompt: 'Max saw a big cat under a tree.', maxRel: 1e-5 });
  });

  test('stories260K quantized to Q8_0 by llama-quantize', (t) => {
    const src = requireFixture(t, 'stories260K.gguf');
    if (!src) return;
    const dir = tempDir();
    const q8 = join(dir, 'stories260K-q8_0.gguf');
    const q = run(bin('llama-quantize'), [src, q8, 'Q8_0']);
    assert.equal(q.code, 0, q.stderr);
    trainAndVerify(q8, { steps: 30, lr: '1e-2', prompt: 'Max saw a big cat under a tree.', maxRel: QUANTIZED_MAX_REL });
  });

  // A random base's output head is too weak to fit text through the inner layers alone, so
  // this model also trains the (untied) output head.
  test('synthetic llama (n_embd 256) at Q4_K_M', () => {
    const dir = tempDir();
    const model = makeModel(dir, { arch: 'llama', embd: 256, layers: 2, heads: 4, kvHeads: 2, ff: 512, type: 'q4_k_m', vocab: 'llama-spm' });
    trainAndVerify(model, { steps: 12, lr: '1e-2', ctx: 64, targets: 'all,output', prompt: 'The cat was sad because it could not find its home.', maxRel: QUANTIZED_MAX_REL });
  });

  test('JSONL with a text field trains the same way as plain text', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const dir = tempDir();
    const data = join(dir, 'd.jsonl');
    writeFileSync(data, TEXT.split('. ').map((s) => JSON.stringify({ text: s + '.', id: 1 })).join('\n') + '\n');
    const r = honeTrain(['--model', model, '--data', data, '--out', join(dir, 'o'), '--steps', '4', '--ctx', '32', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(stepLosses(r).length, 4);
    const run = JSON.parse(readFileSync(join(dir, 'o', 'run.json'), 'utf8'));
    assert.equal(run.data.format, 'jsonl-text');
  });
});
