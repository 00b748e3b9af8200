/**
 * Every problem kind, from malformed files written here, with the exact
 * file / line / field of each problem.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { scanDataset, type DatasetReport, type ProblemCode } from '../../electron/services/dataset/index.ts';
import { bytes, jsonl, tempFiles } from '../helpers/temp-files.ts';

const seen = new Set<ProblemCode>();

/** Problems as [file name, line, field, code, severity], remembering which codes were covered. */
function problems(report: DatasetReport, dir: string) {
  return report.problems.map((p) => {
    seen.add(p.code);
    assert.ok(p.message.length > 0, 'every problem has a message');
    return [p.file.startsWith(dir) ? p.file.slice(dir.length + 1) : p.file, p.line, p.field, p.code, p.severity];
  });
}

const user = (content: unknown) => ({ role: 'user', content });
const assistant = (content: unknown, extra: object = {}) => ({ role: 'assistant', content, ...extra });
const chat = (...messages: unknown[]) => ({ messages });
const call = (id: string, args: unknown) => ({ id, type: 'function', function: { name: 'get_temp', arguments: args } });

test('openai-chat: every record is checked and each problem is pinned to its line and field', async (t) => {
  const lines: (string | Uint8Array)[] = [
    /* 1 */ JSON.stringify(chat(user('hi'), assistant('hello'))),
    /* 2 */ '{"messages": [',
    /* 3 */ JSON.stringify(chat({ role: 'wizard', content: 'x' }, assistant('y'))),
    /* 4 */ JSON.stringify(chat({ content: 'x' }, assistant('y'))),
    /* 5 */ JSON.stringify(chat(user('   '), assistant('y'))),
    /* 6 */ JSON.stringify(chat({ role: 'system', content: 's' }, user('q'))),
    /* 7 */ JSON.stringify(chat({ role: 'system', content: 's' }, assistant('a'))),
    /* 8 */ JSON.stringify(chat(user('q'), { role: 'tool', content: '42' }, assistant('a'))),
    /* 9 */ JSON.stringify(chat(user('q'), user('q2'), assistant('a'))),
    /* 10 */ JSON.stringify({ messages: 'hi' }),
    /* 11 */ JSON.stringify(chat(user('q'), assistant('a', { weight: 2 }))),
    /* 12 */ bytes('{"messages":[{"role":"user","content":"caf', [0xff], '"},{"role":"assistant","content":"a"}]}'),
    /* 13 */ JSON.stringify(chat(user('q'), assistant('x'.repeat(50)))),
    /* 14 */ '',
    /* 15 */ JSON.stringify({ prompt: 'p' }),
    /* 16 */ '[1, 2]',
    /* 17 */ JSON.stringify(chat(user('q'), assistant(null, { tool_calls: [call('c1', '{}')] }), user('again'))),
    /* 18 */ JSON.stringify(chat(user('q'), assistant(null, { tool_calls: [call('a', '{}')] }), { role: 'tool', tool_call_id: 'b', content: '1' }, assistant('ok'))),
    /* 19 */ JSON.stringify(chat(user('q'), assistant(null, { tool_calls: [call('c1', '{oops')] }))),
    /* 20 */ JSON.stringify(chat({ role: 'user', content: [{ type: 'image_url', image_url: { url: 'x' } }] }, assistant('a'))),
    /* 21 */ JSON.stringify({
      messages: [
        { role: 'system', content: 'You can check the weather.' },
        user('How warm is Paris?'),
        assistant(null, { tool_calls: [call('c1', { city: 'Paris' })] }),
        { role: 'tool', tool_call_id: 'c1', content: '22' },
        assistant('It is 22 degrees.'),
      ],
      tools: [{ type: 'function', function: { name: 'get_temp', parameters: { type: 'object' } } }],
    }),
    /* 22 */ JSON.stringify(chat(user('q'), assistant('a', { weight: 0 }))),
  ];
  const dir = tempFiles(t, { 'chat.jsonl': bytes(...lines.map((l) => (typeof l === 'string' ? l : Array.from(l))).flatMap((l) => [l, '\n'])) });
  const report = await scanDataset(dir, { longMessageChars: 40 });

  assert.equal(report.format, 'openai-chat');
  assert.deepEqual(report.records, { total: 21, valid: 3, invalid: 18, duplicates: 0 });
  assert.deepEqual(problems(report, dir), [
    ['chat.jsonl', 2, '', 'bad_json', 'error'],
    ['chat.jsonl', 3, 'messages[0].role', 'unknown_role', 'error'],
    ['chat.jsonl', 4, 'messages[0].role', 'missing_role', 'error'],
    ['chat.jsonl', 5, 'messages[0].content', 'empty_content', 'error'],
    ['chat.jsonl', 6, 'messages', 'no_assistant', 'error'],
    ['chat.jsonl', 7, 'messages', 'no_user', 'error'],
    ['chat.jsonl', 7, 'messages[1].role', 'role_order', 'error'],
    ['chat.jsonl', 8, 'messages[1].role', 'orphan_tool', 'error'],
    ['chat.jsonl', 9, 'messages[1].role', 'role_order', 'error'],
    ['chat.jsonl', 10, 'messages', 'wrong_type', 'error'],
    ['chat.jsonl', 11, 'messages[1].weight', 'wrong_type', 'error'],
    ['chat.jsonl', 12, '', 'invalid_utf8', 'error'],
    ['chat.jsonl', 13, 'messages[1].content', 'long_message', 'warning'],
    ['chat.jsonl', 15, 'messages', 'missing_field', 'error'],
    ['chat.jsonl', 16, '', 'wrong_type', 'error'],
    ['chat.jsonl', 17, 'messages[2].role', 'role_order', 'error'],
    ['chat.jsonl', 18, 'messages[2].tool_call_id', 'orphan_tool', 'error'],
    ['chat.jsonl', 19, 'messages[1].tool_calls[0].function.arguments', 'bad_json', 'error'],
    ['chat.jsonl', 20, 'messages[0].content[0]', 'wrong_type', 'error'],
    ['chat.jsonl', 22, 'messages', 'no_assistant', 'error'],
  ]);
  assert.deepEqual(report.problemCounts, {
    'bad_json': 2,
    'unknown_role': 1,
    'missing_role': 1,
    'empty_content': 1,
    'no_assistant': 2,
    'no_user': 1,
    'role_order': 3,
    'orphan_tool': 2,
    'wrong_type': 4,
    'invalid_utf8': 1,
    'long_message': 1,
    'missing_field': 1,
  });
  const longMessage = report.problems.find((p) => p.code === 'long_message')!;
  assert.match(longMessage.message, /50 characters long \(limit 40\)/);
  assert.match(report.problems[1].message, /"wizard"/);
});

test('sharegpt (JSON array): problems carry the array index as their line', async (t) => {
  const records = [
    /* 0 */ { conversations: [{ from: 'human', value: 'hi' }, { from: 'gpt', value: 'yo' }] },
    /* 1 */ { conversations: [{ from: 'bot', value: 'x' }] },
    /* 2 */ { conversations: [{ value: 'x' }, { from: 'gpt', value: 'y' }] },
    /* 3 */ { conversations: [{ from: 'human', value: 'q' }, { from: 'observation', value: '42' }, { from: 'gpt', value: 'a' }] },
    /* 4 */ { conversations: [{ from: 'human', value: 'q' }, { from: 'function_call', value: 'not json' }] },
    /* 5 */ { conversations: [{ from: 'human', value: 'q' }, { from: 'gpt', value: '' }] },
    /* 6 */ { conversations: [{ from: 'gpt', value: 'a' }] },
    /* 7 */ { conversations: [{ from: 'human', value: 1 }, { from: 'gpt', value: 'a' }] },
    /* 8 */ { conversations: [{ from: 'human', value: 'q' }, { from: 'gpt', value: 'a' }], tools: '[oops' },
    /* 9 */ { conversations: [{ from: 'human', value: 'q' }] },
  ];
  const dir = tempFiles(t, { 'share.json': JSON.stringify(records, null, 2) });
  const report = await scanDataset(dir);
  assert.equal(report.format, 'sharegpt');
  assert.equal(report.files[0].container, 'json-array');
  assert.deepEqual(report.records, { total: 10, valid: 1, invalid: 9, duplicates: 0 });
  assert.deepEqual(problems(report, dir), [
    ['share.json', 1, 'conversations[0].from', 'unknown_role', 'error'],
    ['share.json', 2, 'conversations[0].from', 'missing_role', 'error'],
    ['share.json', 3, 'conversations[1].from', 'orphan_tool', 'error'],
    ['share.json', 4, 'conversations[1].value', 'bad_json', 'error'],
    ['share.json', 5, 'conversations[1].value', 'empty_content', 'error'],
    ['share.json', 6, 'conversations', 'no_user', 'error'],
    ['share.json', 6, 'conversations[0].from', 'role_order', 'error'],
    ['share.json', 7, 'conversations[0].value', 'wrong_type', 'error'],
    ['share.json', 8, 'tools', 'bad_json', 'error'],
    ['share.json', 9, 'conversations', 'no_assistant', 'error'],
  ]);
});

test('a broken JSON array reports the structure problem and keeps the readable elements', async (t) => {
  const dir = tempFiles(t, { 'broken.json': '[{"text": "a"}, {"text": "b"} {"text": "c"}, {"txt": "d"},' });
  const report = await scanDataset(dir);
  assert.deepEqual(report.records, { total: 3, valid: 1, invalid: 2, duplicates: 0 });
  assert.deepEqual(problems(report, dir), [
    ['broken.json', 1, '', 'bad_json', 'error'],
    ['broken.json', 2, 'text', 'missing_field', 'error'],
    ['broken.json', 3, '', 'bad_json', 'error'],
  ]);
  assert.match(report.problems[2].message, /array is not closed/);
});

test('alpaca: missing, mistyped and empty fields', async (t) => {
  const dir = tempFiles(t, {
    'alpaca.jsonl': jsonl(
      { instruction: 'i', input: '', output: 'o' },
      { instruction: 'i' },
      { instruction: 'i', output: 5 },
      { instruction: '', output: 'o' },
      { instruction: 'i', output: 'o', history: [['q']] },
      { instruction: 'i', output: ' ' },
    ),
  });
  const report = await scanDataset(dir);
  assert.equal(report.format, 'alpaca');
  assert.deepEqual(report.records, { total: 6, valid: 1, invalid: 5, duplicates: 0 });
  assert.deepEqual(problems(report, dir), [
    ['alpaca.jsonl', 2, 'output', 'missing_field', 'error'],
    ['alpaca.jsonl', 3, 'output', 'wrong_type', 'error'],
    ['alpaca.jsonl', 4, 'instruction', 'empty_content', 'error'],
    ['alpaca.jsonl', 5, 'history[0]', 'wrong_type', 'error'],
    ['alpaca.jsonl', 6, 'output', 'empty_content', 'error'],
  ]);
});

test('prompt/completion and text records', async (t) => {
  const dir = tempFiles(t, {
    'pc.jsonl': jsonl({ prompt: 'p', completion: 'c' }, { prompt: 'p', completion: '' }, { prompt: ['p'], completion: 'c' }, { completion: 'c' }),
    'text.jsonl': jsonl({ text: 'hello', meta: 1 }, { text: '' }, { text: 3 }, { body: 'x' }, 'just a string', '"a JSON string"'),
  });
  const report = await scanDataset(dir);
  assert.equal(report.format, 'mixed');
  assert.deepEqual(report.records, { total: 10, valid: 2, invalid: 8, duplicates: 0 });
  assert.deepEqual(problems(report, dir), [
    ['pc.jsonl', 2, 'completion', 'empty_content', 'error'],
    ['pc.jsonl', 3, 'prompt', 'wrong_type', 'error'],
    ['pc.jsonl', 4, 'prompt', 'missing_field', 'error'],
    ['text.jsonl', 2, 'text', 'empty_content', 'error'],
    ['text.jsonl', 3, 'text', 'wrong_type', 'error'],
    ['text.jsonl', 4, 'text', 'missing_field', 'error'],
    ['text.jsonl', 5, '', 'bad_json', 'error'],
    ['text.jsonl', 6, '', 'wrong_type', 'error'],
  ]);
});

test('CSV: bad rows are reported at the line they start on, with the column as field', async (t) => {
  const csv = bytes(
    'prompt,completion\n', // 1
    '"a, b","c"\n', // 2: valid
    'only_one_field\n', // 3
    '"x"y,z\n', // 4
    ',empty prompt\n', // 5
    '"multi\n', // 6: valid, spans two lines
    'line",ok\n', // 7
    'caf', [0xff], ',c\n', // 8
    '"never closed,x\n', // 9
    'more\n', // 10
  );
  const dir = tempFiles(t, { 'rows.csv': csv, 'nomap.csv': 'a,b\n1,2\n' });
  const report = await scanDataset(dir);
  assert.equal(report.format, 'csv');
  assert.deepEqual(report.files.map((f) => [f.path.slice(dir.length + 1), f.records]), [
    ['nomap.csv', { total: 0, valid: 0, invalid: 0, duplicates: 0 }],
    ['rows.csv', { total: 7, valid: 2, invalid: 5, duplicates: 0 }],
  ]);
  assert.deepEqual(problems(report, dir), [
    ['nomap.csv', null, 'columns', 'missing_field', 'error'],
    ['rows.csv', 3, '', 'bad_csv', 'error'],
    ['rows.csv', 4, '', 'bad_csv', 'error'],
    ['rows.csv', 5, 'prompt', 'empty_content', 'error'],
    ['rows.csv', 8, '', 'invalid_utf8', 'error'],
    ['rows.csv', 9, '', 'bad_csv', 'error'],
  ]);
  assert.match(report.problems[0].message, /columns: a, b/);
  assert.equal(report.problems[1].message, 'expected 2 fields, found 1');
  assert.equal(report.problems[5].message, 'unterminated quoted field starting on line 9');
});

test('plain text: invalid UTF-8 is reported on its line', async (t) => {
  const dir = tempFiles(t, { 'notes.txt': bytes('fine\nbad ', [0xfe], ' byte\n') });
  const report = await scanDataset(dir);
  assert.deepEqual(problems(report, dir), [['notes.txt', 2, '', 'invalid_utf8', 'error']]);
  assert.deepEqual(report.records, { total: 1, valid: 0, invalid: 1, duplicates: 0 });
});

test('file-level problems: missing path, unknown format, empty file, oversized record', async (t) => {
  const dir = tempFiles(t, {
    'mystery.jsonl': jsonl({ foo: 1 }, { bar: 2 }),
    'empty.jsonl': '',
    'big.jsonl': jsonl({ text: 'short' }, { text: 'x'.repeat(500) }, { text: 'fine' }),
  });
  const missing = join(dir, 'nope', 'data.jsonl');
  const report = await scanDataset([dir, missing], { maxRecordBytes: 200 });
  assert.deepEqual(problems(report, dir), [
    [join('nope', 'data.jsonl'), null, '', 'not_found', 'error'],
    ['empty.jsonl', null, '', 'empty_content', 'error'],
    ['mystery.jsonl', null, '', 'unknown_format', 'error'],
    ['big.jsonl', 2, '', 'too_large', 'error'],
  ]);
  const notFound = report.problems.find((p) => p.code === 'not_found')!;
  assert.equal(notFound.message, `no such file or folder: ${missing}`);
  assert.match(report.problems.find((p) => p.code === 'unknown_format')!.message, /keys "foo"/);
  assert.deepEqual(report.files.map((f) => f.path), [join(dir, 'big.jsonl')]);
  assert.deepEqual(report.records, { total: 3, valid: 2, invalid: 1, duplicates: 0 });
});

test('role names are matched exactly, not through the object prototype', async (t) => {
  const dir = tempFiles(t, {
    'proto.jsonl': jsonl(chat({ role: 'toString', content: 'x' }, assistant('y'))),
    'proto-share.jsonl': jsonl({ conversations: [{ from: 'constructor', value: 'x' }, { from: 'gpt', value: 'y' }] }),
  });
  const report = await scanDataset(dir);
  assert.deepEqual(problems(report, dir), [
    ['proto-share.jsonl', 1, 'conversations[0].from', 'unknown_role', 'error'],
    ['proto.jsonl', 1, 'messages[0].role', 'unknown_role', 'error'],
  ]);
});

test('the problem list is capped by maxProblems while every problem is counted', async (t) => {
  const dir = tempFiles(t, { 'bad.jsonl': jsonl({ text: 'ok' }, ...Array.from({ length: 30 }, () => '{nope')) });
  const report = await scanDataset(dir, { maxProblems: 5 });
  assert.equal(report.problems.length, 5);
  assert.equal(report.problemsOmitted, 25);
  assert.deepEqual(report.problemCounts, { 'bad_json': 30 });
  assert.deepEqual(report.records, { total: 31, valid: 1, invalid: 30, duplicates: 0 });
});

after(() => {
  // read_error needs a file the test user cannot read, which root can; it shares code with not_found.
  const all: ProblemCode[] = [
    'not_found', 'unknown_format', 'bad_json', 'bad_csv', 'invalid_utf8', 'missing_field', 'wrong_type',
    'missing_role', 'unknown_role', 'empty_content', 'no_assistant', 'no_user', 'orphan_tool', 'role_order',
    'too_large', 'long_message',
  ];
  assert.deepEqual(all.filter((code) => !seen.has(code)), [], 'every problem kind is exercised');
});
