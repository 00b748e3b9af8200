import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readJsonArray, type ArrayEvent } from '../../electron/services/dataset/json-array.ts';
import { bytes, chunked, collect } from '../helpers/temp-files.ts';

async function events(text: string | Uint8Array, size = 4096, maxElementBytes?: number): Promise<ArrayEvent[]> {
  return collect(readJsonArray(chunked(text, size), { maxElementBytes }));
}

function elements(list: ArrayEvent[]): unknown[] {
  return list.map((e) => (e.kind === 'element' ? JSON.parse(e.text) : e));
}

test('splits top-level elements, nested values and strings with brackets, commas and escapes', async () => {
  const values = [{ a: [1, { b: ']' }] }, 'x,y]}', { q: 'say \\"hi\\" \\\\' }, [[], {}], 7, null];
  const text = `\n [ ${values.map((v) => JSON.stringify(v)).join(' ,\n')} ] \n`;
  assert.deepEqual(elements(await events(text)), values);
  for (const size of [1, 2, 3]) assert.deepEqual(elements(await events(text, size)), values, `chunk size ${size}`);
});

test('numbers elements from 0', async () => {
  const list = await events('[{"x":1},{"x":2}]');
  assert.deepEqual(list.map((e) => e.index), [0, 1]);
});

test('an empty array has no elements and no errors', async () => {
  assert.deepEqual(await events(' [ ] '), []);
});

test('reports structural errors with the index they happen at', async () => {
  const messages = async (text: string) =>
    (await events(text)).map((e) => (e.kind === 'error' ? `error@${e.index}: ${e.message}` : `element@${e.index}`));
  assert.deepEqual(await messages('[1, 2,]'), ['element@0', 'element@1', 'error@2: trailing comma before the closing bracket']);
  assert.deepEqual(await messages('[1,,2]'), ['element@0', 'error@1: empty array element (two commas in a row)', 'element@1']);
  assert.deepEqual(await messages('[1, {"a": 2}'), ['element@0', 'element@1', 'error@2: unexpected end of file: the array is not closed']);
  assert.deepEqual(await messages('[1] x'), ['element@0', 'error@1: unexpected content after the closing bracket of the array']);
  assert.deepEqual(await messages('{"a":1}'), ['error@0: the file does not start with a JSON array']);
  assert.deepEqual(await messages('   '), ['error@0: the file is empty: expected a JSON array']);
});

test('flags invalid UTF-8 per element and skips elements over maxElementBytes', async () => {
  const list = await events(bytes('["ok", "caf', [0xff], '", "', 'y'.repeat(200), '", 3]'), 5, 100);
  assert.deepEqual(
    list.map((e) => (e.kind === 'element' ? [e.index, e.invalidUtf8, e.tooLarge, e.text.trim()] : e)),
    [
      [0, false, false, '"ok"'],
      [1, true, false, '"caf\ufffd"'],
      [2, false, true, ''],
      [3, false, false, '3'],
    ],
  );
});
