/**
 * Records nested thousands deep (found by the fuzz suite): JSON.parse reads them, but the
 * duplicate key's JSON.stringify ran out of stack, so the import threw a RangeError (deep
 * `tools`) or lost the whole file to one `read_error` (deep tool-call arguments). Such a record
 * is now one `bad_json` problem on its line, and the file's other records import.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { importDataset } from '../../electron/services/dataset/index.ts';
import { MAX_JSON_DEPTH } from '../../electron/services/dataset/json-depth.ts';
import { tempFiles } from '../helpers/temp-files.ts';

const arrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const objects = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
const good = '{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]}';

async function importLines(t: object, name: string, ...lines: string[]) {
  const dir = tempFiles(t, { [name]: lines.join('\n') + '\n' });
  return importDataset(join(dir, name));
}

test('tools nested 20,000 deep: a bad_json problem on its line, not a RangeError', async (t) => {
  const { report, train } = await importLines(t, 'chat.jsonl', `{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"}],"tools":${arrays(20_000)}}`, good);
  assert.deepEqual(report.records, { total: 2, valid: 1, invalid: 1, duplicates: 0 });
  assert.equal(train.length, 1);
  assert.deepEqual(report.problems.map((p) => [p.code, p.line]), [['bad_json', 1]]);
  assert.match(report.problems[0].message, new RegExp(`more than ${MAX_JSON_DEPTH} levels deep`));
});

test('tool-call arguments nested 20,000 deep: one bad record, the rest of the file still imports', async (t) => {
  const call = `{"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":${objects(20_000)}}}]}`;
  const { report } = await importLines(t, 'chat.jsonl', `{"messages":[{"role":"user","content":"hi"},${call},{"role":"tool","content":"r"},{"role":"assistant","content":"ok"}]}`, good);
  assert.deepEqual(report.records, { total: 2, valid: 1, invalid: 1, duplicates: 0 });
  assert.deepEqual(report.problems.map((p) => p.code), ['bad_json']);
});

test('ShareGPT strings that hold JSON nested too deep: bad_json on the field', async (t) => {
  const callValue = JSON.stringify(`{"name":"f","arguments":${objects(5_000)}}`);
  const toolsValue = JSON.stringify(arrays(5_000));
  const { report } = await importLines(
    t,
    'chat.jsonl',
    `{"conversations":[{"from":"human","value":"hi"},{"from":"function_call","value":${callValue}},{"from":"observation","value":"r"},{"from":"gpt","value":"ok"}]}`,
    `{"conversations":[{"from":"human","value":"hi"},{"from":"gpt","value":"ok"}],"tools":${toolsValue}}`,
  );
  assert.deepEqual(report.problems.map((p) => [p.code, p.line, p.field]), [['bad_json', 1, 'conversations[1].value'], ['bad_json', 2, 'tools']]);
});

test(`a tool schema nested ${MAX_JSON_DEPTH - 8} deep still imports`, async (t) => {
  const tools = `[{"type":"function","function":{"name":"f","parameters":${objects(MAX_JSON_DEPTH - 8)}}}]`;
  const { report } = await importLines(t, 'chat.jsonl', `{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"}],"tools":${tools}}`);
  assert.deepEqual(report.records, { total: 1, valid: 1, invalid: 0, duplicates: 0 });
});
