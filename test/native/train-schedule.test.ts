/**
 * Learning-rate schedules, gradient-norm clipping and weight decay, each checked against
 * its stated definition (docs/training.md) with numbers the test computes itself or reads
 * from checkpoints with its own GGUF reader.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { requireFixture } from '../helpers/fixtures.ts';
import { readGguf } from '../helpers/gguf.ts';
import { honeTrain, tempDir } from '../helpers/native.ts';
import { makeSequences, relDiff, writeSequences } from '../helpers/train-data.ts';

const CTX = 32;

/** The documented schedule: linear warm-up to lr over W steps, then decay to lrMin. */
function expectedLr(kind: string, step: number, n: number, lr: number, W: number, lrMin: number): number {
  if (step <= W) return (lr * step) / W;
  if (kind === 'constant') return lr;
  const p = (step - W - 1) / (n - W);
  if (kind === 'linear') return lrMin + (lr - lrMin) * (1 - p);
  return lrMin + (lr - lrMin) * 0.5 * (1 + Math.cos(Math.PI * p));
}

describe('schedules, clipping and weight decay', () => {
  const dir = tempDir();
  const data = writeSequences(join(dir, 'train.jsonl'), makeSequences(5, [10, 25, 33, 7, 18, 30, 12, 22]));
  const base = (model: string, out: string) => ['--model', model, '--data', data, '--out', join(dir, out), '--ctx', String(CTX), '--json'];

  test('the learning rate warms up linearly, then stays constant or decays linearly or by a cosine to --lr-min', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    for (const kind of ['constant', 'linear', 'cosine']) {
      const r = honeTrain([...base(model, `lr-${kind}`), '--steps', '10', '--lr', '2e-3', '--warmup', '3', '--lr-min', '2e-4', '--schedule', kind]);
      assert.equal(r.code, 0, r.stderr);
      const lrs = r.events.filter((e) => e.type === 'step').map((e) => e.lr as number);
      assert.equal(lrs.length, 10);
      lrs.forEach((lr, i) => {
        const want = expectedLr(kind, i + 1, 10, 2e-3, 3, 2e-4);
        assert.ok(relDiff(lr, want) < 1e-6, `${kind} step ${i + 1}: lr ${lr}, expected ${want}`);
      });
      assert.ok(lrs[0] > 0 && lrs[3] === Math.max(...lrs), `${kind}: the first step learns, the peak is right after warm-up`);
    }
  });

  test('clipping scales the gradient to --max-grad-norm; the norm reported is the one before clipping', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const run = (out: string, maxNorm: string) => {
      const r = honeTrain([...base(model, out), '--steps', '1', '--batch', '4', '--ubatch', '2', '--lr', '1e-3', '--max-grad-norm', maxNorm,
        '--checkpoint-every', '1']);
      assert.equal(r.code, 0, r.stderr);
      return { step: r.events.find((e) => e.type === 'step')!, m: readGguf(join(dir, out, 'checkpoints', '1', 'optimizer.gguf')) };
    };
    const free = run('clip-off', '0');
    const clipped = run('clip-on', '0.05');
    const norm = free.step.grad_norm as number;
    assert.ok(norm > 0.05, `the gradient norm (${norm}) must exceed the limit for this test to mean anything`);
    assert.equal(free.step.clip_scale, 1);
    assert.equal(clipped.step.grad_norm, norm, 'the reported norm is measured before clipping');
    assert.ok(relDiff(clipped.step.clip_scale, 0.05 / norm) < 1e-6);
    // After one step the first moment is (1 - beta1) times the gradient actually applied.
    let sq = 0;
    for (const [name, mOff] of free.m.tensors) {
      if (!name.startsWith('adamw_m.')) continue;
      const mOn = clipped.m.tensors.get(name)!;
      for (let i = 0; i < mOff.length; i++) {
        sq += mOff[i] * mOff[i];
        assert.ok(Math.abs(mOn[i] - mOff[i] * (0.05 / norm)) <= 1e-6 * Math.abs(mOff[i]) + 1e-12, `${name}[${i}] is not scaled by the clip factor`);
      }
    }
    assert.ok(relDiff(Math.sqrt(sq) / 0.1, norm) < 1e-4, 'the reported norm is the L2 norm of the whole gradient');
  });

  test('AdamW once over the adapter, and the norm and clipping over the flat accumulator, match the per-tensor graphs', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const run = (out: string, env: Record<string, string>) => {
      const r = honeTrain([...base(model, out), '--steps', '3', '--lr', '1e-3', '--max-grad-norm', '0.05', '--weight-decay', '0.1',
        '--checkpoint-every', '3'], undefined, env);
      assert.equal(r.code, 0, r.stderr);
      const ops = JSON.parse(readFileSync(join(dir, out, 'ops.json'), 'utf8'));
      const cp = join(dir, out, 'checkpoints', '3');
      return { steps: r.events.filter((e) => e.type === 'step'), m: readGguf(join(cp, 'optimizer.gguf')), ad: readGguf(join(cp, 'adapter.gguf')),
        adamwNodes: ops.nodes.filter((n: { op: string }) => n.op === 'OPT_STEP_ADAMW').length, trainable: ops.graph.trainable_tensors as number };
    };
    const flat = run('flat-on', {});
    const adamwPerTensor = run('flat-adamw-off', { HONE_FLAT_ADAMW: '0' });
    const perTensor = run('flat-off', { HONE_FLAT_GRADIENTS: '0' });
    assert.equal(flat.adamwNodes, 1, 'one AdamW node over the whole adapter');
    assert.equal(adamwPerTensor.adamwNodes, flat.trainable, 'HONE_FLAT_ADAMW=0: one AdamW node per tensor');
    assert.equal(perTensor.adamwNodes, flat.trainable);
    assert.equal(flat.steps.length, 3);
    flat.steps.forEach((e, i) => {
      assert.ok((e.clip_scale as number) < 1, `step ${i + 1} is clipped`);
      for (const k of ['loss', 'grad_norm', 'clip_scale']) {
        assert.equal(e[k], adamwPerTensor.steps[i][k], `step ${i + 1} ${k}: AdamW over the buffer or per tensor, the same numbers`);
        assert.ok(relDiff(e[k] as number, perTensor.steps[i][k] as number) < 1e-5, `step ${i + 1} ${k}: ${e[k]} vs ${perTensor.steps[i][k]}`);
      }
    });
    // every tensor's moments and weights: a view at the wrong offset would update it with another's
    // gradient. Against the per-tensor norm (summed in another order) the moments differ by about
    // 1e-5 of their size and, over three steps, the weights by up to about 1e-3 of the learning rate.
    let n = 0;
    for (const [file, key, abs] of [['moments', 'm', 1e-9], ['adapter', 'ad', 2e-6]] as const) {
      for (const [name, a] of flat[key].tensors) {
        const same = adamwPerTensor[key].tensors.get(name)!;
        const b = perTensor[key].tensors.get(name)!;
        assert.deepEqual(a, same, `${file} ${name}: AdamW over the buffer and per tensor differ`);
        for (let i = 0; i < a.length; i++) assert.ok(Math.abs(a[i] - b[i]) <= 1e-4 * Math.abs(b[i]) + abs, `${name}[${i}]: ${a[i]} vs ${b[i]}`);
        n++;
      }
    }
    assert.ok(n >= 3 * flat.trainable, `${n} tensors compared`);
  });

  test('weight decay is decoupled: each weight shrinks by lr * decay per step, whatever its gradient', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const run = (out: string, wd: string) => {
      const r = honeTrain([...base(model, out), '--steps', '1', '--lr', '1e-2', '--weight-decay', wd, '--checkpoint-every', '1']);
      assert.equal(r.code, 0, r.stderr);
      return readGguf(join(dir, out, 'checkpoints', '1', 'adapter.gguf'));
    };
    const plain = run('wd-0', '0');
    const decayed = run('wd-1', '0.5');
    const keep = 1 - 1e-2 * 0.5;
    let checked = 0;
    for (const [name, a] of plain.tensors) {
      // A gets no gradient on the first step (B starts at zero), so A = A0 and decay alone shows.
      if (!name.endsWith('.lora_a')) continue;
      const b = decayed.tensors.get(name)!;
      for (let i = 0; i < a.length; i++) assert.ok(Math.abs(b[i] - a[i] * keep) <= 1e-6 * Math.abs(a[i]), `${name}[${i}]: ${b[i]} vs ${a[i] * keep}`);
      checked++;
    }
    assert.ok(checked > 0);
  });

  test('bad schedule settings are refused with the setting named', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const cases: Array<[string[], RegExp]> = [
      [['--schedule', 'exponential'], /unknown learning-rate schedule 'exponential' \(constant, linear or cosine\)/],
      [['--warmup', '5'], /warm-up steps \(5\) must be fewer than the steps \(5\)/],
      [['--lr-min', '1'], /minimum learning rate \(1\) must be in \[0, lr = 0\.0001\]/],
      [['--max-grad-norm', '-1'], /maximum gradient norm must be >= 0/],
      [['--eval-split', '1.5'], /--eval-split must be in \[0, 1\)/],
    ];
    for (const [args, pattern] of cases) {
      const r = honeTrain([...base(model, 'bad'), '--steps', '5', ...args]);
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, pattern);
    }
  });
});
