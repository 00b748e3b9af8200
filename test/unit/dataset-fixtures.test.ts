/** The shared fixtures (../shared/fixtures, or $HONE_FIXTURES), read through the import layer. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { importDataset } from '../../electron/services/dataset/index.ts';
import { fixturePath, requireFixture } from '../helpers/fixtures.ts';

test('chat_elements_limericks.jsonl: 10 valid openai-chat records, no problems', async (t) => {
  const path = requireFixture(t, 'chat_elements_limericks.jsonl');
  if (!path) return;
  const { report, train, eval: evalSet } = await importDataset(path, { evalRatio: 0.1 });
  assert.equal(report.format, 'openai-chat');
  assert.deepEqual(report.records, { total: 10, valid: 10, invalid: 0, duplicates: 0 });
  assert.deepEqual(report.problems, []);
  assert.deepEqual([report.split.train + report.split.eval, report.split.eval >= 1], [10, true]);
  const all = [...train, ...evalSet].sort((a, b) => a.source.line - b.source.line);
  // The last line has no trailing newline and is still line 10.
  assert.deepEqual(all.map((e) => e.source.line), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  for (const e of all) {
    assert.equal(e.kind, 'chat');
    if (e.kind !== 'chat') continue;
    assert.deepEqual(e.messages.map((m) => m.role), ['system', 'user', 'assistant']);
    assert.match(e.messages[0].content, /^Elle is a factual chatbot/);
    assert.match(e.messages[1].content, /^Tell me about /);
  }
});

test('tinyshakespeare.txt: plain text, one document in segments that join back to the file', async (t) => {
  const path = requireFixture(t, 'tinyshakespeare.txt');
  if (!path) return;
  const { report, train } = await importDataset(path);
  assert.equal(report.format, 'plain-text');
  assert.deepEqual(report.files.map((f) => [f.format, f.container, f.bytes]), [['plain-text', 'text', 1115394]]);
  // 64 KiB segments cut at paragraph breaks.
  assert.deepEqual(report.records, { total: 17, valid: 17, invalid: 0, duplicates: 0 });
  assert.deepEqual(report.problems, []);
  const texts = train.map((e) => (e.kind === 'text' ? e.text : ''));
  assert.equal(texts.join(''), readFileSync(path, 'utf8'));
  assert.deepEqual(train.map((e) => (e.kind === 'text' ? e.document : null)), train.map((_, part) => ({ id: path, part })));
  assert.match(texts[0], /^First Citizen:\n/);
});

test('a missing fixture fails under CI and skips (with the reason) otherwise', () => {
  const name = 'no-such-fixture.bin';
  const saved = process.env.CI;
  try {
    process.env.CI = '1';
    assert.throws(() => requireFixture({ skip: () => assert.fail('must not skip under CI') }, name), {
      message: `fixture ${name} not found at ${fixturePath(name)} (set HONE_FIXTURES to its folder)`,
    });
    delete process.env.CI;
    let reason: string | undefined;
    assert.equal(requireFixture({ skip: (message) => (reason = message) }, name), null);
    assert.match(reason ?? '', /no-such-fixture\.bin not found/);
  } finally {
    if (saved === undefined) delete process.env.CI;
    else process.env.CI = saved;
  }
});
