/**
 * Kernels our patches change on the CPU backend, checked where test-backend-ops cannot
 * (it compares other backends against the CPU, so a CPU-only build runs none of its cases),
 * and the backward passes patches 0005-0007 add, through test-backend-ops' grad mode, which does
 * run on the CPU (analytic gradients against finite differences).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bin, run } from '../helpers/native.ts';

test('OUT_PROD with a quantized src0 (patch 0001) and the shapes of patch 0011\'s Metal cases matches a float64 reference and is thread-count independent', () => {
  const r = run(bin('hone-test-out-prod-cpu'), []);
  const lines = r.stdout.trim().split('\n');
  assert.ok(lines.length >= 8 + 13 * 4 + 12, r.stdout);
  // every type a training base uses in batches (broadcast over dim 2 for F32), rank-4 operands both ways
  for (const t of ['f32', 'f16', 'bf16', 'q4_0', 'q4_1', 'q5_0', 'q5_1', 'q8_0', 'q2_K', 'q3_K', 'q4_K', 'q5_K', 'q6_K']) {
    assert.ok(lines.some((l) => l.includes(`out_prod ${t} m=512 n=40 k=64 batch=2 broadcast=${t === 'f32' ? 3 : 1} trans_b=1`)), t);
  }
  assert.ok(lines.some((l) => l.includes('out_prod f32 m=4 n=130 k=300')) && lines.some((l) => l.includes('out_prod f32 m=300 n=4 k=130')));
  for (const l of lines) assert.match(l, /^ok out_prod /, l);
  assert.equal(r.code, 0);
});

test('backward of GELU, TANH and split GEGLU (patch 0005), NORM (patch 0006), flash attention (patches 0007, 0017) and cross-entropy from class indices (patch 0009): test-backend-ops grad cases pass on the CPU', () => {
  for (const op of ['GELU', 'TANH', 'GEGLU', 'NORM', 'FLASH_ATTN_EXT', 'CROSS_ENTROPY_LOSS']) {
    const r = run(bin('test-backend-ops'), ['grad', '-o', op, '-b', 'CPU']);
    const out = r.stdout.replace(/\x1b\[[0-9;]*m/g, '');
    assert.equal(r.code, 0, out + r.stderr);
    // every F32 case of the op ran its backward and agreed (F16 ones are not differentiable in ggml);
    // NORM's are patch 0006's weighted cases (the plain sum of a LayerNorm's output is constant),
    // FLASH_ATTN_EXT's patch 0007's (F32 Q/K/V as training builds them; the forward-only cases
    // with F16 or quantized K/V have no differentiable parameters and are not run)
    // CROSS_ENTROPY_LOSS's are patch 0009's index cases (the 30000-class one is skipped by size)
    const label = op === 'NORM' ? 'NORM(ne=' : op === 'FLASH_ATTN_EXT' ? 'FLASH_ATTN_EXT(hs=' : op === 'CROSS_ENTROPY_LOSS' ? 'labels=i32' : `${op}(type=f32`;
    const ok = out.split('\n').filter((l) => l.includes(label) && l.trim().endsWith(': OK'));
    assert.ok(ok.length >= (op === 'CROSS_ENTROPY_LOSS' ? 2 : 4), `${op}: ${ok.length} cases OK\n${out}`);
    if (op === 'FLASH_ATTN_EXT') {
      // both CPU paths of the backward: narrow heads (<= 32, patch 0017's transposed path) and wide ones
      assert.ok(ok.some((l) => /hs=(8|16),/.test(l)) && ok.some((l) => /hs=48,/.test(l)), out);
    }
    assert.doesNotMatch(out, /FAIL/);
  }
});

test('MUL_MAT_ID_BACK (patch 0010) with F32, F16 and quantized experts matches a float64 reference and is thread-count independent', () => {
  const r = run(bin('hone-test-mul-mat-id-back-cpu'), []);
  const lines = r.stdout.trim().split('\n');
  assert.ok(lines.length >= 7, r.stdout);
  for (const l of lines) assert.match(l, /^ok mul_mat_id_back /, l);
  assert.equal(r.code, 0);
});

test('backwards a mixture-of-experts FFN needs (patch 0010): MUL_MAT_ID to its input, CLAMP, batched GET_ROWS, DIV by a broadcast divisor', () => {
  // each op's label picks patch 0010's grad cases out of test-backend-ops' list
  const cases: Array<[string, string, number]> = [
    ['MUL_MAT_ID', 'MUL_MAT_ID(n_mats=', 4], ['CLAMP', 'CLAMP(ne=', 2], ['GET_ROWS', 'GET_ROWS(n=', 2], ['DIV', 'bcast=rows', 1],
  ];
  for (const [op, label, min] of cases) {
    const r = run(bin('test-backend-ops'), ['grad', '-o', op, '-b', 'CPU']);
    const out = r.stdout.replace(/\x1b\[[0-9;]*m/g, '');
    assert.equal(r.code, 0, out + r.stderr);
    const ok = out.split('\n').filter((l) => l.includes(label) && l.trim().endsWith(': OK'));
    assert.ok(ok.length >= min, `${op}: ${ok.length} cases OK\n${out}`);
    assert.doesNotMatch(out, /FAIL/);
  }
});
