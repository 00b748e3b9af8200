/**
 * Bad input to hone-train: each case exits non-zero with a message that names the problem
 * and where it is, never crashes, and leaves no output folder behind.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { requireFixture } from '../helpers/fixtures.ts';
import { honeTrain, makeModel, tempDir } from '../helpers/native.ts';

const TEXT = 'Once upon a time there was a little girl. She liked to play in the sun with her friends.';

function expectFailure(args: string[], out: string, pattern: RegExp, exitCode = 1) {
  const r = honeTrain([...args, '--out', out, '--steps', '2', '--ctx', '32', '--json']);
  assert.equal(r.code, exitCode, `expected exit ${exitCode}, got ${r.code}: ${r.stderr}`);
  assert.match(r.stderr, pattern);
  if (exitCode === 1) {
    const err = r.events.find((e) => e.type === 'error');
    assert.ok(err && typeof err.code === 'string' && pattern.test(err.message), `JSON error event: ${r.stdout}`);
  }
  assert.ok(!existsSync(out), 'nothing may be left behind');
}

describe('hone-train rejects bad input clearly', () => {
  const dir = tempDir();
  const data = join(dir, 'text.txt');
  writeFileSync(data, TEXT);
  const out = join(dir, 'out');

  test('a model path that does not exist', () => {
    const missing = join(dir, 'nope.gguf');
    expectFailure(['--model', missing, '--data', data], out, new RegExp(`nope\\.gguf: file not found`));
  });

  test('a file that is not GGUF', () => {
    const notGguf = join(dir, 'model.gguf');
    writeFileSync(notGguf, 'this is a text file, not a model\n');
    expectFailure(['--model', notGguf, '--data', data], out, /model\.gguf: not a GGUF file/);
  });

  test('a truncated GGUF', (t) => {
    const src = requireFixture(t, 'stories260K.gguf');
    if (!src) return;
    const bytes = readFileSync(src);
    const cut = join(dir, 'truncated.gguf');
    writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length / 2)));
    expectFailure(['--model', cut, '--data', data], out, /truncated\.gguf: truncated GGUF file: tensor '[^']+' ends at byte \d+ but the file has \d+ bytes/);
    const header = join(dir, 'header-cut.gguf');
    writeFileSync(header, bytes.subarray(0, 200));
    expectFailure(['--model', header, '--data', data], out, /header-cut\.gguf: corrupt or truncated GGUF header/);
  });

  test('an old GGUF version', (t) => {
    const src = requireFixture(t, 'stories260K.gguf');
    if (!src) return;
    const bytes = Buffer.from(readFileSync(src));
    bytes.writeUInt32LE(1, 4);
    const old = join(dir, 'v1.gguf');
    writeFileSync(old, bytes);
    expectFailure(['--model', old, '--data', data], out, /v1\.gguf: GGUF version 1 is too old/);
  });

  test('rank 0 and a rank larger than a targeted layer', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    expectFailure(['--model', model, '--data', data, '--rank', '0'], out, /LoRA rank must be at least 1 \(got 0\)/);
    // attn_k is 64 x 32 in stories260K (grouped-query attention)
    expectFailure(['--model', model, '--data', data, '--rank', '40'], out, /LoRA rank 40 is larger than layer 'blk\.0\.attn_k\.weight' allows \(64 x 32: rank at most 32\)/);
  });

  test('an unknown target name', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    expectFailure(['--model', model, '--data', data, '--targets', 'attn_q,attn_x'], out, /unknown target module\(s\): attn_x/);
  });

  test('an output target on a model whose output head is tied to token_embd', () => {
    const model = makeModel(dir, { arch: 'qwen2', embd: 64, layers: 1, heads: 2, kvHeads: 1, ff: 128, type: 'f32', tied: true, vocab: 'llama-spm' });
    expectFailure(['--model', model, '--data', data, '--targets', 'attn_q,output'], out, /target 'output' is not possible on this model: its output head is tied to token_embd/);
  });

  test('an empty dataset, a missing one, and a malformed JSONL line', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const empty = join(dir, 'empty.txt');
    writeFileSync(empty, '');
    expectFailure(['--model', model, '--data', empty], out, /empty\.txt: the dataset is empty/);
    expectFailure(['--model', model, '--data', join(dir, 'absent.txt')], out, /absent\.txt: file not found/);
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, '{"text": "fine"}\n{"text": "broken\n{"title": "no text"}\n');
    expectFailure(['--model', model, '--data', bad], out, /bad\.jsonl:2: invalid JSON/);
    writeFileSync(bad, '{"text": "fine"}\n{"title": "no text"}\n');
    expectFailure(['--model', model, '--data', bad], out, /bad\.jsonl:2: missing field 'text'/);
  });

  test('chat, instruction, JSON, CSV and binary data are refused with a pointer to `hone train`', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const chat = requireFixture(t, 'chat_elements_limericks.jsonl');
    if (!chat) return;
    const pointer = /`hone train` reads chat, instruction, JSON and CSV datasets/;
    expectFailure(['--model', model, '--data', chat], out, /chat_elements_limericks\.jsonl:1: a chat or instruction record \(field 'messages'\)/);
    expectFailure(['--model', model, '--data', chat], out, pointer);
    const alpaca = [{ instruction: 'Name a colour.', input: '', output: 'Blue.' }, { instruction: 'Say hi.', input: '', output: 'Hi!' }];
    const json = join(dir, 'alpaca.json');
    writeFileSync(json, JSON.stringify(alpaca, null, 2));
    expectFailure(['--model', model, '--data', json], out, /alpaca\.json: a JSON file; hone-train reads plain text/);
    // the same records as JSONL, and under a name that does not say JSONL: refused by content
    const lines = alpaca.map((r) => JSON.stringify(r)).join('\n') + '\n';
    for (const name of ['alpaca.jsonl', 'alpaca.txt']) {
      writeFileSync(join(dir, name), lines);
      expectFailure(['--model', model, '--data', join(dir, name)], out, new RegExp(`${name.replace('.', '\\.')}:1: a chat or instruction record \\(field 'instruction'\\)`));
    }
    const csv = join(dir, 'pairs.csv');
    writeFileSync(csv, 'prompt,completion\nhi,hello\n');
    expectFailure(['--model', model, '--data', csv], out, /pairs\.csv: a CSV\/TSV table/);
    expectFailure(['--model', model, '--data', model], out, /stories260K\.gguf: a binary file/);
    const nul = join(dir, 'nul.txt');
    writeFileSync(nul, 'text\n\0\x01\x02 binary\n');
    expectFailure(['--model', model, '--data', nul], out, /nul\.txt:2: a binary file \(it holds NUL bytes\)/);
  });

  test('a byte-order mark and CRLF line ends are read as the text they frame', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const crlf = join(dir, 'crlf.jsonl');
    writeFileSync(crlf, '\uFEFF{"text": "' + TEXT + '"}\r\n{"text": "' + TEXT + '"}\r\n');
    const r = honeTrain(['--model', model, '--data', crlf, '--out', join(dir, 'crlf-out'), '--steps', '1', '--ctx', '32', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(readFileSync(join(dir, 'crlf-out', 'run.json'), 'utf8')).data.format, 'jsonl-text');
  });

  test('an unknown GPU precision, before anything is loaded', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    expectFailure(['--model', model, '--data', data, '--gpu-precision', 'fp8'], out, /unknown GPU precision 'fp8' \(expected bf16 or f32\)/);
  });

  test('an unknown option is a usage error', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    expectFailure(['--model', model, '--data', data, '--rnak', '8'], out, /unknown option '--rnak'/, 2);
  });
});
