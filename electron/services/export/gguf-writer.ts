/**
 * Writes a GGUF file (ggml's gguf.h layout, version 3), as gguf.cpp's writer lays it out: the
 * header, key/value pairs with their stored types, tensor infos, padding to the alignment, then
 * each tensor's data padded to the alignment. Tensor data is asked for one tensor at a time, so
 * only one tensor is in memory. The file is flushed to disk before the promise settles.
 */
import { HoneError } from '../../common/errors.ts';
import type { GgufValue, GgufValueType } from '../models/gguf-header.ts';
import { writeParts, type Part } from './write-parts.ts';

export interface GgufKv {
  key: string;
  type: GgufValueType;
  value: GgufValue;
}

export interface GgufTensorOut {
  name: string;
  /** ne[0] first. */
  dims: number[];
  /** ggml type number. */
  type: number;
  bytes: number;
  /** The tensor's bytes (exactly `bytes` of them), asked for when it is written. */
  data(): Promise<Buffer> | Buffer;
}

const VALUE_TYPE_IDS: Record<string, number> = { u8: 0, i8: 1, u16: 2, i16: 3, u32: 4, i32: 5, f32: 6, bool: 7, string: 8, array: 9, u64: 10, i64: 11, f64: 12 };

class Bytes {
  private parts: Buffer[] = [];
  length = 0;

  push(b: Buffer): void {
    this.parts.push(b);
    this.length += b.length;
  }

  u32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    this.push(b);
  }

  u64(v: number): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(v));
    this.push(b);
  }

  string(s: string): void {
    const b = Buffer.from(s, 'utf8');
    this.u64(b.length);
    this.push(b);
  }

  scalar(type: string, v: GgufValue, key: string): void {
    if (type === 'string') {
      if (typeof v !== 'string') throw new Error(`key '${key}': ${JSON.stringify(v)} is not a string`);
      this.string(v);
      return;
    }
    if (typeof v !== 'number' && typeof v !== 'boolean') throw new Error(`key '${key}': ${JSON.stringify(v)} is not a ${type}`);
    const n = Number(v);
    const b = Buffer.alloc(8);
    switch (type) {
      case 'bool': return this.push(Buffer.from([v ? 1 : 0]));
      case 'u8': b.writeUInt8(n); return this.push(b.subarray(0, 1));
      case 'i8': b.writeInt8(n); return this.push(b.subarray(0, 1));
      case 'u16': b.writeUInt16LE(n); return this.push(b.subarray(0, 2));
      case 'i16': b.writeInt16LE(n); return this.push(b.subarray(0, 2));
      case 'u32': b.writeUInt32LE(n); return this.push(b.subarray(0, 4));
      case 'i32': b.writeInt32LE(n); return this.push(b.subarray(0, 4));
      case 'f32': b.writeFloatLE(n); return this.push(b.subarray(0, 4));
      case 'u64': b.writeBigUInt64LE(BigInt(n)); return this.push(b);
      case 'i64': b.writeBigInt64LE(BigInt(n)); return this.push(b);
      case 'f64': b.writeDoubleLE(n); return this.push(b);
      default: throw new Error(`key '${key}': unknown GGUF value type '${type}'`);
    }
  }

  done(): Buffer {
    return Buffer.concat(this.parts);
  }
}

const pad = (n: number, alignment: number) => Math.ceil(n / alignment) * alignment;

/** The header bytes, padded to the alignment, for these keys and tensors. */
export function ggufHeader(kv: GgufKv[], tensors: GgufTensorOut[], alignment: number): Buffer {
  const out = new Bytes();
  out.push(Buffer.from('GGUF', 'latin1'));
  out.u32(3);
  out.u64(tensors.length);
  out.u64(kv.length);
  for (const { key, type, value } of kv) {
    out.string(key);
    out.u32(VALUE_TYPE_IDS[type.type] ?? -1);
    if (type.type === 'array') {
      if (!Array.isArray(value) || !type.itemType) throw new Error(`key '${key}': an array must be written whole, with its item type`);
      out.u32(VALUE_TYPE_IDS[type.itemType]);
      out.u64(value.length);
      for (const item of value) out.scalar(type.itemType, item, key);
    } else {
      out.scalar(type.type, value, key);
    }
  }
  let offset = 0;
  for (const t of tensors) {
    out.string(t.name);
    out.u32(t.dims.length);
    for (const d of t.dims) out.u64(d);
    out.u32(t.type);
    out.u64(offset);
    offset += pad(t.bytes, alignment);
  }
  const header = out.done();
  const padded = Buffer.alloc(pad(header.length, alignment));
  header.copy(padded);
  return padded;
}

/** Writes the file at `path` (created, or truncated); returns its size. */
export async function writeGgufFile(path: string, kv: GgufKv[], tensors: GgufTensorOut[], alignment = 32): Promise<number> {
  function* parts(): Generator<Part> {
    yield ggufHeader(kv, tensors, alignment);
    for (const t of tensors) {
      yield async () => {
        const data = await t.data();
        if (data.length !== t.bytes) throw new HoneError('internal', `${path}: tensor '${t.name}' has ${data.length} bytes, ${t.bytes} declared`);
        return data;
      };
      if (pad(t.bytes, alignment) > t.bytes) yield Buffer.alloc(pad(t.bytes, alignment) - t.bytes);
    }
  }
  return writeParts(path, parts());
}
