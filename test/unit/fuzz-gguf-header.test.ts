/**
 * Seeded fuzzing of the TypeScript GGUF header reader and the model inspection on it
 * (test/helpers/fuzz/gguf-target.ts), from stories260K.gguf and a gguf-writer file: damaged
 * headers are refused as bad_format naming the file; a header that reads lies inside its file.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { requireFixture } from '../helpers/fixtures.ts';
import { truncationSweep } from '../helpers/fuzz/gguf-target.ts';
import { fuzzSuite } from '../helpers/fuzz/suite.ts';

test('GGUF headers with edge-value counts, lengths, types, dims and offsets, bit flips and cuts: bad_format or a sane header', async (t) => {
  if (!requireFixture(t, 'stories260K.gguf')) return;
  await fuzzSuite(t, 'gguf-header', 800);
});

test("stories260K's header cut at every third byte: each cut is a bad_format naming the file", async (t) => {
  if (!requireFixture(t, 'stories260K.gguf')) return;
  const { cuts, problem } = await truncationSweep(3);
  t.diagnostic(`gguf-header truncation: ${cuts} cuts`);
  assert.equal(problem, null);
});
