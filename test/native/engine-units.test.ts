/**
 * The engine's pure parts through its own C++ functions (native/tests/test-engine.cpp, built as
 * hone-engine-tests): learning-rate schedules and segments, the data order, sequence
 * preparation and text windows, the loss arithmetic, hyperparameters per architecture from
 * in-memory GGUF headers, checkpoint state.json encoding and decoding. The binary prints one
 * line per case, `ok <name>` or `not ok <name>: <why>`; each case is its own test here.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bin, run, type RunResult } from '../helpers/native.ts';

interface Case { name: string; ok: boolean; why: string }

let result: RunResult | null = null;
let startError: unknown = null;
try {
  result = run(bin('hone-engine-tests'), [], 120_000);
} catch (e) {
  startError = e;
}

const lines = result ? result.stdout.split('\n').filter((l) => l.length > 0) : [];
const cases: Case[] = [];
const unparsed: string[] = [];
for (const l of lines) {
  const ok = /^ok (.+)$/.exec(l);
  const bad = /^not ok (.+?): (.*)$/.exec(l);
  if (ok) cases.push({ name: ok[1], ok: true, why: '' });
  else if (bad) cases.push({ name: bad[1], ok: false, why: bad[2] });
  else unparsed.push(l);
}

test('hone-engine-tests runs every case to the end and its exit code says whether all passed', () => {
  if (startError) throw startError;
  assert.ok(result);
  assert.deepEqual(unparsed, [], `lines outside the protocol:\n${unparsed.join('\n')}\n${result.stderr}`);
  assert.ok(cases.length >= 30, `${cases.length} cases reported\n${result.stdout}\n${result.stderr}`);
  assert.equal(new Set(cases.map((c) => c.name)).size, cases.length, 'case names repeat');
  assert.equal(result.code, cases.every((c) => c.ok) ? 0 : 1, result.stderr);
});

for (const c of cases) {
  test(`engine: ${c.name}`, () => {
    if (!c.ok) assert.fail(c.why);
  });
}
