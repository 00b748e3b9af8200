/**
 * Finding a run's checkpoints in a folder the user can damage (cases the fuzz suite found):
 * only folders named by a step as the engine writes it count, a `checkpoints` that is a file
 * holds none (runs.list lists the run instead of failing), and a broken state.json is refused
 * with an error that names it.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { HoneError } from '../../electron/common/errors.ts';
import { lastStepOf, latestCheckpoint } from '../../electron/services/runs/checkpoints.ts';
import { tempFiles } from '../helpers/temp-files.ts';

const state = '{"step":2,"micro_batch":0}\n';

test('a checkpoint folder named "007" is not step 7 (the path returned exists)', (t) => {
  const dir = tempFiles(t, { '2/state.json': state, '007/state.json': state });
  assert.equal(latestCheckpoint(dir), join(dir, '2'));
});

test('a checkpoint folder whose name is past 2^53 is not read as a rounded step', (t) => {
  const dir = tempFiles(t, { '2/state.json': state, '99999999999999999999/state.json': state });
  assert.equal(latestCheckpoint(dir), join(dir, '2'));
});

test('a checkpoints path that is a file holds no checkpoint, instead of an ENOTDIR error', (t) => {
  const dir = tempFiles(t, { checkpoints: 'a file\n' });
  assert.equal(latestCheckpoint(join(dir, 'checkpoints')), null);
});

test('a state.json that is not JSON is a bad_format error naming it, not a SyntaxError', async (t) => {
  const dir = tempFiles(t, { 'state.json': '{"step":2,' });
  await assert.rejects(lastStepOf(dir), (err: unknown) => err instanceof HoneError && err.code === 'bad_format' && err.message.includes(join(dir, 'state.json')));
});

test('a state.json holding null is a bad_format error naming it, not a TypeError', async (t) => {
  const dir = tempFiles(t, { 'state.json': 'null\n' });
  await assert.rejects(lastStepOf(dir), (err: unknown) => err instanceof HoneError && err.code === 'bad_format' && err.message.includes(join(dir, 'state.json')));
});

test('a replacement of the newest checkpoint cut short leaves it resumable as N.replaced, unless N made it', (t) => {
  const cut = tempFiles(t, { '2/state.json': state, '3.replaced/state.json': state, '3.tmp/adapter.gguf': '' });
  assert.equal(latestCheckpoint(cut), join(cut, '3.replaced'));
  const done = tempFiles(t, { '3/state.json': state, '3.replaced/state.json': state });
  assert.equal(latestCheckpoint(done), join(done, '3'));
});
