/**
 * A small GGUF reader for tests: metadata values and F32 tensors, read independently of
 * the engine, so tests can compare adapters and optimizer state element by element.
 */
import { readFileSync } from 'node:fs';

export interface GgufFile {
  kv: Map<string, unknown>;
  /** F32 tensors by name (other types are listed in `types` but not decoded). */
  tensors: Map<string, Float32Array>;
  shapes: Map<string, number[]>;
  types: Map<string, number>;
  /** Each tensor's bytes as stored (a view into the file), for the types in BLOCKS. */
  raw: Map<string, Buffer>;
  /** Where the tensor data section starts. */
  dataOffset: number;
}

/** ggml type id -> [bytes per block, elements per block], for the types tests meet. */
export const BLOCKS: Record<number, [number, number]> = {
  0: [4, 1], 1: [2, 1], 2: [18, 32], 3: [20, 32], 6: [22, 32], 7: [24, 32], 8: [34, 32],
  10: [84, 256], 11: [110, 256], 12: [144, 256], 13: [176, 256], 14: [210, 256], 30: [2, 1],
};

/** ggml's names of the types in BLOCKS. */
export const TYPE_NAMES: Record<number, string> = {
  0: 'F32', 1: 'F16', 2: 'Q4_0', 3: 'Q4_1', 6: 'Q5_0', 7: 'Q5_1', 8: 'Q8_0', 10: 'Q2_K', 11: 'Q3_K', 12: 'Q4_K', 13: 'Q5_K', 14: 'Q6_K', 30: 'BF16',
};

const SCALAR_SIZES: Record<number, number> = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };

export function readGguf(path: string): GgufFile {
  const buf = readFileSync(path);
  let pos = 0;
  const u32 = () => { const v = buf.readUInt32LE(pos); pos += 4; return v; };
  const u64 = () => { const v = Number(buf.readBigUInt64LE(pos)); pos += 8; return v; };
  const str = () => { const n = u64(); const s = buf.toString('utf8', pos, pos + n); pos += n; return s; };
  const scalar = (type: number): unknown => {
    const size = SCALAR_SIZES[type];
    if (size === undefined) throw new Error(`${path}: unknown GGUF value type ${type}`);
    let v: unknown;
    switch (type) {
      case 0: v = buf.readUInt8(pos); break;
      case 1: v = buf.readInt8(pos); break;
      case 2: v = buf.readUInt16LE(pos); break;
      case 3: v = buf.readInt16LE(pos); break;
      case 4: v = buf.readUInt32LE(pos); break;
      case 5: v = buf.readInt32LE(pos); break;
      case 6: v = buf.readFloatLE(pos); break;
      case 7: v = buf.readUInt8(pos) !== 0; break;
      case 10: v = Number(buf.readBigUInt64LE(pos)); break;
      case 11: v = Number(buf.readBigInt64LE(pos)); break;
      default: v = buf.readDoubleLE(pos);
    }
    pos += size;
    return v;
  };
  const value = (type: number): unknown => {
    if (type === 8) return str();
    if (type === 9) {
      const t = u32();
      const n = u64();
      return Array.from({ length: n }, () => value(t));
    }
    return scalar(type);
  };

  if (buf.toString('latin1', 0, 4) !== 'GGUF') throw new Error(`${path}: not a GGUF file`);
  pos = 4;
  const version = u32();
  if (version < 2) throw new Error(`${path}: GGUF version ${version}`);
  const nTensors = u64();
  const nKv = u64();
  const kv = new Map<string, unknown>();
  for (let i = 0; i < nKv; i++) {
    const key = str();
    kv.set(key, value(u32()));
  }
  const infos: Array<{ name: string; dims: number[]; type: number; offset: number }> = [];
  for (let i = 0; i < nTensors; i++) {
    const name = str();
    const nd = u32();
    const dims = Array.from({ length: nd }, () => u64());
    infos.push({ name, dims, type: u32(), offset: u64() });
  }
  const align = Number(kv.get('general.alignment') ?? 32);
  const dataStart = Math.ceil(pos / align) * align;
  const tensors = new Map<string, Float32Array>();
  const shapes = new Map<string, number[]>();
  const types = new Map<string, number>();
  const raw = new Map<string, Buffer>();
  for (const t of infos) {
    shapes.set(t.name, t.dims);
    types.set(t.name, t.type);
    const block = BLOCKS[t.type];
    if (block) {
      const bytes = (t.dims.reduce((a, b) => a * b, 1) / block[1]) * block[0];
      raw.set(t.name, buf.subarray(dataStart + t.offset, dataStart + t.offset + bytes));
    }
    if (t.type !== 0) continue;
    const n = t.dims.reduce((a, b) => a * b, 1);
    const start = dataStart + t.offset;
    const copy = buf.subarray(start, start + 4 * n);
    tensors.set(t.name, new Float32Array(copy.buffer.slice(copy.byteOffset, copy.byteOffset + 4 * n)));
  }
  return { kv, tensors, shapes, types, raw, dataOffset: dataStart };
}

/**
 * The largest difference between two files' F32 tensors of the same name, relative to the
 * largest magnitude in that tensor of `a` (max |a - b| / max |a|), over all tensors. Both
 * files must hold the same tensor names.
 */
export function maxRelativeDifference(a: GgufFile, b: GgufFile): number {
  const names = [...a.tensors.keys()].sort();
  const other = [...b.tensors.keys()].sort();
  if (names.join('\n') !== other.join('\n')) throw new Error('the files hold different tensors');
  let worst = 0;
  for (const name of names) {
    const x = a.tensors.get(name)!;
    const y = b.tensors.get(name)!;
    let diff = 0;
    let scale = 0;
    for (let i = 0; i < x.length; i++) {
      diff = Math.max(diff, Math.abs(x[i] - y[i]));
      scale = Math.max(scale, Math.abs(x[i]));
    }
    worst = Math.max(worst, scale > 0 ? diff / scale : diff);
  }
  return worst;
}

/**
 * ||a - b|| / ||a|| over all F32 tensors whose name passes `keep` (all by default), as one
 * vector: the relative difference of two parameter sets.
 */
export function l2RelativeDifference(a: GgufFile, b: GgufFile, keep: (name: string) => boolean = () => true): number {
  let diff = 0;
  let norm = 0;
  for (const [name, x] of a.tensors) {
    if (!keep(name)) continue;
    const y = b.tensors.get(name);
    if (!y || y.length !== x.length) throw new Error(`tensor ${name} is missing or has another size`);
    for (let i = 0; i < x.length; i++) {
      diff += (x[i] - y[i]) ** 2;
      norm += x[i] ** 2;
    }
  }
  return norm > 0 ? Math.sqrt(diff / norm) : Math.sqrt(diff);
}
