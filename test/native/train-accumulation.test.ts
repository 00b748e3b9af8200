/**
 * Gradient accumulation: N micro-batches holding different numbers of loss tokens give the
 * update of one batch holding them all, and the accumulators start from zero every
 * optimizer step (the upstream bug class where each step applies the sum of all gradients
 * so far). Compared on the adapters and AdamW moments that checkpoints hold, read with the
 * tests' own GGUF reader. "Relative difference" is ||a - b|| / ||a|| over all tensors: F32
 * sums in another order differ in the last bits, and elements whose gradient nearly cancels
 * carry that noise into AdamW's normalised update, so element-wise ratios are not a measure.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { requireFixture } from '../helpers/fixtures.ts';
import { l2RelativeDifference, readGguf } from '../helpers/gguf.ts';
import { honeTrain, stepLosses, tempDir } from '../helpers/native.ts';
import { makeSequences, relDiff, writeSequences } from '../helpers/train-data.ts';

const CTX = 32;

describe('gradient accumulation', () => {
  const dir = tempDir();
  // Twelve sequences of 4 to 33 tokens, half with an unmasked prompt: every micro-batch of
  // a step carries a different number of loss tokens.
  const data = writeSequences(join(dir, 'train.jsonl'), makeSequences(11, [4, 30, 17, 9, 33, 12, 6, 25, 20, 8, 14, 29]));

  function train(model: string, out: string, batch: number, ubatch: number, extra: string[] = []) {
    const r = honeTrain(['--model', model, '--data', data, '--out', join(dir, out), '--steps', '3', '--ctx', String(CTX),
      '--batch', String(batch), '--ubatch', String(ubatch), '--lr', '1e-2', '--max-grad-norm', '0', '--checkpoint-every', '1',
      '--keep-checkpoints', '0', '--json', ...extra]);
    assert.equal(r.code, 0, r.stderr);
    return r;
  }

  test('4 micro-batches of 1, or 2 of 2, give the gradient and update of one batch of 4 (relative difference <= 1e-6)', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const whole = train(model, 'whole', 4, 4);
    const steps = whole.events.filter((e) => e.type === 'step');
    assert.ok(new Set(steps.map((e) => e.loss_tokens)).size > 1, 'steps carry different numbers of loss tokens');
    for (const ubatch of [1, 2]) {
      const acc = train(model, `acc${ubatch}`, 4, ubatch);
      const accSteps = acc.events.filter((e) => e.type === 'step');
      for (let i = 0; i < 3; i++) {
        assert.equal(accSteps[i].loss_tokens, steps[i].loss_tokens);
        assert.ok(relDiff(accSteps[i].loss, steps[i].loss) <= 1e-6, `step ${i + 1} loss: ${accSteps[i].loss} vs ${steps[i].loss}`);
        assert.ok(relDiff(accSteps[i].grad_norm, steps[i].grad_norm) <= 1e-5, `step ${i + 1} grad norm: ${accSteps[i].grad_norm} vs ${steps[i].grad_norm}`);
      }
      const ckpt = (run: string, step: number, file: string) => readGguf(join(dir, run, 'checkpoints', String(step), file));
      // Step 1 starts from the same adapter (B = 0) in both runs: its update is B after step 1,
      // and its gradient is the first moment divided by (1 - beta1).
      const isB = (n: string) => n.endsWith('.lora_b');
      const isM = (n: string) => n.startsWith('adamw_m.');
      const du = l2RelativeDifference(ckpt('whole', 1, 'adapter.gguf'), ckpt(`acc${ubatch}`, 1, 'adapter.gguf'), isB);
      assert.ok(du <= 1e-6, `ubatch ${ubatch}: step 1 updates differ by ${du}`);
      for (const step of [1, 2, 3]) {
        const dg = l2RelativeDifference(ckpt('whole', step, 'optimizer.gguf'), ckpt(`acc${ubatch}`, step, 'optimizer.gguf'), isM);
        assert.ok(dg <= 1e-6, `ubatch ${ubatch}, step ${step}: first moments (gradients) differ by ${dg}`);
        // Later updates start from adapters that already differ in the last bits, and AdamW's
        // normalisation amplifies that a little every step: 1e-5 after three steps.
        const da = l2RelativeDifference(ckpt('whole', step, 'adapter.gguf'), ckpt(`acc${ubatch}`, step, 'adapter.gguf'));
        assert.ok(da <= (step === 1 ? 1e-6 : 1e-5), `ubatch ${ubatch}, step ${step}: adapters differ by ${da}`);
      }
    }
  });

  test('accumulators are zeroed every step: step 2 of a run has the gradient of a fresh process resumed after step 1', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const run = train(model, 'zero', 4, 2);
    const resumed = honeTrain(['--resume', join(dir, 'zero', 'checkpoints', '1'), '--out', join(dir, 'zero-resumed'), '--json']);
    assert.equal(resumed.code, 0, resumed.stderr);
    const a = run.events.filter((e) => e.type === 'step');
    const b = resumed.events.filter((e) => e.type === 'step');
    assert.deepEqual(b.map((e) => e.step), [2, 3]);
    for (let i = 0; i < 2; i++) assert.equal(b[i].grad_norm, a[i + 1].grad_norm, `step ${i + 2} gradient norm`);
    // A gradient that kept step 1's would be far larger than step 1's own at step 2.
    assert.ok(a[1].grad_norm < 2 * a[0].grad_norm);
    // The first moment after step 1 is (1 - beta1) * g1: the reported norm is that gradient's.
    const m = readGguf(join(dir, 'zero', 'checkpoints', '1', 'optimizer.gguf'));
    let sq = 0;
    for (const [name, v] of m.tensors) if (name.startsWith('adamw_m.')) for (const x of v) sq += x * x;
    assert.ok(relDiff(Math.sqrt(sq) / 0.1, a[0].grad_norm) < 1e-4, `|m1|/(1-beta1) = ${Math.sqrt(sq) / 0.1}, reported ${a[0].grad_norm}`);
    assert.deepEqual(stepLosses(resumed), stepLosses(run).slice(1));
  });
});
