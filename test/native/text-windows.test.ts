/**
 * Plain text becomes training sequences through the engine's one windowing (hone_text_windows),
 * which the app's engine host and hone-train share.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadAddon } from '../../electron/engine-host/binding.ts';
import { packExamples, type RenderedExample } from '../../electron/engine-host/sequences.ts';

const addon = loadAddon();

test('the engine cuts text into windows of ctx + 1 tokens overlapping by one', () => {
  assert.deepEqual(Array.from(addon.textWindows(20, 8)), [0, 8, 16]);
  assert.deepEqual(Array.from(addon.textWindows(9, 8)), [0]);
  assert.deepEqual(Array.from(addon.textWindows(10, 8)), [0, 8]);
  assert.deepEqual(Array.from(addon.textWindows(1, 8)), []);
  assert.throws(() => addon.textWindows(5, 0), /ctx >= 1/);
});

test('text examples are cut into the engine\'s windows, never truncated; every token after the first is a target once', () => {
  const text: RenderedExample = { kind: 'text', source: { file: 't.txt', line: 1 }, tokens: Int32Array.from({ length: 20 }, (_, i) => i), mask: new Uint8Array(20).fill(1) };
  const p = packExamples([text], 8, 'drop', addon.textWindows);
  assert.equal(p.stats.chunked, 1);
  assert.deepEqual(p.stats.affected, []);
  assert.deepEqual(p.sequences.map((s) => [s.tokens[0], s.tokens.length]), [[0, 9], [8, 9], [16, 4]]);
  assert.equal(p.stats.lossTokens, 19);
});
