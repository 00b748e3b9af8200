/**
 * Packing: a step's sequences share rows of ctx positions, with attention that never crosses
 * from one sequence to the next and positions that restart at each. A packed step gives the
 * loss and gradients of the same sequences unpacked, in fewer processed positions; a sequence's
 * loss does not change, to the bit, when the sequence it shares a row with does; and a packed
 * run resumed from a checkpoint continues exactly.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { requireFixture } from '../helpers/fixtures.ts';
import { l2RelativeDifference, readGguf } from '../helpers/gguf.ts';
import { honeTrain, tempDir } from '../helpers/native.ts';
import { makeSequences, relDiff, writeSequences } from '../helpers/train-data.ts';

const CTX = 32;

describe('packed rows', () => {
  const dir = tempDir();
  // twelve sequences of 3 to 33 tokens, half with a prompt that carries no loss
  const data = writeSequences(join(dir, 'train.jsonl'), makeSequences(21, [5, 30, 12, 9, 33, 3, 17, 8, 26, 11, 6, 14]));

  function train(model: string, out: string, pack: boolean, extra: string[] = []) {
    const r = honeTrain(['--model', model, '--data', data, '--out', join(dir, out), '--steps', '3', '--ctx', String(CTX), '--batch', '6',
      '--ubatch', '2', '--lr', '1e-2', '--max-grad-norm', '0', '--checkpoint-every', '1', '--keep-checkpoints', '0', '--pack', String(pack), '--json', ...extra]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.events.find((e) => e.type === 'start')?.packed, pack);
    return r.events.filter((e) => e.type === 'step');
  }

  test('a packed step has the unpacked step\'s loss and gradients (relative difference <= 1e-5) in fewer positions', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const packed = train(model, 'packed', true);
    const plain = train(model, 'plain', false);
    for (let i = 0; i < 3; i++) {
      assert.equal(packed[i].loss_tokens, plain[i].loss_tokens);
      assert.equal(packed[i].tokens, plain[i].tokens, 'the same real tokens');
      assert.ok(relDiff(packed[i].loss, plain[i].loss) <= 1e-5, `step ${i + 1} loss ${packed[i].loss} vs ${plain[i].loss}`);
      assert.ok(relDiff(packed[i].grad_norm, plain[i].grad_norm) <= 1e-5, `step ${i + 1} grad norm ${packed[i].grad_norm} vs ${plain[i].grad_norm}`);
    }
    assert.ok(packed[2].positions < plain[2].positions, `packed ${packed[2].positions} positions, unpacked ${plain[2].positions}`);
    assert.ok(packed[2].row_fill > plain[2].row_fill);
    // step 1's gradient is AdamW's first moment over (1 - beta1); later steps compare the updates
    const ckpt = (run: string, step: number, file: string) => readGguf(join(dir, run, 'checkpoints', String(step), file));
    const moments = l2RelativeDifference(ckpt('packed', 1, 'optimizer.gguf'), ckpt('plain', 1, 'optimizer.gguf'), (n) => n.startsWith('adamw_m.'));
    assert.ok(moments <= 1e-5, `step 1 gradients differ by ${moments}`);
    const adapters = l2RelativeDifference(ckpt('packed', 3, 'adapter.gguf'), ckpt('plain', 3, 'adapter.gguf'));
    assert.ok(adapters <= 1e-4, `adapters after 3 steps differ by ${adapters}`);
  });

  test('a sequence\'s loss and gradient do not change, to the bit, when its row\'s other sequence does', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    // 20 tokens that carry no loss, then 10 that do: packed together in one row of 32
    const [first, second] = makeSequences(3, [20, 10]);
    const silent = { tokens: first.tokens, loss_mask: first.tokens.map(() => 0) };
    const other = { tokens: first.tokens.map((x) => (x % 60) + 1), loss_mask: silent.loss_mask };
    assert.notDeepEqual(other.tokens, silent.tokens);
    const step = (name: string, seqs: object[], pack = true) => {
      const file = writeSequences(join(dir, `${name}.jsonl`), seqs as never);
      const r = honeTrain(['--model', model, '--data', file, '--out', join(dir, name), '--steps', '1', '--ctx', String(CTX), '--batch', '2', '--ubatch', '1',
        '--lr', '1e-3', '--pack', String(pack), '--json']);
      assert.equal(r.code, 0, r.stderr);
      return r.events.find((e) => e.type === 'step')!;
    };
    const a = step('probe-a', [silent, second]);
    const b = step('probe-b', [other, second]);
    assert.equal(a.positions, CTX, 'both sequences share one row');
    assert.equal(a.loss, b.loss);
    assert.equal(a.grad_norm, b.grad_norm);
    // the same probe unpacked: the second sequence alone in its row gives the same loss
    const alone = step('probe-alone', [silent, second], false);
    assert.ok(relDiff(alone.loss, a.loss) <= 1e-6, `unpacked ${alone.loss}, packed ${a.loss}`);
  });

  test('hone-train --ctx auto takes the smallest multiple of 64 that holds 99% of the sequences whole', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    // a hundred sequences: 98 of 20 tokens and two of 150, the 99th percentile: 149 inputs, ctx 192
    const lengths = [...Array.from({ length: 98 }, () => 20), 150, 150];
    const file = writeSequences(join(dir, 'auto.jsonl'), makeSequences(9, lengths));
    const r = honeTrain(['--model', model, '--data', file, '--out', join(dir, 'auto'), '--steps', '1', '--ctx', 'auto', '--batch', '8', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.events.find((e) => e.type === 'start')?.truncated, 0);
    assert.equal(JSON.parse(readFileSync(join(dir, 'auto', 'run.json'), 'utf8')).config.ctx, 192);
  });

  test('token-budget steps: each step holds at most the budget\'s real tokens, and an epoch trains every sequence once', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const lengths = [5, 30, 12, 9, 33, 3, 17, 8, 26, 11, 6, 14];
    const real = lengths.reduce((s, n) => s + Math.min(n, CTX), 0);
    const r = honeTrain(['--model', model, '--data', data, '--out', join(dir, 'budget'), '--epochs', '1', '--ctx', String(CTX), '--batch-tokens', '40',
      '--ubatch', '1', '--lr', '1e-3', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const steps = r.events.filter((e) => e.type === 'step');
    assert.ok(steps.length > 3 && steps.length < lengths.length, `${steps.length} steps`);
    let before = 0;
    for (const e of steps) {
      assert.equal(e.n_steps, steps.length);
      assert.ok(e.tokens - before > 0 && e.tokens - before <= 40, `step ${e.step} holds ${e.tokens - before} tokens`);
      before = e.tokens;
    }
    assert.equal(before, real, 'one epoch: every sequence once');
  });

  test('a packed run resumed from its checkpoint continues exactly', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const whole = train(model, 'whole', true);
    const resumed = honeTrain(['--resume', join(dir, 'whole', 'checkpoints', '1'), '--out', join(dir, 'resumed'), '--json']);
    assert.equal(resumed.code, 0, resumed.stderr);
    const later = resumed.events.filter((e) => e.type === 'step');
    assert.deepEqual(later.map((e) => [e.step, e.loss, e.grad_norm, e.tokens, e.positions]), whole.slice(1).map((e) => [e.step, e.loss, e.grad_norm, e.tokens, e.positions]));
  });
});
