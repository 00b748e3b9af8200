// The architecture scan's list of ops with a backward (native/engine/arch_scan.cpp) is kept by
// hand; it must say what ggml's ggml_compute_backward, in the patched source the engine is built
// from, differentiates: a patch that adds a backward the list lacks, or an op the list names that
// ggml aborts on, fails here. Read from the source text: the switch's case labels whose body is
// not GGML_ABORT (fall-through labels share the next body), with UNARY's and GLU's sub-ops.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { prepareLlamaSource } from '../../native/scripts/llama-source.mjs';
import { repoRoot } from '../helpers/native.ts';

/** The body of `ggml_compute_backward` in ggml.c. */
function backwardFunction(ggmlC: string): string {
  const start = ggmlC.indexOf('static void ggml_compute_backward(');
  assert.ok(start >= 0, 'ggml.c has ggml_compute_backward');
  let depth = 0;
  for (let i = ggmlC.indexOf('{', start); i < ggmlC.length; i++) {
    if (ggmlC[i] === '{') depth++;
    else if (ggmlC[i] === '}' && --depth === 0) return ggmlC.slice(start, i + 1);
  }
  throw new Error('ggml_compute_backward never closes');
}

/** Labels `case PREFIX<NAME>:` whose code (up to the next label) does more than abort. */
function differentiated(body: string, prefix: string): string[] {
  const label = new RegExp(`case ${prefix}([A-Z0-9_]+):|default:`, 'g');
  const marks = [...body.matchAll(label)].map((m) => ({ name: m[1] ?? null, at: m.index!, end: m.index! + m[0].length }));
  const out: string[] = [];
  let pending: string[] = [];
  marks.forEach((m, i) => {
    if (m.name) pending.push(m.name);
    const code = body.slice(m.end, marks[i + 1]?.at ?? body.length).trim();
    if (code === '' || code === '{') return; // falls through to the next label
    if (!/^\{?\s*GGML_ABORT/.test(code)) out.push(...pending);
    pending = [];
  });
  return out;
}

test("the scan's ops with a backward are exactly ggml's", () => {
  const { src } = prepareLlamaSource(join(repoRoot, 'native', 'patches'));
  const fn = backwardFunction(readFileSync(join(src, 'ggml', 'src', 'ggml.c'), 'utf8'));
  const unaryAt = fn.indexOf('switch (ggml_get_unary_op(tensor))');
  const gluAt = fn.indexOf('switch (ggml_get_glu_op(tensor))');
  assert.ok(unaryAt > 0 && gluAt > 0, 'the UNARY and GLU sub-switches are where they were');
  const ops = differentiated(fn.replace(/switch \(ggml_get_(unary|glu)_op\(tensor\)\) \{[\s\S]*?\n {12}\}/g, '{ /* sub-switch */ }'), 'GGML_OP_');
  const unary = differentiated(fn.slice(unaryAt, fn.indexOf('\n            }', unaryAt)), 'GGML_UNARY_OP_');
  const glu = differentiated(fn.slice(gluAt, fn.indexOf('\n            }', gluAt)), 'GGML_GLU_OP_');
  const ggml = new Set([...ops.filter((o) => o !== 'UNARY' && o !== 'GLU'), ...unary, ...glu]);
  assert.ok(unary.includes('SILU') && glu.includes('SWIGLU') && ggml.has('MUL_MAT') && ggml.has('ROPE'), [...ggml].join(', '));

  const scan = readFileSync(join(repoRoot, 'native', 'engine', 'arch_scan.cpp'), 'utf8');
  const list = scan.slice(scan.indexOf('ops_with_backward()'), scan.indexOf('return s;', scan.indexOf('ops_with_backward()')));
  const ours = new Set([...list.matchAll(/"([A-Z0-9_]+)"/g)].map((m) => m[1]));
  assert.deepEqual([...ggml].filter((o) => !ours.has(o)).sort(), [], 'ggml differentiates these, the scan says they have no backward');
  assert.deepEqual([...ours].filter((o) => !ggml.has(o)).sort(), [], 'the scan says these have a backward, ggml aborts on them');
});
