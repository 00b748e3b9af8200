/**
 * The automatic micro-batch (--ubatch auto, the default): the trainer takes the most rows a step
 * fills whose memory plan fits, says so in ops.json and run.json, trains exactly as the same
 * size asked for, and a resumed run keeps its checkpoint's size.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { requireFixture } from '../helpers/fixtures.ts';
import { honeTrain, stepLosses, tempDir } from '../helpers/native.ts';
import { makeSequences, writeSequences } from '../helpers/train-data.ts';

interface Memory { ubatch: number; ubatch_reason: string; backends: Array<{ plan_bytes: number }> }
const memoryOf = (out: string): Memory => JSON.parse(readFileSync(join(out, 'ops.json'), 'utf8')).memory;

describe('the automatic micro-batch', () => {
  const dir = tempDir();
  // sixteen sequences of 16 tokens: packed at ctx 64, a step of 8 fills exactly 2 rows
  const even = writeSequences(join(dir, 'even.jsonl'), makeSequences(3, new Array(16).fill(16)));
  const unpacked = (out: string, ...more: string[]) => ['--data', even, '--out', join(dir, out), '--ctx', '64', '--batch', '8',
    '--pack', 'false', '--lr', '1e-3', '--json', ...more];

  test('the whole batch when it fits; the most that fits under a memory limit, and why', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const plans = [4, 8].map((u) => {
      const r = honeTrain(['--model', model, ...unpacked(`plan${u}`, '--steps', '1', '--dry-run', '--ubatch', String(u))]);
      assert.equal(r.code, 0, r.stderr);
      return memoryOf(join(dir, `plan${u}`)).backends[0].plan_bytes;
    });
    assert.ok(plans[1] > plans[0], `8 rows plan ${plans[1]} bytes, 4 rows ${plans[0]}`);

    const free = honeTrain(['--model', model, ...unpacked('auto', '--steps', '1', '--dry-run')]);
    assert.equal(free.code, 0, free.stderr);
    const all = memoryOf(join(dir, 'auto'));
    assert.equal(all.ubatch, 8);
    assert.match(all.ubatch_reason, /^automatic: a step's 8 sequences in one micro-batch/);

    const limit = Math.round((plans[0] + plans[1]) / 2);
    const tight = honeTrain(['--model', model, ...unpacked('tight', '--steps', '1', '--dry-run', '--memory-limit', String(limit))]);
    assert.equal(tight.code, 0, tight.stderr);
    const four = memoryOf(join(dir, 'tight'));
    assert.equal(four.ubatch, 4, four.ubatch_reason);
    assert.match(four.ubatch_reason, /the most of a step's 8 sequences whose plan fits \(8: .*the limit\)/);
  });

  test('packed, the rows a step fills bound it, and it trains exactly as the same size asked for', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const packed = (out: string, ...more: string[]) => ['--model', model, '--data', even, '--out', join(dir, out), '--ctx', '64', '--batch', '8',
      '--steps', '2', '--lr', '1e-3', '--json', ...more];
    const auto = honeTrain(packed('packed-auto'));
    assert.equal(auto.code, 0, auto.stderr);
    const m = memoryOf(join(dir, 'packed-auto'));
    assert.equal(m.ubatch, 2, m.ubatch_reason);
    assert.match(m.ubatch_reason, /the 2 rows a step fills at most in one micro-batch/);
    const asked = honeTrain(packed('packed-2', '--ubatch', '2'));
    assert.equal(asked.code, 0, asked.stderr);
    assert.deepEqual(stepLosses(auto), stepLosses(asked));
    const run = JSON.parse(readFileSync(join(dir, 'packed-auto', 'run.json'), 'utf8'));
    assert.equal(run.memory.ubatch, 2);
  });

  test('a resumed run keeps the micro-batch its checkpoint was trained with', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const plan4 = memoryOf(join(dir, 'plan4')).backends[0].plan_bytes;
    const plan8 = memoryOf(join(dir, 'plan8')).backends[0].plan_bytes;
    const limit = String(Math.round((plan4 + plan8) / 2));
    const whole = honeTrain(['--model', model, ...unpacked('whole', '--steps', '2', '--memory-limit', limit)]);
    assert.equal(whole.code, 0, whole.stderr);
    const cut = honeTrain(['--model', model, ...unpacked('cut', '--steps', '2', '--memory-limit', limit, '--checkpoint-every', '1')]);
    assert.equal(cut.code, 0, cut.stderr);
    // without the limit the choice would be 8 rows; the checkpoint's 4 are kept
    const resumed = honeTrain(['--resume', join(dir, 'cut', 'checkpoints', '1'), '--out', join(dir, 'resumed'), '--json']);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(memoryOf(join(dir, 'resumed')).ubatch, 4);
    assert.deepEqual(stepLosses(resumed), stepLosses(whole).slice(1));
  });
});
