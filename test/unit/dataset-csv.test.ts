import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCsv } from '../../electron/services/dataset/csv.ts';
import { readLines } from '../../electron/services/dataset/line-reader.ts';
import { chunked, collect } from '../helpers/temp-files.ts';

async function rows(text: string, delimiter = ',', maxRecordChars?: number) {
  const records = await collect(parseCsv(readLines(chunked(text, 7)), { delimiter, maxRecordChars }));
  return records.map((r) => ({ line: r.line, fields: r.fields, ...(r.error ? { error: r.error } : {}), ...(r.tooLarge ? { tooLarge: true } : {}) }));
}

test('parses quoted fields with delimiters, doubled quotes and empty fields', async () => {
  assert.deepEqual(await rows('a,b,c\n"x, y","say ""hi""",\n'), [
    { line: 1, fields: ['a', 'b', 'c'] },
    { line: 2, fields: ['x, y', 'say "hi"', ''] },
  ]);
});

test('keeps embedded newlines (LF or CRLF) and reports the line each record starts on', async () => {
  assert.deepEqual(await rows('h1,h2\r\n"one\r\ntwo\r\n\r\nthree",x\r\nnext,row'), [
    { line: 1, fields: ['h1', 'h2'] },
    { line: 2, fields: ['one\ntwo\n\nthree', 'x'] },
    { line: 6, fields: ['next', 'row'] },
  ]);
});

test('skips blank lines between records', async () => {
  assert.deepEqual(await rows('a,b\n\n1,2\n\n'), [
    { line: 1, fields: ['a', 'b'] },
    { line: 3, fields: ['1', '2'] },
  ]);
});

test('splits TSV on tabs, with the same quoting rules', async () => {
  assert.deepEqual(await rows('p\tc\n"tab\tinside"\tplain, with comma\n', '\t'), [
    { line: 1, fields: ['p', 'c'] },
    { line: 2, fields: ['tab\tinside', 'plain, with comma'] },
  ]);
});

test('a quote inside an unquoted field is kept as text', async () => {
  assert.deepEqual(await rows('5" screen,ok\n'), [{ line: 1, fields: ['5" screen', 'ok'] }]);
});

test('reports text after a closing quote and an unterminated quote', async () => {
  assert.deepEqual(await rows('"a"b,c\nfine,row\n"open,x\nmore\n'), [
    { line: 1, fields: ['ab', 'c'], error: 'unexpected text after a closing quote on line 1' },
    { line: 2, fields: ['fine', 'row'] },
    { line: 3, fields: ['open,x\nmore'], error: 'unterminated quoted field starting on line 3' },
  ]);
});

test('drops the fields of a record larger than maxRecordChars but finds where it ends', async () => {
  assert.deepEqual(await rows(`"${'z'.repeat(30)}\n${'z'.repeat(30)}",x\nok,1\n`, ',', 40), [
    { line: 1, fields: [], tooLarge: true },
    { line: 3, fields: ['ok', '1'] },
  ]);
});
