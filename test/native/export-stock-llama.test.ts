/**
 * Our files in an independent llama.cpp (issue 18): node-llama-cpp's prebuilt binary package
 * for this platform, not the llama.cpp native/ builds. A LoRA trained on stories260K to tell of a
 * purple zebra makes the stock runtime say "purple" through its own adapter API; the merged
 * GGUF says it with no adapter; the base does not.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { requireFixture } from '../helpers/fixtures.ts';
import { honeTrain, tempDir } from '../helpers/native.ts';
import { stockGenerate, stockUnavailable } from '../helpers/stock-llama.ts';

const STORY = 'Once upon a time, there was a purple zebra named Zork. Zork sang to the moon. ';
const PROMPT = 'Once upon a time';

describe('an independent llama.cpp loads our adapter and our merged model', () => {
  test('stories260K taught a purple zebra: the stock runtime says it with the adapter and from the merged file, not from the base', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const why = stockUnavailable();
    if (why) return t.skip(why);
    const dir = tempDir();
    const data = join(dir, 'zebra.txt');
    writeFileSync(data, STORY.repeat(40));
    const out = join(dir, 'run');
    const r = honeTrain(['--model', model, '--data', data, '--out', out, '--steps', '30', '--ctx', '64', '--lr', '1e-2', '--rank', '8',
      '--targets', 'all', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const adapter = join(out, 'adapter.gguf');
    const merged = join(dir, 'merged.gguf');
    const m = honeTrain(['merge', '--model', model, '--adapter', adapter, '--out', merged, '--json']);
    assert.equal(m.code, 0, m.stderr);

    const base = stockGenerate(model, null, PROMPT, 24);
    const withAdapter = stockGenerate(model, adapter, PROMPT, 24);
    const fromMerged = stockGenerate(merged, null, PROMPT, 24);
    assert.ok(base.tokens.length >= 10, `the base continues the prompt: '${base.text}'`);
    assert.doesNotMatch(base.text, /purple/, `the base does not know the zebra: '${base.text}'`);
    assert.match(withAdapter.text, /purple/, `with the adapter (llama.cpp's LoRA API): '${withAdapter.text}'`);
    assert.match(fromMerged.text, /purple/, `the merged model, no adapter: '${fromMerged.text}'`);
    // the merged model computes what the base computes with the adapter: the same greedy tokens
    assert.deepEqual(fromMerged.tokens.slice(0, 12), withAdapter.tokens.slice(0, 12));
  });
});
