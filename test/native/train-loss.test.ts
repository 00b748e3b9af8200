/**
 * The trainer's loss is what a careful user assumes: the mean cross-entropy over the loss
 * tokens of the whole optimizer step (not over padding, not a mean of per-micro-batch
 * means), checked against `hone-train score`, which computes it in double precision from the
 * forward pass's logits one unpadded sequence at a time. Same for the held-out eval loss.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { requireFixture } from '../helpers/fixtures.ts';
import { honeTrain, tempDir } from '../helpers/native.ts';
import { lossTokens, makeSequences, relDiff, score, writeSequences } from '../helpers/train-data.ts';

const CTX = 32;
// Lengths from 5 to 40 tokens: padding in every micro-batch, and one sequence (40) longer
// than CTX + 1, which the trainer truncates.
const LENGTHS = [12, 33, 5, 40, 20, 9];

describe('training loss over loss tokens', () => {
  const dir = tempDir();
  const seqs = makeSequences(7, LENGTHS);
  const data = writeSequences(join(dir, 'train.jsonl'), seqs);

  test('the step loss is the mean cross-entropy over the step\'s loss tokens, whatever the micro-batching', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const ref = score(model, data, CTX);
    const expectedTokens = seqs.reduce((n, s) => n + lossTokens(s, CTX), 0);
    assert.equal(ref.lossTokens, expectedTokens, 'score counts the same loss tokens as the test');

    // A mean of per-sequence means differs clearly on this data: the checks below can fail.
    const meanOfMeans = ref.seqs.reduce((a, s) => a + s.nll / s.lossTokens, 0) / ref.seqs.length;
    assert.ok(relDiff(meanOfMeans, ref.mean) > 1e-3, `mean of means ${meanOfMeans} vs token mean ${ref.mean}`);

    for (const ubatch of [6, 3, 2, 1]) {
      // One step over all six sequences: the loss reported is computed before the update.
      const r = honeTrain(['--model', model, '--data', data, '--out', join(dir, `u${ubatch}`), '--steps', '1', '--ctx', String(CTX),
        '--batch', '6', '--ubatch', String(ubatch), '--lr', '1e-3', '--json']);
      assert.equal(r.code, 0, r.stderr);
      const start = r.events.find((e) => e.type === 'start')!;
      assert.equal(start.truncated, 1, 'the 40-token sequence is reported as truncated');
      const step = r.events.find((e) => e.type === 'step')!;
      assert.equal(step.loss_tokens, expectedTokens);
      assert.ok(relDiff(step.loss, ref.mean) < 1e-5, `ubatch ${ubatch}: step loss ${step.loss}, reference ${ref.mean}`);
    }
  });

  test('eval loss on held-out data matches the final adapter\'s loss; evaluated every K steps and after the last', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const evalData = writeSequences(join(dir, 'eval.jsonl'), makeSequences(99, [17, 30, 8, 25, 11]));
    const out = join(dir, 'eval-run');
    const r = honeTrain(['--model', model, '--data', data, '--eval-data', evalData, '--out', out, '--steps', '5', '--ctx', String(CTX),
      '--batch', '2', '--ubatch', '2', '--lr', '1e-2', '--eval-every', '2', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const evals = r.events.filter((e) => e.type === 'eval');
    assert.deepEqual(evals.map((e) => e.step), [2, 4, 5]);
    const ref = score(model, evalData, CTX, join(out, 'adapter.gguf'));
    const last = evals.at(-1)!;
    assert.equal(last.loss_tokens, ref.lossTokens);
    assert.equal(last.sequences, 5);
    assert.ok(relDiff(last.eval_loss, ref.mean) < 1e-5, `eval loss ${last.eval_loss}, reference ${ref.mean}`);
    assert.notEqual(evals[0].eval_loss, last.eval_loss, 'the eval loss moves as the adapter trains');
  });

  test('--eval-split holds out a seeded share of the sequences', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const many = writeSequences(join(dir, 'many.jsonl'), makeSequences(3, Array.from({ length: 20 }, (_, i) => 6 + i)));
    const run = (out: string) => honeTrain(['--model', model, '--data', many, '--out', join(dir, out), '--steps', '2', '--ctx', String(CTX),
      '--eval-split', '0.25', '--json']);
    const a = run('split-a');
    const b = run('split-b');
    assert.equal(a.code, 0, a.stderr);
    const start = a.events.find((e) => e.type === 'start')!;
    assert.equal(start.sequences, 15);
    assert.equal(start.eval_sequences, 5);
    const evalA = a.events.filter((e) => e.type === 'eval');
    assert.equal(evalA.length, 1);
    assert.deepEqual(evalA, b.events.filter((e) => e.type === 'eval'), 'the same seed holds out the same sequences');
  });
});
