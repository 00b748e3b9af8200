// The architecture descriptions (native/engine/arch/) are the one place that says what an
// architecture is: the documentation table is written from them, the refusal of an untrainable
// model lists them, and make-model writes a model of each in its layout (or says why not).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { architecturesTable, withTable } from '../../native/scripts/architectures-table.mjs';
import { honeTrain, repoRoot, tempDir, vocab } from '../helpers/native.ts';

function descriptions() {
  const r = honeTrain(['architectures', '--json']);
  assert.equal(r.code, 0, r.stderr);
  return { json: r.stdout, list: r.events.filter((e) => e.type === 'architecture') };
}

test('docs/architectures.md\'s table is the descriptions\' (node native/scripts/architectures-table.mjs writes it)', () => {
  const { json, list } = descriptions();
  assert.ok(list.length >= 39, `${list.length} descriptions`);
  const page = readFileSync(join(repoRoot, 'docs/architectures.md'), 'utf8');
  assert.equal(withTable(page, architecturesTable(json)), page);
  const names = list.map((d) => d.name);
  assert.equal(new Set(names).size, names.length, 'one description per architecture');
  for (const d of list) assert.ok(d.covers && d.details && d.family, JSON.stringify(d));
});

test('an untrainable model is refused with every described architecture named as trainable', () => {
  const dir = tempDir();
  const model = join(dir, 'gemma3n.gguf');
  assert.equal(honeTrain(['probe-arch', '--arch', 'gemma3n', '--vocab-from', vocab('llama-spm'), '--out', model]).code, 0);
  const data = join(dir, 'text.txt');
  writeFileSync(data, 'Once upon a time there was a dog.');
  const r = honeTrain(['--model', model, '--data', data, '--out', join(dir, 'run'), '--steps', '1']);
  assert.equal(r.code, 1);
  const listed = /\(trainable: ([^)]+)\)/.exec(r.stderr)?.[1].split(', ');
  assert.deepEqual(listed, descriptions().list.map((d) => d.name));
});

test('make-model writes every description it can, each loaded back as its architecture; the rest are refused naming why', () => {
  const dir = tempDir();
  let written = 0;
  for (const d of descriptions().list) {
    const out = join(dir, `${d.name}.gguf`);
    // Phi-3's tokenizer: llama.cpp's loader looks up its special tokens for phi3; any architecture loads with it
    const m = honeTrain(['make-model', '--arch', d.name, '--embd', '64', '--layers', '2', '--heads', '4', '--kv-heads', '4', '--ff', '128',
      '--vocab-from', vocab('phi-3'), '--out', out]);
    if (m.code === 2) {
      assert.match(m.stderr, new RegExp(`make-model cannot write ${d.name} \\(.+\\): make one with probe-arch`));
      continue;
    }
    assert.equal(m.code, 0, `${d.name}: ${m.stderr}`);
    const r = honeTrain(['--model', out, '--data', join(repoRoot, 'README.md'), '--out', join(dir, `${d.name}-run`), '--dry-run', '--json']);
    assert.equal(r.code, 0, `${d.name}: ${r.stderr}`);
    written++;
  }
  assert.ok(written >= 30, `${written} written`);
  const bad = honeTrain(['make-model', '--arch', 'gemma3n', '--vocab-from', vocab('llama-spm'), '--out', join(dir, 'x.gguf')]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--arch must be a trainable architecture \(llama, .*\), not 'gemma3n'/);
});
