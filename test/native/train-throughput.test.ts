/**
 * Throughput counts real tokens: a step over sequences of known lengths reports exactly their
 * real (non-padding) input tokens, the positions it processed and the rows' fill, in the step
 * events and in run.json; a resumed run counts on from its checkpoint.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { requireFixture } from '../helpers/fixtures.ts';
import { honeTrain, tempDir } from '../helpers/native.ts';
import { makeSequences, writeSequences } from '../helpers/train-data.ts';

const CTX = 32;
// Twelve sequences; the one of 33 tokens fills its row (ctx + 1 tokens: 32 inputs).
const LENGTHS = [4, 30, 17, 9, 33, 12, 6, 25, 20, 8, 14, 29];
const REAL = LENGTHS.reduce((s, n) => s + Math.min(n, CTX), 0);
const POSITIONS = LENGTHS.length * CTX;

describe('real tokens per second', () => {
  const dir = tempDir();
  const data = writeSequences(join(dir, 'train.jsonl'), makeSequences(5, LENGTHS));
  // a batch of all twelve, one a row: every step is one epoch and holds the same real tokens and positions
  const args = (out: string, steps: number) => ['--data', data, '--out', join(dir, out), '--steps', String(steps), '--ctx', String(CTX),
    '--batch', '12', '--ubatch', '4', '--lr', '1e-3', '--pack', 'false', '--json'];

  test('step events and run.json count real tokens and the rows\' fill, never padding', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const r = honeTrain(['--model', model, ...args('plain', 3)]);
    assert.equal(r.code, 0, r.stderr);
    const steps = r.events.filter((e) => e.type === 'step');
    assert.equal(steps.length, 3);
    steps.forEach((e, i) => {
      assert.equal(e.tokens, REAL * (i + 1), `step ${i + 1} tokens`);
      assert.equal(e.positions, POSITIONS * (i + 1), `step ${i + 1} positions`);
      assert.ok(Math.abs(e.row_fill - REAL / POSITIONS) < 1e-6, `step ${i + 1} fill ${e.row_fill}`);
      assert.ok(e.tokens_per_s > 0);
    });
    const run = JSON.parse(readFileSync(join(dir, 'plain', 'run.json'), 'utf8'));
    assert.equal(run.metrics.tokens, 3 * REAL);
    assert.equal(run.metrics.positions, 3 * POSITIONS);
    assert.ok(Math.abs(run.metrics.rowFill - REAL / POSITIONS) < 1e-12);
    assert.ok(Math.abs(run.metrics.tokensPerS - run.metrics.tokens / run.metrics.elapsedS) < 1e-6 * run.metrics.tokensPerS);
  });

  test('a resumed run counts on from its checkpoint', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const first = honeTrain(['--model', model, ...args('cut', 3), '--checkpoint-every', '2']);
    assert.equal(first.code, 0, first.stderr);
    const resumed = honeTrain(['--resume', join(dir, 'cut', 'checkpoints', '2'), '--json']);
    assert.equal(resumed.code, 0, resumed.stderr);
    const step3 = resumed.events.find((e) => e.type === 'step' && e.step === 3);
    assert.ok(step3, resumed.stdout);
    assert.equal(step3.tokens, 3 * REAL);
    assert.equal(step3.positions, 3 * POSITIONS);
  });
});
