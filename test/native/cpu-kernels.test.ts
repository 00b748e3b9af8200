/**
 * Kernels our patches change on the CPU backend, checked where test-backend-ops cannot
 * (it compares other backends against the CPU, so a CPU-only build runs none of its cases).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bin, run } from '../helpers/native.ts';

test('OUT_PROD with a quantized src0 (patch 0001) matches a float64 reference and is thread-count independent', () => {
  const r = run(bin('hone-test-out-prod-cpu'), []);
  const lines = r.stdout.trim().split('\n');
  assert.ok(lines.length >= 8, r.stdout);
  for (const l of lines) assert.match(l, /^ok out_prod /, l);
  assert.equal(r.code, 0);
});
