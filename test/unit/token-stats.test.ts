/** The length policy and token statistics of rendered examples, and the loss preview. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { histogram, packExamples, previewOf, type RenderedExample } from '../../electron/engine-host/sequences.ts';

const src = { file: 'd.jsonl', line: 1 };
function chat(n: number, lossFrom: number): RenderedExample {
  const tokens = Int32Array.from({ length: n }, (_, i) => i + 1);
  const mask = Uint8Array.from({ length: n }, (_, i) => (i >= lossFrom ? 1 : 0));
  return { kind: 'chat', source: src, tokens, mask };
}

test('chat examples longer than ctx + 1 are dropped, or truncated on the left or the right', () => {
  const ex = [chat(5, 3), chat(12, 9), chat(12, 2)];
  const drop = packExamples(ex, 8, 'drop');
  assert.equal(drop.sequences.length, 1);
  assert.deepEqual([drop.stats.overLength, drop.stats.truncated, drop.stats.dropped], [2, 0, 2]);

  const right = packExamples(ex, 8, 'right');
  // The first long example keeps tokens 1..9: its loss starts at index 9, so nothing is left and it is dropped.
  assert.deepEqual([right.stats.truncated, right.stats.dropped], [1, 1]);
  assert.deepEqual(Array.from(right.sequences[1].tokens), [1, 2, 3, 4, 5, 6, 7, 8, 9]);

  const left = packExamples(ex, 8, 'left');
  assert.deepEqual([left.stats.truncated, left.stats.dropped], [2, 0]);
  assert.deepEqual(Array.from(left.sequences[1].tokens), [4, 5, 6, 7, 8, 9, 10, 11, 12]);
  assert.equal(left.stats.lossTokens, 2 + 3 + 8); // mask[0] of a sequence is never a target
  assert.equal(left.stats.tokens, 5 + 9 + 9);
});

test('text examples are cut into overlapping windows, never truncated', () => {
  const text: RenderedExample = { kind: 'text', source: src, tokens: Int32Array.from({ length: 20 }, (_, i) => i), mask: new Uint8Array(20).fill(1) };
  const p = packExamples([text], 8, 'drop');
  assert.equal(p.stats.chunked, 1);
  assert.deepEqual(p.sequences.map((s) => [s.tokens[0], s.tokens.length]), [[0, 9], [8, 9], [16, 4]]);
  assert.equal(p.stats.lossTokens, 19, 'every token after the first is a target exactly once');
});

test('histogram bins and length summary', () => {
  assert.deepEqual(histogram([3, 15, 16, 40]), [{ from: 0, to: 16, count: 2 }, { from: 16, to: 32, count: 1 }, { from: 32, to: 64, count: 1 }]);
  const s = packExamples([chat(3, 1), chat(7, 1), chat(20, 1)], 64, 'right').stats;
  assert.deepEqual(s.lengths, { min: 3, median: 7, max: 20, mean: 10 });
});

test('the preview marks loss-carrying characters, from byte spans (multi-byte text)', () => {
  const text = 'Q: café?\nA: ünïcode<end>';
  const b = (s: string) => Buffer.byteLength(s);
  const a0 = b('Q: café?\nA: '), a1 = b('Q: café?\nA: ünïcode'), a2 = b(text);
  const spans = Int32Array.from([0, a0, a0, a1, a1, a2]);
  const p = previewOf(src, text, spans, Uint8Array.from([0, 1, 1]));
  assert.deepEqual(p.lossSpans.map(([s, e]) => text.slice(s, e)), ['ünïcode<end>']);
  assert.equal(p.lossTokens, 2);
});
