/**
 * Models llama.cpp's loader or graph builder crashes on (an expert count of 0, an optional
 * tensor the graph then reads): `probe-arch` answers what it can and `scan` refuses the rest
 * with a message, and neither dies of a signal. These are the architectures that once ended
 * in a segmentation fault, an abort or a floating-point exception.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { honeTrain, tempDir, vocab } from '../helpers/native.ts';

describe('probe-arch and scan on models llama.cpp crashes on', () => {
  const dir = tempDir();
  const probe = (arch: string, vocabName: 'llama-spm' | 'phi-3') =>
    honeTrain(['probe-arch', '--arch', arch, '--vocab-from', vocab(vocabName), '--out', join(dir, `${arch}.gguf`), '--json']);

  test('Phi-3 (a graph that read a fused Q/K/V the loader never asked for) probes and scans', () => {
    const r = probe('phi3', 'phi-3');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.events[0].status, 'differentiable');
  });

  test('a loader that asserted on a missing expert count gets experts and loads (bailingmoe2)', () => {
    const r = probe('bailingmoe2', 'llama-spm');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.events[0].status, 'differentiable');
    assert.ok(r.events[0].ops.includes('MUL_MAT_ID'), `the scan sees the experts: ${r.events[0].ops}`);
  });

  test('a graph that crashes is a refusal naming the crash and what to give, from probe-arch and from scan', () => {
    const r = probe('qwen35moe', 'llama-spm');
    assert.equal(r.code, 1, `exit ${r.code}: ${r.stderr}`);
    assert.equal(r.events[0].status, 'not_scanned');
    assert.match(r.events[0].error, /llama\.cpp crashed while loading the model or building its graph \(segmentation fault\); .*set them with --kv or --layer-tensors/);
    const s = honeTrain(['scan', '--model', join(dir, 'qwen35moe.gguf'), '--json']);
    assert.equal(s.code, 1, `exit ${s.code}: ${s.stderr}`);
    assert.equal(s.events[0].code, 'scan_failed');
    assert.match(s.events[0].message, /qwen35moe\.gguf: llama\.cpp crashed .*\(segmentation fault\)/);
  });
});
