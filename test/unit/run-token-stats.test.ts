/**
 * A run's token statistics read back from run.json or events.jsonl for the Axolotl export (cases
 * the fuzz suite found): damaged lists used to reach the export's walk over them and throw a
 * TypeError ("stats.affected is not iterable") or a RangeError (a file name nested deep). They
 * now count as no statistics, and the events log's good record is used instead.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { notTrained, runTokenStats } from '../../electron/services/export/axolotl.ts';
import { tempFiles } from '../helpers/temp-files.ts';

const stats = (affected: unknown) => ({ examples: 2, sequences: 2, tokens: 10, lossTokens: 5, ctx: 64, policy: 'drop', overLength: 1, truncated: 0, dropped: 1, chunked: 0, affected, failed: [] });
const dropped = [{ file: '/data/a.jsonl', line: 3, outcome: 'dropped', tokens: 90, lossTokens: 40, lostLossTokens: 40 }];
const eventsWith = (s: unknown) => JSON.stringify({ seq: 1, at: '2026-12-01T12:00:00.000Z', segment: 0, event: { type: 'tokens', stats: s } }) + '\n';

test("run.json whose affected list is an object: the events log's statistics are used", (t) => {
  const dir = tempFiles(t, { 'run.json': JSON.stringify({ data: { tokens: stats({ a: 1 }) } }), 'events.jsonl': eventsWith(stats(dropped)) });
  assert.deepEqual([...notTrained(runTokenStats(dir))], ['/data/a.jsonl:3']);
});

test('a file name nested deep in the list: no statistics, no RangeError', (t) => {
  const dir = tempFiles(t, { 'run.json': JSON.stringify({ data: { tokens: stats([{ file: 'x', line: 1 }]) } }).replace('"x"', '['.repeat(20_000) + ']'.repeat(20_000)) });
  assert.equal(runTokenStats(dir), null);
  assert.deepEqual([...notTrained(runTokenStats(dir))], []);
});

test('a tokens record whose stats are a number is skipped', (t) => {
  const dir = tempFiles(t, { 'events.jsonl': eventsWith(5) });
  assert.equal(runTokenStats(dir), null);
});
