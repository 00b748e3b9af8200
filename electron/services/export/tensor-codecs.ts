/**
 * The tensor encodings an adapter export reads and writes, bit for bit as ggml makes them:
 * F32, F16 (IEEE half, round to nearest even, as ggml's GGML_FP32_TO_FP16), BF16 (read only)
 * and Q8_0 (blocks of 32: an F16 scale d = max|x| / 127, then 32 int8 round(x / d), as
 * ggml-quants.c's quantize_row_q8_0_ref computes them in float).
 */

export const Q8_0_BLOCK = 32;
const Q8_0_BLOCK_BYTES = 2 + Q8_0_BLOCK;

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** The half-precision bits nearest to `x` (ties to even); overflow gives infinity, NaN stays NaN. */
export function f32ToF16Bits(x: number): number {
  f32[0] = x;
  const f = u32[0];
  const sign = (f >>> 16) & 0x8000;
  const exp = (f >>> 23) & 0xff;
  let mant = f & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 | (mant >>> 13) : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    if (rem > halfway || (rem === halfway && half & 1)) half++;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && half & 1)) half++; // a carry into the exponent is right (up to infinity)
  return sign | half;
}

export function f16BitsToF32(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >>> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

/** ggml's roundf: halves away from zero. */
function roundAway(x: number): number {
  return x < 0 ? -Math.round(-x) : Math.round(x);
}

export function encodeF32(x: Float32Array): Buffer {
  return Buffer.from(x.buffer, x.byteOffset, x.byteLength);
}

export function encodeF16(x: Float32Array): Buffer {
  const out = Buffer.alloc(2 * x.length);
  for (let i = 0; i < x.length; i++) out.writeUInt16LE(f32ToF16Bits(x[i]), 2 * i);
  return out;
}

/** Q8_0 blocks of `x`, whose length must be a multiple of 32 (rows whose length is). */
export function encodeQ8_0(x: Float32Array): Buffer {
  if (x.length % Q8_0_BLOCK !== 0) throw new Error(`Q8_0 needs a multiple of ${Q8_0_BLOCK} values, got ${x.length}`);
  const blocks = x.length / Q8_0_BLOCK;
  const out = Buffer.alloc(blocks * Q8_0_BLOCK_BYTES);
  for (let b = 0; b < blocks; b++) {
    const at = b * Q8_0_BLOCK;
    let amax = 0;
    for (let j = 0; j < Q8_0_BLOCK; j++) amax = Math.max(amax, Math.abs(x[at + j]));
    const d = Math.fround(amax / 127);
    const id = d ? Math.fround(1 / d) : 0;
    const o = b * Q8_0_BLOCK_BYTES;
    out.writeUInt16LE(f32ToF16Bits(d), o);
    for (let j = 0; j < Q8_0_BLOCK; j++) out.writeInt8(roundAway(Math.fround(x[at + j] * id)), o + 2 + j);
  }
  return out;
}

/** The ggml types an export reads, by GGUF type number. */
export const READABLE_TYPES: Record<number, string> = { 0: 'F32', 1: 'F16', 8: 'Q8_0', 30: 'BF16' };

/** Bytes of `n` values stored as ggml type `type` (one of READABLE_TYPES). */
export function encodedBytes(type: number, n: number): number {
  switch (type) {
    case 0: return 4 * n;
    case 1:
    case 30: return 2 * n;
    case 8: return (n / Q8_0_BLOCK) * Q8_0_BLOCK_BYTES;
    default: throw new Error(`ggml type ${type} is not one an adapter export reads`);
  }
}

/** `n` values of ggml type `type` from `bytes`, as F32. */
export function decodeToF32(type: number, bytes: Buffer, n: number): Float32Array {
  const out = new Float32Array(n);
  switch (type) {
    case 0:
      for (let i = 0; i < n; i++) out[i] = bytes.readFloatLE(4 * i);
      return out;
    case 1:
      for (let i = 0; i < n; i++) out[i] = f16BitsToF32(bytes.readUInt16LE(2 * i));
      return out;
    case 30:
      for (let i = 0; i < n; i++) {
        u32[0] = bytes.readUInt16LE(2 * i) << 16;
        out[i] = f32[0];
      }
      return out;
    case 8:
      for (let b = 0; b < n / Q8_0_BLOCK; b++) {
        const o = b * Q8_0_BLOCK_BYTES;
        const d = f16BitsToF32(bytes.readUInt16LE(o));
        for (let j = 0; j < Q8_0_BLOCK; j++) out[b * Q8_0_BLOCK + j] = d * bytes.readInt8(o + 2 + j);
      }
      return out;
    default:
      throw new Error(`ggml type ${type} is not one an adapter export reads`);
  }
}
