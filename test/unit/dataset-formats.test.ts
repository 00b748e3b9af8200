/** Every format, sniffed and normalised to the internal Example shape. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { importDataset, type Example } from '../../electron/services/dataset/index.ts';
import { jsonl, tempFiles } from '../helpers/temp-files.ts';

/** Imports one file written to a temp folder; returns report + all examples (train then eval). */
async function importOne(t: object, name: string, content: string, options = {}) {
  const dir = tempFiles(t, { [name]: content });
  const file = join(dir, name);
  const { report, train, eval: evalSet } = await importDataset(file, options);
  return { report, file, examples: [...train, ...evalSet] };
}

const src = (file: string, line: number) => ({ file, line });

test('openai-chat: system/user/assistant/tool roles, tool_calls, tools, weight, text parts', async (t) => {
  const tools = [{ type: 'function', function: { name: 'get_temp', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
  const { report, file, examples } = await importOne(
    t,
    'chat.jsonl',
    jsonl(
      {
        messages: [
          { role: 'developer', content: 'Be brief.' },
          { role: 'user', content: [{ type: 'text', text: 'Warm in ' }, { type: 'text', text: 'Paris?' }] },
          { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_temp', arguments: { city: 'Paris' } } }] },
          { role: 'tool', tool_call_id: 'c1', name: 'get_temp', content: '22' },
          { role: 'assistant', content: 'Yes, 22.', weight: 1 },
          { role: 'user', content: 'Thanks' },
          { role: 'assistant', content: 'Bye', weight: 0 },
        ],
        tools,
      },
      { messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b', tool_calls: [] }] },
    ),
  );
  assert.equal(report.format, 'openai-chat');
  assert.deepEqual(report.records, { total: 2, valid: 2, invalid: 0, duplicates: 0 });
  assert.deepEqual(examples, [
    {
      kind: 'chat',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Warm in Paris?' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_temp', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', content: '22', tool_call_id: 'c1', name: 'get_temp' },
        { role: 'assistant', content: 'Yes, 22.', weight: 1 },
        { role: 'user', content: 'Thanks' },
        { role: 'assistant', content: 'Bye', weight: 0 },
      ],
      tools,
      source: src(file, 1),
    },
    { kind: 'chat', messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }], source: src(file, 2) },
  ] satisfies Example[]);
});

test('sharegpt JSONL: human/gpt/system, function_call/observation tool turns, tools as a JSON string', async (t) => {
  const tools = [{ name: 'get_temp', parameters: { type: 'object' } }];
  const { report, file, examples } = await importOne(
    t,
    'share.jsonl',
    jsonl({
      system: 'You check the weather.',
      tools: JSON.stringify(tools),
      conversations: [
        { from: 'human', value: 'Paris?' },
        { from: 'function_call', value: JSON.stringify({ name: 'get_temp', arguments: { city: 'Paris' } }) },
        { from: 'observation', value: '22' },
        { from: 'gpt', value: '22 degrees.' },
      ],
    }),
  );
  assert.equal(report.format, 'sharegpt');
  assert.deepEqual(examples, [
    {
      kind: 'chat',
      messages: [
        { role: 'system', content: 'You check the weather.' },
        { role: 'user', content: 'Paris?' },
        { role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name: 'get_temp', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', content: '22' },
        { role: 'assistant', content: '22 degrees.' },
      ],
      tools,
      source: src(file, 1),
    },
  ]);
});

test('sharegpt JSON array, with a system turn inside the conversation', async (t) => {
  const { report, file, examples } = await importOne(
    t,
    'share.json',
    JSON.stringify([
      { conversations: [{ from: 'system', value: 'S' }, { from: 'human', value: 'Q1' }, { from: 'gpt', value: 'A1' }, { from: 'human', value: 'Q2' }, { from: 'gpt', value: 'A2' }] },
    ]),
  );
  assert.deepEqual([report.format, report.files[0].container], ['sharegpt', 'json-array']);
  assert.deepEqual(examples, [
    {
      kind: 'chat',
      messages: [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'Q1' },
        { role: 'assistant', content: 'A1' },
        { role: 'user', content: 'Q2' },
        { role: 'assistant', content: 'A2' },
      ],
      source: src(file, 0),
    },
  ]);
});

test('alpaca JSON array and JSONL: instruction + input, system, history', async (t) => {
  const records = [
    { instruction: 'Translate', input: 'chat', output: 'cat', system: 'You translate French.', history: [['Bonjour?', 'Hello?']] },
    { instruction: 'Say hi', input: '', output: 'hi' },
  ];
  const expected = (file: string, lines: [number, number]): Example[] => [
    {
      kind: 'chat',
      messages: [
        { role: 'system', content: 'You translate French.' },
        { role: 'user', content: 'Bonjour?' },
        { role: 'assistant', content: 'Hello?' },
        { role: 'user', content: 'Translate\n\nchat' },
        { role: 'assistant', content: 'cat' },
      ],
      source: src(file, lines[0]),
    },
    { kind: 'chat', messages: [{ role: 'user', content: 'Say hi' }, { role: 'assistant', content: 'hi' }], source: src(file, lines[1]) },
  ];
  const array = await importOne(t, 'alpaca.json', JSON.stringify(records, null, 2));
  assert.deepEqual([array.report.format, array.report.files[0].container], ['alpaca', 'json-array']);
  assert.deepEqual(array.examples, expected(array.file, [0, 1]));
  const lines = await importOne(t, 'alpaca.jsonl', jsonl(...records));
  assert.deepEqual([lines.report.format, lines.report.files[0].container], ['alpaca', 'jsonl']);
  assert.deepEqual(lines.examples, expected(lines.file, [1, 2]));
});

test('prompt/completion JSONL becomes a one-turn chat', async (t) => {
  const { report, file, examples } = await importOne(t, 'pc.jsonl', jsonl({ prompt: 'Q', completion: 'A' }, { prompt: 'Q2', completion: 'A2', system: 'S' }));
  assert.equal(report.format, 'prompt-completion');
  assert.deepEqual(examples, [
    { kind: 'chat', messages: [{ role: 'user', content: 'Q' }, { role: 'assistant', content: 'A' }], source: src(file, 1) },
    { kind: 'chat', messages: [{ role: 'system', content: 'S' }, { role: 'user', content: 'Q2' }, { role: 'assistant', content: 'A2' }], source: src(file, 2) },
  ]);
});

test('text JSONL, other keys ignored; CRLF line ends and a missing final newline are fine', async (t) => {
  const { report, file, examples } = await importOne(t, 'text.jsonl', '{"text": "one", "id": 7}\r\n\r\n{"meta": {}, "text": "two"}');
  assert.equal(report.format, 'text');
  assert.deepEqual(examples, [
    { kind: 'text', text: 'one', source: src(file, 1) },
    { kind: 'text', text: 'two', source: src(file, 3) },
  ]);
});

test('CSV: header names map to prompt/completion/system; quoted fields and embedded newlines', async (t) => {
  const csv = 'System,Question,Answer\r\n"",What is 2+2?,4\r\nBe terse.,"Write ""hi""\r\non two lines","hi,\r\nhi"\r\n';
  const { report, file, examples } = await importOne(t, 'qa.csv', csv);
  assert.deepEqual([report.format, report.files[0].container], ['csv', 'csv']);
  assert.deepEqual(examples, [
    { kind: 'chat', messages: [{ role: 'user', content: 'What is 2+2?' }, { role: 'assistant', content: '4' }], source: src(file, 2) },
    {
      kind: 'chat',
      messages: [
        { role: 'system', content: 'Be terse.' },
        { role: 'user', content: 'Write "hi"\non two lines' },
        { role: 'assistant', content: 'hi,\nhi' },
      ],
      source: src(file, 3),
    },
  ]);
});

test('CSV/TSV: explicit column mapping by name or by number, with or without a header', async (t) => {
  const tsv = await importOne(t, 'data.tsv', 'id\tbody\n1\tfirst text\n2\t"second\ttext"\n', { csv: { columns: { text: 'body' } } });
  assert.deepEqual([tsv.report.format, tsv.report.files[0].container], ['csv', 'tsv']);
  assert.deepEqual(tsv.examples, [
    { kind: 'text', text: 'first text', source: src(tsv.file, 2) },
    { kind: 'text', text: 'second\ttext', source: src(tsv.file, 3) },
  ]);
  const headless = await importOne(t, 'pairs.csv', 'q1;a1\nq2;a2\n', { csv: { header: false, delimiter: ';', columns: { prompt: 0, completion: 1 } } });
  assert.deepEqual(headless.examples.map((e) => [e.source.line, e.kind === 'chat' && e.messages.map((m) => m.content)]), [
    [1, ['q1', 'a1']],
    [2, ['q2', 'a2']],
  ]);
});

test('plain text: a folder of .txt/.md documents, each cut into segments that join back exactly', async (t) => {
  const paragraph = (n: number) => `Paragraph ${n}. ${'word '.repeat(30)}\n`;
  const long = Array.from({ length: 12 }, (_, i) => paragraph(i)).join('\n');
  const dir = tempFiles(t, { 'a.txt': long, 'b.md': '# Title\r\n\r\nShort note without final newline' });
  const { report, train } = await importDataset(dir, { textSegmentChars: 400 });
  assert.equal(report.format, 'plain-text');
  const a = train.filter((e) => e.source.file === join(dir, 'a.txt'));
  const b = train.filter((e) => e.source.file === join(dir, 'b.md'));
  assert.ok(a.length > 2, `a.txt is cut into several segments (got ${a.length})`);
  assert.equal(a.map((e) => (e.kind === 'text' ? e.text : '')).join(''), long);
  assert.deepEqual(a.map((e) => (e.kind === 'text' ? e.document : null)), a.map((_, part) => ({ id: join(dir, 'a.txt'), part })));
  // Segments start right after a paragraph break. Paragraphs are ~166 chars plus a blank
  // line, so the first cut comes after the third paragraph's blank line (line 6).
  for (const e of a.slice(1)) assert.match(e.kind === 'text' ? e.text : '', /^Paragraph \d+\./);
  assert.deepEqual(a.map((e) => e.source.line).slice(0, 2), [1, 7]);
  assert.deepEqual(b, [{ kind: 'text', text: '# Title\n\nShort note without final newline', source: src(join(dir, 'b.md'), 1), document: { id: join(dir, 'b.md'), part: 0 } }]);
});

test('format overrides: for all files, or per file, win over sniffing', async (t) => {
  const dir = tempFiles(t, {
    'notes.jsonl': jsonl({ text: 'line one' }, { text: 'line two' }),
    'raw.data': 'not a known extension\n',
  });
  const perFile = await importDataset([join(dir, 'notes.jsonl'), join(dir, 'raw.data')], {
    formatByFile: { [join(dir, 'notes.jsonl')]: 'plain-text', [join(dir, 'raw.data')]: 'plain-text' },
  });
  assert.deepEqual(perFile.report.files.map((f) => [f.format, f.container, f.overridden]), [
    ['plain-text', 'text', true],
    ['plain-text', 'text', true],
  ]);
  assert.equal(perFile.train[0].kind === 'text' && perFile.train[0].text, '{"text":"line one"}\n{"text":"line two"}\n');
  const all = await importDataset(join(dir, 'notes.jsonl'), { format: 'text' });
  assert.deepEqual([all.report.files[0].overridden, all.train.length], [true, 2]);
});

test('sniffing looks past leading records it cannot classify', async (t) => {
  const { report } = await importOne(t, 'late.jsonl', jsonl('{broken', { id: 1 }, { prompt: 'p', completion: 'c' }));
  assert.equal(report.format, 'prompt-completion');
});
