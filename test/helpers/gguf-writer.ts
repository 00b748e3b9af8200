/**
 * Writes small valid GGUF files for tests (ggml's gguf.h layout, version 3): header, key/value
 * pairs, tensor infos, then zeroed tensor data of the right size per type. The data is made by
 * extending the file (`truncate`), so a file of many GiB is sparse and instant.
 *
 *   writeGguf(path, { kv: { 'general.architecture': 'qwen3' }, tensors: [{ name: 'w', dims: [256, 4], type: 'Q4_K' }] });
 *
 * Value types follow the JS value (string, bool, integer -> u32, other number -> f32, bigint ->
 * u64, arrays of one of those); `typed()` picks another.
 */
import { truncateSync, writeFileSync } from 'node:fs';

/** Elements and bytes per block of the types tests write, from ggml-common.h's block structs. */
const TYPES: Record<string, { id: number; block: number; bytes: number }> = {
  F32: { id: 0, block: 1, bytes: 4 },
  F16: { id: 1, block: 1, bytes: 2 },
  Q4_0: { id: 2, block: 32, bytes: 2 + 16 },
  Q8_0: { id: 8, block: 32, bytes: 2 + 32 },
  Q4_K: { id: 12, block: 256, bytes: 2 * 2 + 12 + 128 },
  Q6_K: { id: 14, block: 256, bytes: 2 + 16 + 192 },
  IQ2_XXS: { id: 16, block: 256, bytes: 2 + 64 },
  BF16: { id: 30, block: 1, bytes: 2 },
  TQ1_0: { id: 34, block: 256, bytes: 2 + 4 + 48 },
  MXFP4: { id: 39, block: 32, bytes: 1 + 16 },
};

const VALUE_TYPES = { u8: 0, i8: 1, u16: 2, i16: 3, u32: 4, i32: 5, f32: 6, bool: 7, string: 8, array: 9, u64: 10, i64: 11, f64: 12 } as const;
type ScalarName = Exclude<keyof typeof VALUE_TYPES, 'array'>;

export interface Typed {
  typed: ScalarName;
  value: number | bigint | boolean | string | Array<number | bigint | boolean | string>;
}

export type KvValue = string | number | boolean | bigint | string[] | number[] | Typed;

/** A value written as `type` (an array of `type` when `value` is an array). */
export function typed(type: ScalarName, value: Typed['value']): Typed {
  return { typed: type, value };
}

export interface TensorSpec {
  name: string;
  /** ne[0] first, as GGUF stores them. */
  dims: number[];
  type: keyof typeof TYPES;
}

export interface GgufSpec {
  kv?: Record<string, KvValue>;
  tensors?: TensorSpec[];
  alignment?: number;
  version?: number;
}

export function tensorBytes(t: TensorSpec): number {
  const type = TYPES[t.type];
  const elements = t.dims.reduce((a, b) => a * b, 1);
  if (t.dims[0] % type.block !== 0) throw new Error(`${t.name}: rows of ${t.dims[0]} are not whole ${t.type} blocks`);
  return (elements / type.block) * type.bytes;
}

/** The header bytes (up to the aligned start of the data) and the size of the data after it. */
export function ggufHeaderBytes(spec: GgufSpec): { header: Buffer; dataBytes: number } {
  const alignment = spec.alignment ?? 32;
  const out = new Bytes();
  const tensors = spec.tensors ?? [];
  const kv = Object.entries(spec.kv ?? {});
  if (spec.alignment !== undefined && !('general.alignment' in (spec.kv ?? {}))) kv.push(['general.alignment', alignment]);
  out.raw(Buffer.from('GGUF', 'latin1'));
  out.u32(spec.version ?? 3);
  out.u64(tensors.length);
  out.u64(kv.length);
  for (const [key, value] of kv) {
    out.string(key);
    writeValue(out, value);
  }
  let offset = 0;
  for (const t of tensors) {
    out.string(t.name);
    out.u32(t.dims.length);
    for (const d of t.dims) out.u64(d);
    out.u32(TYPES[t.type].id);
    out.u64(offset);
    offset += Math.ceil(tensorBytes(t) / alignment) * alignment;
  }
  const header = out.done();
  const padded = Buffer.alloc(Math.ceil(header.length / alignment) * alignment);
  header.copy(padded);
  return { header: padded, dataBytes: offset };
}

/** Writes the file; returns its size and where its tensor data starts. */
export function writeGguf(path: string, spec: GgufSpec): { fileSize: number; dataOffset: number } {
  const { header, dataBytes } = ggufHeaderBytes(spec);
  writeFileSync(path, header);
  truncateSync(path, header.length + dataBytes);
  return { fileSize: header.length + dataBytes, dataOffset: header.length };
}

function writeValue(out: Bytes, value: KvValue): void {
  if (typeof value === 'object' && !Array.isArray(value)) {
    if (Array.isArray(value.value)) {
      out.u32(VALUE_TYPES.array);
      out.u32(VALUE_TYPES[value.typed]);
      out.u64(value.value.length);
      for (const v of value.value) writeScalar(out, value.typed, v);
    } else {
      out.u32(VALUE_TYPES[value.typed]);
      writeScalar(out, value.typed, value.value);
    }
    return;
  }
  if (Array.isArray(value)) {
    const type = inferType(value[0] ?? '');
    out.u32(VALUE_TYPES.array);
    out.u32(VALUE_TYPES[type]);
    out.u64(value.length);
    for (const v of value) writeScalar(out, type, v);
    return;
  }
  const type = inferType(value);
  out.u32(VALUE_TYPES[type]);
  writeScalar(out, type, value);
}

function inferType(value: string | number | boolean | bigint): ScalarName {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'bigint') return 'u64';
  if (Number.isInteger(value)) return value < 0 ? 'i32' : 'u32';
  return 'f32';
}

function writeScalar(out: Bytes, type: ScalarName, v: number | bigint | boolean | string): void {
  const b = Buffer.alloc(8);
  switch (type) {
    case 'string': return out.string(String(v));
    case 'bool': return out.raw(Buffer.from([v ? 1 : 0]));
    case 'u8': b.writeUInt8(Number(v)); return out.raw(b.subarray(0, 1));
    case 'i8': b.writeInt8(Number(v)); return out.raw(b.subarray(0, 1));
    case 'u16': b.writeUInt16LE(Number(v)); return out.raw(b.subarray(0, 2));
    case 'i16': b.writeInt16LE(Number(v)); return out.raw(b.subarray(0, 2));
    case 'u32': b.writeUInt32LE(Number(v)); return out.raw(b.subarray(0, 4));
    case 'i32': b.writeInt32LE(Number(v)); return out.raw(b.subarray(0, 4));
    case 'f32': b.writeFloatLE(Number(v)); return out.raw(b.subarray(0, 4));
    case 'u64': b.writeBigUInt64LE(BigInt(v)); return out.raw(b);
    case 'i64': b.writeBigInt64LE(BigInt(v)); return out.raw(b);
    case 'f64': b.writeDoubleLE(Number(v)); return out.raw(b);
  }
}

class Bytes {
  private parts: Buffer[] = [];

  raw(b: Buffer): void {
    this.parts.push(Buffer.from(b));
  }

  u32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    this.parts.push(b);
  }

  u64(v: number): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(v));
    this.parts.push(b);
  }

  string(s: string): void {
    const bytes = Buffer.from(s, 'utf8');
    this.u64(bytes.length);
    this.parts.push(bytes);
  }

  done(): Buffer {
    return Buffer.concat(this.parts);
  }
}

/** A small llama-shaped model's tensors (`layers` blocks of width `embd`), all of `type`. */
export function llamaTensors(layers: number, embd: number, vocab: number, type: TensorSpec['type']): TensorSpec[] {
  const tensors: TensorSpec[] = [
    { name: 'token_embd.weight', dims: [embd, vocab], type },
    { name: 'output_norm.weight', dims: [embd], type: 'F32' },
  ];
  for (let i = 0; i < layers; i++) {
    tensors.push({ name: `blk.${i}.attn_norm.weight`, dims: [embd], type: 'F32' });
    for (const w of ['attn_q', 'attn_k', 'attn_v', 'attn_output']) tensors.push({ name: `blk.${i}.${w}.weight`, dims: [embd, embd], type });
  }
  return tensors;
}
