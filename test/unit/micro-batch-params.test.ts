/**
 * The micro-batch the engine host asks its trainer for: a size in the config as is; 0 lets the
 * trainer choose, bounded by the rows a step of this data fills; a resumed run keeps the size its
 * checkpoint was trained with (a damaged state.json is a named error).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TrainConfig } from '../../electron/common/engine-api.ts';
import { microBatchParams } from '../../electron/engine-host/micro-batch.ts';
import { tempFiles } from '../helpers/temp-files.ts';

const cfg = (ubatch: number) => ({ ctx: 256, batch: 8, batchTokens: 0, seed: 42, ubatch }) as unknown as TrainConfig;
const lengths = Int32Array.from([100, 50, 30]);

test('a size asked for is used as is', () => {
  const addon = { stepRows: () => assert.fail('not asked') };
  assert.deepEqual(microBatchParams(addon, cfg(4), lengths, true), { nUbatch: 4 });
});

test('automatic: the trainer chooses, bounded by the rows a step of the data fills', () => {
  const seen: unknown[] = [];
  const addon = { stepRows: (l: Int32Array, p: object) => (seen.push([Array.from(l), p]), 3) };
  assert.deepEqual(microBatchParams(addon, cfg(0), lengths, true), { nUbatch: 0, nStepRows: 3 });
  assert.deepEqual(seen, [[[100, 50, 30], { nCtx: 256, nBatch: 8, nBatchTokens: 0, seed: 42, pack: true }]]);
});

test("a resumed run keeps its checkpoint's size; a damaged state.json is refused by name", (t) => {
  const addon = { stepRows: () => assert.fail('a resume does not choose again') };
  const good = tempFiles(t, { 'state.json': JSON.stringify({ train_params: { n_ubatch: 2 } }) });
  assert.deepEqual(microBatchParams(addon, cfg(0), lengths, true, good), { nUbatch: 2 });
  const bad = tempFiles(t, { 'state.json': JSON.stringify({ train_params: {} }) });
  assert.throws(() => microBatchParams(addon, cfg(0), lengths, true, bad), (e: Error & { code?: string }) => e.code === 'bad_format' && /n_ubatch/.test(e.message));
});
