// F16 and Q8_0 as ggml stores them: known half-precision bit patterns (ties to even, overflow,
// subnormals), and Q8_0 blocks whose decoded values are within half a quantization step.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeToF32, encodeF16, encodeQ8_0, f16BitsToF32, f32ToF16Bits } from '../../electron/services/export/tensor-codecs.ts';
import { rng } from '../helpers/train-data.ts';

test('F16 bits of known values, ties to even, overflow and subnormals', () => {
  const cases: Array<[number, number]> = [
    [0, 0x0000], [-0, 0x8000], [1, 0x3c00], [-2, 0xc000], [0.5, 0x3800], [65504, 0x7bff], [65520, 0x7c00], [1e6, 0x7c00],
    [2 ** -14, 0x0400], [2 ** -24, 0x0001], [2 ** -25, 0x0000], [3 * 2 ** -25, 0x0002], [Infinity, 0x7c00], [-Infinity, 0xfc00],
    [1 + 2 ** -11, 0x3c00], // halfway between 0x3c00 and 0x3c01: to even
    [1 + 3 * 2 ** -11, 0x3c02], // halfway between 0x3c01 and 0x3c02: to even
    [1 + 2 ** -11 + 2 ** -20, 0x3c01], // just above halfway: up
    [0.1, 0x2e66], [-3.140625, 0xc248],
  ];
  for (const [x, bits] of cases) assert.equal(f32ToF16Bits(x), bits, `${x}`);
  assert.ok(Number.isNaN(f16BitsToF32(f32ToF16Bits(NaN))));
  for (const [x, bits] of cases) if (Math.abs(x) <= 65504 && bits !== 0x7c00) assert.equal(f32ToF16Bits(f16BitsToF32(bits)), bits, 'decode then encode is the identity');
});

test('every F16 bit pattern decodes and encodes back to itself', () => {
  for (let h = 0; h < 0x10000; h++) {
    if ((h & 0x7c00) === 0x7c00 && h & 0x3ff) continue; // NaNs
    assert.equal(f32ToF16Bits(f16BitsToF32(h)), h, h.toString(16));
  }
});

test('F16 encoding is the nearest half: |x - f16(x)| is at most half a step of its binade', () => {
  const r = rng(3);
  const x = Float32Array.from({ length: 4096 }, () => (r() - 0.5) * 2 ** Math.floor(r() * 20 - 10));
  const back = decodeToF32(1, encodeF16(x), x.length);
  for (let i = 0; i < x.length; i++) {
    const step = 2 ** (Math.floor(Math.log2(Math.max(Math.abs(x[i]), 2 ** -14))) - 10);
    assert.ok(Math.abs(back[i] - x[i]) <= step / 2, `${x[i]} -> ${back[i]}`);
  }
});

test('Q8_0: 34-byte blocks, an F16 scale max|x|/127, values within half a step; zeros stay zero', () => {
  const r = rng(11);
  const x = Float32Array.from({ length: 32 * 40 }, (_, i) => (i < 32 ? 0 : (r() - 0.5) * (1 + (i % 7))));
  const q = encodeQ8_0(x);
  assert.equal(q.length, 40 * 34);
  const back = decodeToF32(8, q, x.length);
  for (let b = 0; b < 40; b++) {
    const block = x.subarray(b * 32, b * 32 + 32);
    const amax = Math.max(...Array.from(block, Math.abs));
    const d = f16BitsToF32(q.readUInt16LE(b * 34));
    assert.equal(d, f16BitsToF32(f32ToF16Bits(amax / 127)), `block ${b} scale`);
    for (let j = 0; j < 32; j++) {
      const v = q.readInt8(b * 34 + 2 + j);
      assert.ok(v >= -127 && v <= 127);
      // rounding to the step, then the scale's own F16 rounding (at most 127 · |d - amax/127|)
      assert.ok(Math.abs(back[b * 32 + j] - block[j]) <= d / 2 + 127 * Math.abs(d - amax / 127) + 1e-7, `block ${b}[${j}]`);
    }
  }
  assert.deepEqual(Array.from(back.subarray(0, 32)), new Array(32).fill(0));
  assert.throws(() => encodeQ8_0(new Float32Array(33)), /multiple of 32/);
});

test('Q8_0 rounds halves away from zero, as roundf', () => {
  // d = 127/127 = 1: x / d is exactly the values below
  const x = new Float32Array(32);
  x[0] = 127;
  x[1] = 2.5;
  x[2] = -2.5;
  x[3] = 0.5;
  x[4] = -0.5;
  const q = encodeQ8_0(x);
  assert.deepEqual([1, 2, 3, 4, 5].map((j) => q.readInt8(j + 1)), [127, 3, -3, 1, -1]);
});
