/**
 * Checkpoints and resume: a run stopped by a checkpoint (taken mid-warm-up, on Ctrl-C, in
 * the middle of a step's gradient accumulation, or the newest left by a SIGKILL at a random
 * moment) and resumed with `hone-train --resume DIR/checkpoints/<step>` ends with the adapter
 * of the run that was never interrupted. Bad resumes are refused with the problem named.
 */
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { requireFixture } from '../helpers/fixtures.ts';
import { maxRelativeDifference, readGguf } from '../helpers/gguf.ts';
import { honeTrain, makeModel, tempDir } from '../helpers/native.ts';
import { TrainProcess, type Exit } from '../helpers/train-process.ts';
import { makeSequences, rng, writeSequences } from '../helpers/train-data.ts';

const STEPS = 24;

describe('checkpoints and resume', () => {
  const dir = tempDir();
  const data = writeSequences(join(dir, 'train.jsonl'), makeSequences(21, [9, 31, 14, 6, 33, 22, 17, 28, 11, 25, 8, 19, 30, 13]));
  const evalData = writeSequences(join(dir, 'eval.jsonl'), makeSequences(22, [15, 27, 10]));
  // Warm-up over 6 steps, cosine decay, 8 micro-batches of one sequence per step, clipping on.
  const config = (model: string) => ['--model', model, '--data', data, '--eval-data', evalData, '--eval-every', '4', '--steps', String(STEPS),
    '--ctx', '32', '--batch', '8', '--ubatch', '1', '--lr', '1e-2', '--warmup', '6', '--schedule', 'cosine', '--max-grad-norm', '1', '--json'];
  let reference: { dir: string; steps: Array<Record<string, any>>; evals: Array<Record<string, any>> } | null = null;

  function uninterrupted(model: string) {
    if (reference) return reference;
    const out = join(dir, 'reference');
    const r = honeTrain([...config(model), '--out', out, '--checkpoint-every', '3', '--keep-checkpoints', '0']);
    assert.equal(r.code, 0, r.stderr);
    reference = { dir: out, steps: r.events.filter((e) => e.type === 'step'), evals: r.events.filter((e) => e.type === 'eval') };
    return reference;
  }

  function assertSameAdapter(out: string, what: string) {
    const ref = reference!;
    const d = maxRelativeDifference(readGguf(join(ref.dir, 'adapter.gguf')), readGguf(join(out, 'adapter.gguf')));
    assert.ok(d <= 1e-6, `${what}: the adapter differs from the uninterrupted run's by ${d}`);
  }

  function resume(checkpoint: string, out: string, extra: string[] = []) {
    const r = honeTrain(['--resume', checkpoint, '--out', out, '--json', ...extra]);
    assert.equal(r.code, 0, r.stderr);
    return r;
  }

  test('a checkpoint taken mid-warm-up resumes to the adapter, losses and eval losses of the uninterrupted run', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const ref = uninterrupted(model);
    assert.deepEqual(readdirSync(join(ref.dir, 'checkpoints')).sort((a, b) => +a - +b), ['3', '6', '9', '12', '15', '18', '21', '24']);
    const state = JSON.parse(readFileSync(join(ref.dir, 'checkpoints', '3', 'state.json'), 'utf8'));
    assert.equal(state.step, 3);
    assert.equal(state.optimizer.updates, 3);
    assert.equal(state.data.cursor, 24);
    assert.ok(state.schedule.next_lr < 1e-2, 'step 3 of a 6-step warm-up');
    assert.equal(state.config.lr, 1e-2);

    const out = join(dir, 'from-3');
    const r = resume(join(ref.dir, 'checkpoints', '3'), out);
    const steps = r.events.filter((e) => e.type === 'step');
    assert.deepEqual(steps.map((e) => e.step), ref.steps.slice(3).map((e) => e.step));
    for (const k of ['loss', 'lr', 'grad_norm', 'loss_tokens', 'tokens']) {
      assert.deepEqual(steps.map((e) => e[k]), ref.steps.slice(3).map((e) => e[k]), `step ${k}`);
    }
    assert.deepEqual(r.events.filter((e) => e.type === 'eval'), ref.evals);
    assertSameAdapter(out, 'resumed from step 3');
    const dm = maxRelativeDifference(readGguf(join(ref.dir, 'checkpoints', '24', 'optimizer.gguf')), readGguf(join(out, 'checkpoints', '24', 'optimizer.gguf')));
    assert.ok(dm <= 1e-6, `AdamW moments differ by ${dm}`);
    const run = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8'));
    assert.equal(run.status, 'completed');
    assert.equal(run.resumedFrom, join(ref.dir, 'checkpoints', '3'));
  });

  test('Ctrl-C finishes the step, writes a checkpoint and exits 0; resuming it gives the same adapter', async (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    uninterrupted(model);
    const out = join(dir, 'ctrl-c');
    const p: TrainProcess = new TrainProcess([...config(model), '--out', out]);
    await p.waitFor((e) => e.type === 'step' && e.step === 5);
    p.signal('SIGINT');
    const x: Exit = await p.exited;
    assert.equal(x.code, 0, x.stderr);
    const ckpt = x.events.find((e) => e.type === 'checkpoint')!;
    assert.ok(ckpt && ckpt.micro_batch === 0 && ckpt.step >= 5 && ckpt.step < STEPS, JSON.stringify(ckpt));
    const lastStep = x.events.filter((e) => e.type === 'step').at(-1)!;
    assert.equal(lastStep.step, ckpt.step, 'the step in progress was finished, and no other started');
    assert.equal(x.events.find((e) => e.type === 'stopped')?.checkpoint, ckpt.path);
    assert.equal(JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')).status, 'stopped');
    assert.ok(existsSync(join(out, 'adapter.gguf')), 'the adapter so far is written too');

    resume(ckpt.path, out);
    assertSameAdapter(out, `resumed after Ctrl-C at step ${ckpt.step}`);
  });

  test('a second Ctrl-C stops mid-step with the partial gradient in the checkpoint; resuming it gives the same adapter', async (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    uninterrupted(model);
    // The pause lands after whichever micro-batch is running; at a step's last one it is a
    // plain step-boundary checkpoint, so try until one lands inside a step, waiting a little
    // longer after the step event each time.
    for (let attempt = 0; attempt < 12; attempt++) {
      const out = join(dir, `pause-${attempt}`);
      const p: TrainProcess = new TrainProcess([...config(model), '--out', out]);
      await p.waitFor((e) => e.type === 'step' && e.step === 4 + (attempt % 6));
      await new Promise((r) => setTimeout(r, attempt));
      // two presses, as a person makes them: back to back, the second signal arrives while the
      // first is still pending and the kernel merges them into one (a plain stop at the step's end)
      p.signal('SIGINT');
      await new Promise((r) => setTimeout(r, 3));
      p.signal('SIGINT');
      const x: Exit = await p.exited;
      assert.equal(x.code, 0, x.stderr);
      const ckpt = x.events.find((e) => e.type === 'checkpoint')!;
      if (ckpt.micro_batch === 0) continue;
      assert.match(ckpt.path, new RegExp(`checkpoints[\\\\/]${ckpt.step}-${ckpt.micro_batch}$`));
      const state = JSON.parse(readFileSync(join(ckpt.path, 'state.json'), 'utf8'));
      assert.equal(state.micro_batch, ckpt.micro_batch);
      // packed, a micro-batch holds however many sequences fit: the cursor stands at the step's start
      const packed = x.events.find((e) => e.type === 'start')?.packed;
      assert.equal(typeof packed, 'boolean');
      assert.equal(state.data.cursor, ckpt.step * 8 + (packed ? 0 : ckpt.micro_batch));
      const opt = readGguf(join(ckpt.path, 'optimizer.gguf'));
      const grads = [...opt.tensors.keys()].filter((n) => n.startsWith('grad_acc.'));
      assert.ok(grads.length > 0 && grads.some((n) => opt.tensors.get(n)!.some((v) => v !== 0)), 'the partial gradient is saved');

      const r = resume(ckpt.path, out);
      const first = r.events.find((e) => e.type === 'step')!;
      assert.equal(first.step, ckpt.step + 1);
      assert.equal(first.loss, reference!.steps[ckpt.step].loss, 'the interrupted step reports the loss of all its micro-batches');
      assertSameAdapter(out, `resumed mid-step ${ckpt.step + 1} after micro-batch ${ckpt.micro_batch}`);
      return;
    }
    assert.fail('no pause landed inside a step in 12 attempts');
  });

  test('SIGKILL at random moments, also during checkpoint writes, leaves the newest checkpoint loadable', async (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    uninterrupted(model);
    const random = rng(2024);
    let midWrite = 0;
    for (let round = 0; round < 8; round++) {
      const out = join(dir, `kill-${round}`);
      const p: TrainProcess = new TrainProcess([...config(model), '--out', out, '--checkpoint-every', '1', '--keep-checkpoints', '2']);
      // A checkpoint is written right after every step event: a kill a moment after one
      // often lands inside the write (or the pruning of an old one).
      const at = 2 + Math.floor(random() * 18);
      await p.waitFor((e) => e.type === 'step' && e.step === at);
      await new Promise((r) => setTimeout(r, Math.floor(random() * 4)));
      p.signal('SIGKILL');
      const x: Exit = await p.exited;
      assert.equal(x.signal, 'SIGKILL');

      const root = join(out, 'checkpoints');
      const names = readdirSync(root);
      if (names.some((n) => n.endsWith('.tmp') || n.endsWith('.old'))) midWrite++;
      const complete = names.filter((n) => /^\d+$/.test(n)).sort((a, b) => +a - +b);
      assert.ok(complete.length >= 1, `round ${round}: no checkpoint left: ${names}`);
      for (const n of complete) {
        for (const f of ['adapter.gguf', 'optimizer.gguf', 'state.json']) assert.ok(statSync(join(root, n, f)).size > 0, `${n}/${f}`);
        JSON.parse(readFileSync(join(root, n, 'state.json'), 'utf8'));
      }
      resume(join(root, complete.at(-1)!), out);
      assertSameAdapter(out, `round ${round}: resumed from ${complete.at(-1)} after SIGKILL`);
      assert.deepEqual(readdirSync(root).filter((n) => !/^\d+$/.test(n)), [], 'stale temporary folders are cleaned up');
    }
    t.diagnostic(`${midWrite} of 8 kills left a checkpoint write or removal unfinished`);
  });

  test('resume is exact on a quantized synthetic model too (qwen2 with biases and grouped-query attention, Q4_K_M, plain text)', () => {
    const model = makeModel(dir, { arch: 'qwen2', embd: 256, layers: 2, heads: 4, kvHeads: 2, ff: 512, type: 'q4_k_m', vocab: 'qwen2' });
    const text = join(dir, 'story.txt');
    writeFileSync(text, 'The little boat sailed past the lighthouse every morning, and the keeper waved. '.repeat(12));
    const args = ['--model', model, '--data', text, '--steps', '6', '--ctx', '32', '--batch', '4', '--ubatch', '2', '--lr', '1e-2',
      '--warmup', '2', '--schedule', 'linear', '--eval-split', '0.2', '--checkpoint-every', '2', '--keep-checkpoints', '0', '--json'];
    const full = honeTrain([...args, '--out', join(dir, 'q-full')]);
    assert.equal(full.code, 0, full.stderr);
    resume(join(dir, 'q-full', 'checkpoints', '2'), join(dir, 'q-resumed'));
    const d = maxRelativeDifference(readGguf(join(dir, 'q-full', 'adapter.gguf')), readGguf(join(dir, 'q-resumed', 'adapter.gguf')));
    assert.ok(d <= 1e-6, `adapters differ by ${d}`);
  });

  test('only the newest --keep-checkpoints checkpoints are kept', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const out = join(dir, 'keep');
    const r = honeTrain([...config(model), '--out', out, '--steps', '6', '--warmup', '2', '--checkpoint-every', '1', '--keep-checkpoints', '2']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.events.filter((e) => e.type === 'checkpoint').length, 6);
    assert.deepEqual(readdirSync(join(out, 'checkpoints')).sort(), ['5', '6']);
  });

  test('a resume with other settings, other data or a broken checkpoint is refused, naming the problem', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const ref = uninterrupted(model);
    const ckpt = join(ref.dir, 'checkpoints', '6');
    const refuse = (args: string[], pattern: RegExp) => {
      const out = join(dir, 'refused');
      const r = honeTrain([...args, '--out', out, '--json']);
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, pattern);
      assert.ok(r.events.some((e) => e.type === 'error'));
      assert.ok(!existsSync(out), 'nothing is written');
    };
    refuse(['--resume', ckpt, '--lr', '5e-3', '--batch', '4'],
      /keeps the settings of its checkpoint; these differ:\n {2}--lr 0\.005 \(the checkpoint has 0\.01\)\n {2}--batch 4 \(the checkpoint has 8\)/);

    // The data file changed since the checkpoint.
    const own = join(dir, 'own');
    mkdirSync(own);
    const ownData = join(own, 'train.jsonl');
    cpSync(data, ownData);
    const first = honeTrain([...config(model), '--data', ownData, '--out', join(own, 'run'), '--steps', '3', '--warmup', '1', '--checkpoint-every', '1']);
    assert.equal(first.code, 0, first.stderr);
    appendFileSync(ownData, JSON.stringify({ tokens: [1, 2, 3, 4, 5] }) + '\n');
    refuse(['--resume', join(own, 'run', 'checkpoints', '1')], /cannot continue from its checkpoint on different data:\n {2}training data: 15 sequences \(fingerprint [0-9a-f]{16}\) now, 14/);

    // The base model changed since the checkpoint (a byte of its weights rewritten in place).
    const ownModel = join(own, 'model.gguf');
    cpSync(model, ownModel);
    const onOwn = honeTrain([...config(ownModel), '--out', join(own, 'run-m'), '--steps', '3', '--warmup', '1', '--checkpoint-every', '1']);
    assert.equal(onOwn.code, 0, onOwn.stderr);
    const bytes = readFileSync(ownModel);
    bytes[bytes.length - 100] ^= 0x40;
    writeFileSync(ownModel, bytes);
    const ownCkpt = join(own, 'run-m', 'checkpoints', '2');
    const before = readFileSync(join(ownCkpt, 'state.json'), 'utf8');
    refuse(['--resume', ownCkpt], /the base model changed since this checkpoint: .*model\.gguf now \(1185376 bytes, fingerprint [0-9a-f]{16}\), .*model\.gguf \(1185376 bytes, [0-9a-f]{16}\) when it was written/);
    assert.equal(readFileSync(join(ownCkpt, 'state.json'), 'utf8'), before, 'the checkpoint is left as it was');

    const broken = join(dir, 'broken');
    cpSync(ckpt, broken, { recursive: true });
    writeFileSync(join(broken, 'state.json'), readFileSync(join(ckpt, 'state.json'), 'utf8').slice(0, 200));
    refuse(['--resume', broken], /state\.json: not valid JSON/);
    cpSync(ckpt, broken, { recursive: true });
    rmSync(join(broken, 'optimizer.gguf'));
    refuse(['--resume', broken], /optimizer\.gguf: missing: the checkpoint is incomplete/);
    cpSync(ckpt, broken, { recursive: true });
    truncateSync(join(broken, 'adapter.gguf'), 100);
    refuse(['--resume', broken], /adapter\.gguf: not a readable GGUF file \(truncated or corrupt\)/);
    rmSync(join(broken, 'state.json'));
    refuse(['--resume', broken], /broken: not a Hone checkpoint \(state\.json is missing\)/);
    refuse(['--resume', join(dir, 'nowhere')], /nowhere: checkpoint folder not found/);
  });
});
