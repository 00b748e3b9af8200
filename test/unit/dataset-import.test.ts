/** Folders, skipped files, the mixed report, duplicates, progress, streaming, errors. */
import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  DatasetError,
  importDataset,
  openDataset,
  scanDataset,
  toPlainError,
  type ProgressEvent,
} from '../../electron/services/dataset/index.ts';
import { bytes, collect, jsonl, tempFiles } from '../helpers/temp-files.ts';

const pair = (q: string, a: string) => ({ messages: [{ role: 'user', content: q }, { role: 'assistant', content: a }] });

test('a folder may mix formats; hidden and unsupported files are listed as skipped', async (t) => {
  const dir = tempFiles(t, {
    'chat.jsonl': jsonl(pair('q1', 'a1'), pair('q2', 'a2')),
    'docs/readme.md': '# Notes\n\nSome text.\n',
    'docs/.draft.txt': 'hidden\n',
    '.git/config': '[core]\n',
    'table.csv': 'prompt,completion\nq3,a3\n',
    'model.gguf': 'binary',
    'image.PNG': 'binary',
  });
  const report = await scanDataset(dir);
  assert.equal(report.format, 'mixed');
  assert.deepEqual(
    report.files.map((f) => [f.path, f.format, f.container, f.role, f.records.total]),
    [
      [join(dir, 'chat.jsonl'), 'openai-chat', 'jsonl', 'train', 2],
      [join(dir, 'docs', 'readme.md'), 'plain-text', 'text', 'train', 1],
      [join(dir, 'table.csv'), 'csv', 'csv', 'train', 1],
    ],
  );
  assert.deepEqual(report.skipped, [
    { path: join(dir, '.git'), reason: 'hidden' },
    { path: join(dir, 'docs', '.draft.txt'), reason: 'hidden' },
    { path: join(dir, 'image.PNG'), reason: 'unsupported' },
    { path: join(dir, 'model.gguf'), reason: 'unsupported' },
  ]);
  assert.deepEqual(report.records, { total: 4, valid: 4, invalid: 0, duplicates: 0 });
  assert.deepEqual(report.problems, []);
});

test('the report is plain JSON with the documented fields', async (t) => {
  const dir = tempFiles(t, { 'a.jsonl': jsonl({ text: 'x' }) });
  const report = await scanDataset(dir);
  assert.deepEqual(JSON.parse(JSON.stringify(report)), report);
  assert.deepEqual(Object.keys(report).sort(), [
    'duplicatesDropped', 'files', 'format', 'problemCounts', 'problems', 'problemsOmitted', 'records', 'skipped', 'split',
  ]);
  assert.deepEqual(report.split, { train: 1, eval: 0, rule: 'ratio', ratio: 0, seed: '0' });
  assert.equal(report.files[0].bytes, 13);
});

test('a path that does not exist is a problem naming the path, and the rest is still read', async (t) => {
  const dir = tempFiles(t, { 'ok.jsonl': jsonl({ text: 'x' }) });
  const missing = join(dir, 'missing.jsonl');
  const report = await scanDataset([missing, join(dir, 'ok.jsonl')]);
  assert.deepEqual(report.problems.map((p) => [p.file, p.code, p.message]), [[missing, 'not_found', `no such file or folder: ${missing}`]]);
  assert.equal(report.records.valid, 1);
  const none = await scanDataset(missing);
  assert.equal(none.format, null);
  assert.deepEqual(none.files, []);
});

test('duplicates: same normalised content is counted across files and formats, and can be dropped', async (t) => {
  const dir = tempFiles(t, {
    'a.jsonl': jsonl(pair('Hello  there', 'Hi'), pair('other', 'x'), pair('Hello there ', ' Hi')),
    'b.jsonl': jsonl({ prompt: 'Hello\nthere', completion: 'Hi' }, { prompt: 'Hello there', completion: 'Hi!' }),
    'c.jsonl': jsonl({ instruction: 'other', output: 'x' }),
  });
  const kept = await importDataset(dir);
  assert.deepEqual(kept.report.records, { total: 6, valid: 6, invalid: 0, duplicates: 3 });
  assert.deepEqual(kept.report.files.map((f) => f.records.duplicates), [1, 1, 1]);
  assert.equal(kept.train.length, 6);
  assert.equal(kept.report.duplicatesDropped, false);

  const dropped = await importDataset(dir, { dropDuplicates: true });
  assert.deepEqual(dropped.report.records, kept.report.records);
  assert.equal(dropped.report.duplicatesDropped, true);
  assert.deepEqual(dropped.report.split.train, 3);
  assert.deepEqual(
    dropped.train.map((e) => [e.source.file.slice(dir.length + 1), e.source.line]),
    [
      ['a.jsonl', 1],
      ['a.jsonl', 2],
      ['b.jsonl', 2],
    ],
  );
});

test('tool call ids do not make otherwise equal conversations distinct; weights do', async (t) => {
  const withCall = (id: string, weight?: 0 | 1) => ({
    messages: [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: id, content: 'r' },
      { role: 'assistant', content: 'a', ...(weight === undefined ? {} : { weight }) },
    ],
  });
  const dir = tempFiles(t, { 'a.jsonl': jsonl(withCall('x'), withCall('y'), withCall('z', 1)) });
  assert.equal((await scanDataset(dir)).records.duplicates, 1);
});

test('progress is reported per file with byte and record counts', async (t) => {
  const dir = tempFiles(t, {
    'a.jsonl': jsonl(...Array.from({ length: 200 }, (_, i) => ({ text: `record ${i}` }))),
    'b.txt': 'hello\n',
  });
  const events: ProgressEvent[] = [];
  await scanDataset(dir, { progressEveryBytes: 1000 }, (e) => events.push(e));
  assert.ok(events.length >= 2);
  assert.ok(events.every((e) => e.phase === 'scan' && e.fileCount === 2));
  const last = events.at(-1)!;
  assert.deepEqual([last.fileIndex, last.bytesRead, last.bytesRead === last.bytesTotal, last.records], [1, last.bytesTotal, true, 201]);
  const firstFileEnd = events.filter((e) => e.fileIndex === 0).at(-1)!;
  assert.equal(firstFileEnd.fileBytesRead, firstFileEnd.fileBytes);
  for (let i = 1; i < events.length; i++) assert.ok(events[i].bytesRead >= events[i - 1].bytesRead, 'bytes only grow');
});

test('openDataset streams accepted examples again, and refuses a file that changed since the scan', async (t) => {
  const dir = tempFiles(t, { 'a.jsonl': jsonl({ text: 'one' }, '{bad', { text: 'two' }) });
  const opened = await openDataset(dir);
  assert.deepEqual(opened.report.records, { total: 3, valid: 2, invalid: 1, duplicates: 0 });
  const phases: string[] = [];
  const streamed = await collect(opened.examples((e) => phases.push(e.phase)));
  assert.deepEqual(streamed.map((s) => [s.split, s.example.kind === 'text' && s.example.text]), [
    ['train', 'one'],
    ['train', 'two'],
  ]);
  assert.deepEqual([...new Set(phases)], ['read']);
  // A second pass gives the same result.
  assert.deepEqual(await collect(opened.examples()), streamed);

  appendFileSync(join(dir, 'a.jsonl'), '{"text": "three"}\n');
  await assert.rejects(collect(opened.examples()), (err: unknown) => {
    assert.ok(err instanceof DatasetError);
    assert.deepEqual(toPlainError(err), { code: 'file_changed', message: `${join(dir, 'a.jsonl')} changed since it was scanned; scan it again` });
    return true;
  });
});

test('bad options are rejected before reading, as plain {code, message} errors', async () => {
  await assert.rejects(scanDataset('.', { evalRatio: 1 }), (err: unknown) => {
    assert.deepEqual(toPlainError(err), { code: 'bad_option', message: 'evalRatio must be in [0, 1), got 1' });
    return true;
  });
  await assert.rejects(scanDataset('.', { format: 'yaml' as never }), /unknown format "yaml"/);
  await assert.rejects(scanDataset('.', { csv: { delimiter: '"' } }), /csv.delimiter/);
  assert.deepEqual(toPlainError(new Error('boom')), { code: 'internal', message: 'boom' });
});

test('empty and blank files are listed with an empty_content problem; a BOM is ignored', async (t) => {
  const dir = tempFiles(t, {
    'blank.md': '\n\n  \n',
    'bom.jsonl': bytes([0xef, 0xbb, 0xbf], '{"text":"bom"}\n'),
    'empty.csv': '',
    'empty.jsonl': '',
    'header-only.csv': 'prompt,completion\n',
  });
  const { report, train } = await importDataset(dir);
  assert.deepEqual(report.files.map((f) => [f.path.slice(dir.length + 1), f.records.total]), [
    ['blank.md', 0],
    ['bom.jsonl', 1],
    ['empty.csv', 0],
    ['header-only.csv', 0],
  ]);
  assert.deepEqual(report.problems.map((p) => [p.file.slice(dir.length + 1), p.line, p.code]), [
    ['empty.jsonl', null, 'empty_content'],
    ['blank.md', null, 'empty_content'],
    ['empty.csv', null, 'empty_content'],
    ['header-only.csv', null, 'empty_content'],
  ]);
  assert.deepEqual(train.map((e) => e.kind === 'text' && e.text), ['bom']);
});
