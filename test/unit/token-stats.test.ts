/** The length policy and token statistics of rendered examples, and the loss preview. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { histogram, packExamples, previewOf, type RenderedExample } from '../../electron/engine-host/sequences.ts';

const src = { file: 'd.jsonl', line: 1 };
// Chat examples are never windowed (text windows are the engine's: test/native/text-windows.test.ts)
const noText = () => { throw new Error('a chat example was windowed'); };
function chat(n: number, lossFrom: number): RenderedExample {
  const tokens = Int32Array.from({ length: n }, (_, i) => i + 1);
  const mask = Uint8Array.from({ length: n }, (_, i) => (i >= lossFrom ? 1 : 0));
  return { kind: 'chat', source: src, tokens, mask };
}

test('chat examples longer than ctx + 1 are dropped, or truncated on the left or the right', () => {
  const ex = [chat(5, 3), chat(12, 9), chat(12, 2)];
  const drop = packExamples(ex, 8, 'drop', noText);
  assert.equal(drop.sequences.length, 1);
  assert.deepEqual([drop.stats.overLength, drop.stats.truncated, drop.stats.dropped], [2, 0, 2]);

  const right = packExamples(ex, 8, 'right', noText);
  // The first long example keeps tokens 1..9: its loss starts at index 9, so nothing is left and it is dropped.
  assert.deepEqual([right.stats.truncated, right.stats.dropped], [1, 1]);
  assert.deepEqual(Array.from(right.sequences[1].tokens), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
  // each affected example by file and line, with the loss tokens the policy loses
  assert.deepEqual(right.stats.affected.map((a) => [a.outcome, a.tokens, a.lossTokens, a.lostLossTokens]), [['dropped', 12, 3, 3], ['truncated', 12, 10, 3]]);
  assert.deepEqual(drop.stats.affected.map((a) => [a.file, a.line, a.outcome]), [['d.jsonl', 1, 'dropped'], ['d.jsonl', 1, 'dropped']]);

  const left = packExamples(ex, 8, 'left', noText);
  assert.deepEqual([left.stats.truncated, left.stats.dropped], [2, 0]);
  assert.deepEqual(Array.from(left.sequences[1].tokens), [4, 5, 6, 7, 8, 9, 10, 11, 12]);
  assert.equal(left.stats.lossTokens, 2 + 3 + 8); // mask[0] of a sequence is never a target
  assert.equal(left.stats.tokens, 5 + 9 + 9);
});

test('histogram bins and length summary', () => {
  assert.deepEqual(histogram([3, 15, 16, 40]), [{ from: 0, to: 16, count: 2 }, { from: 16, to: 32, count: 1 }, { from: 32, to: 64, count: 1 }]);
  const s = packExamples([chat(3, 1), chat(7, 1), chat(20, 1)], 64, 'right', noText).stats;
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
