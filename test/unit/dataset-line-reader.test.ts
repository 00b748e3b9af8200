import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readLines, type Line } from '../../electron/services/dataset/line-reader.ts';
import { bytes, chunked, collect } from '../helpers/temp-files.ts';

const brief = (lines: Line[]) => lines.map((l) => [l.number, l.text, l.terminated]);

test('splits LF and CRLF lines, keeps empty lines, and a last line without newline', async () => {
  const lines = await collect(readLines(chunked('a\r\nb\n\nc\r\nlast', 1024)));
  assert.deepEqual(brief(lines), [
    [1, 'a', true],
    [2, 'b', true],
    [3, '', true],
    [4, 'c', true],
    [5, 'last', false],
  ]);
});

test('a final newline does not make an extra empty line; an empty input has no lines', async () => {
  assert.deepEqual(brief(await collect(readLines(chunked('x\n', 8)))), [[1, 'x', true]]);
  assert.deepEqual(await collect(readLines(chunked('', 8))), []);
});

test('gives the same lines whatever the chunk size (multi-byte characters split across chunks)', async () => {
  const text = 'héllo wörld\r\n日本語のテキスト\n\n🙂 emoji line\nend';
  const expected = brief(await collect(readLines(chunked(text, 1 << 20))));
  for (const size of [1, 2, 3, 5, 7]) {
    assert.deepEqual(brief(await collect(readLines(chunked(text, size)))), expected, `chunk size ${size}`);
  }
  assert.equal(expected[1][1], '日本語のテキスト');
});

test('strips a UTF-8 byte order mark on the first line only', async () => {
  const lines = await collect(readLines(chunked(bytes([0xef, 0xbb, 0xbf], 'one\n', [0xef, 0xbb, 0xbf], 'two\n'), 2)));
  assert.deepEqual(lines.map((l) => l.text), ['one', '\ufefftwo']);
});

test('flags invalid UTF-8 on the line that holds it, and decodes it with replacements', async () => {
  const lines = await collect(readLines(chunked(bytes('ok\n', 'caf', [0xff], '\n', [0xc3], '\nfine'), 3)));
  assert.deepEqual(
    lines.map((l) => [l.number, l.text, l.invalidUtf8]),
    [
      [1, 'ok', false],
      [2, 'caf\ufffd', true],
      [3, '\ufffd', true],
      [4, 'fine', false],
    ],
  );
});

test('drops the text of a line longer than maxLineBytes and keeps counting lines', async () => {
  const lines = await collect(readLines(chunked(`short\n${'x'.repeat(100)}\nafter`, 16), { maxLineBytes: 50 }));
  assert.deepEqual(
    lines.map((l) => [l.number, l.text, l.tooLong]),
    [
      [1, 'short', false],
      [2, '', true],
      [3, 'after', false],
    ],
  );
});
