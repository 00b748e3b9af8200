/**
 * The safetensors format (Hugging Face's): 8 bytes little-endian N, N bytes of a JSON header
 * `{name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__": {string: string}}` padded
 * with spaces so the data starts on an 8-byte boundary, then every tensor's bytes, contiguous,
 * in offset order (offsets count from the start of the data). Row-major, little-endian.
 *
 * The reader checks what the format requires, so a test can show a written file is valid: the
 * header is JSON of that shape, offsets start at 0, follow each other without gaps or overlaps,
 * end at the end of the file, and each tensor's byte count is its shape times its dtype's size.
 */
import { readFile } from 'node:fs/promises';
import { HoneError } from '../../common/errors.ts';
import { reason } from '../models/fs-errors.ts';
import { writeParts } from './write-parts.ts';

export const DTYPE_BYTES: Record<string, number> = {
  BOOL: 1, U8: 1, I8: 1, F8_E5M2: 1, F8_E4M3: 1, I16: 2, U16: 2, F16: 2, BF16: 2, I32: 4, U32: 4, F32: 4, I64: 8, U64: 8, F64: 8,
};

export interface SafeTensor {
  name: string;
  dtype: string;
  shape: number[];
  data: Buffer;
}

/** Headers larger than this are refused by the reference implementation too (100 MB). */
const MAX_HEADER = 100_000_000;

function elementsOf(shape: number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

/** The header bytes (length prefix included, padded) for `tensors`, written in the given order. */
export function safetensorsHeader(tensors: Array<Omit<SafeTensor, 'data'> & { bytes: number }>, metadata: Record<string, string>): Buffer {
  const json: Record<string, unknown> = { __metadata__: metadata };
  let at = 0;
  for (const t of tensors) {
    if (t.name === '__metadata__' || t.name in json) throw new Error(`tensor name '${t.name}' is taken`);
    const size = DTYPE_BYTES[t.dtype];
    if (!size || elementsOf(t.shape) * size !== t.bytes) throw new Error(`tensor '${t.name}': ${t.bytes} bytes for ${t.dtype} [${t.shape}]`);
    json[t.name] = { dtype: t.dtype, shape: t.shape, data_offsets: [at, at + t.bytes] };
    at += t.bytes;
  }
  let text = JSON.stringify(json);
  text += ' '.repeat((8 - ((8 + Buffer.byteLength(text)) % 8)) % 8);
  const body = Buffer.from(text, 'utf8');
  const prefix = Buffer.alloc(8);
  prefix.writeBigUInt64LE(BigInt(body.length));
  return Buffer.concat([prefix, body]);
}

/** Writes `tensors` (in this order) to `path`, flushed to disk; returns the file's size. */
export async function writeSafetensors(path: string, tensors: SafeTensor[], metadata: Record<string, string> = {}): Promise<number> {
  const header = safetensorsHeader(tensors.map((t) => ({ ...t, bytes: t.data.length })), metadata);
  return writeParts(path, [header, ...tensors.map((t) => t.data)]);
}

export interface SafetensorsFile {
  metadata: Record<string, string>;
  tensors: Map<string, SafeTensor>;
  /** Bytes of the JSON header (padding included). */
  headerBytes: number;
}

/** Reads and validates a whole safetensors file; `bad_format` naming the file and the problem. */
export async function readSafetensors(path: string): Promise<SafetensorsFile> {
  let buf: Buffer;
  try {
    buf = await readFile(path);
  } catch (err) {
    throw new HoneError('io_error', `${path}: cannot be read: ${reason(err)}`);
  }
  const bad = (what: string) => new HoneError('bad_format', `${path}: not a valid safetensors file: ${what}`);
  if (buf.length < 8) throw bad(`${buf.length} bytes, shorter than the header length`);
  const n = Number(buf.readBigUInt64LE(0));
  if (n > MAX_HEADER || 8 + n > buf.length) throw bad(`the header length ${n} does not fit a file of ${buf.length} bytes`);
  if ((8 + n) % 8 !== 0) throw bad(`the data starts at byte ${8 + n}, not on an 8-byte boundary`);
  const text = buf.toString('utf8', 8, 8 + n);
  if (!text.startsWith('{')) throw bad('the header does not start with {');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw bad(`the header is not JSON (${(err as Error).message})`);
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw bad('the header is not a JSON object');
  const metadata: Record<string, string> = {};
  const entries: Array<{ name: string; dtype: string; shape: number[]; begin: number; end: number }> = [];
  for (const [name, v] of Object.entries(json as Record<string, unknown>)) {
    if (name === '__metadata__') {
      if (!v || typeof v !== 'object' || Array.isArray(v)) throw bad('__metadata__ is not an object');
      for (const [k, s] of Object.entries(v)) {
        if (typeof s !== 'string') throw bad(`__metadata__.${k} is not a string`);
        metadata[k] = s;
      }
      continue;
    }
    const t = v as { dtype?: unknown; shape?: unknown; data_offsets?: unknown };
    const size = typeof t?.dtype === 'string' ? DTYPE_BYTES[t.dtype] : undefined;
    if (!size) throw bad(`tensor '${name}' has dtype ${JSON.stringify(t?.dtype)}`);
    if (!Array.isArray(t.shape) || !t.shape.every((d) => Number.isInteger(d) && d >= 0)) throw bad(`tensor '${name}' has shape ${JSON.stringify(t.shape)}`);
    const off = t.data_offsets;
    if (!Array.isArray(off) || off.length !== 2 || !off.every((d) => Number.isInteger(d) && d >= 0) || off[1] < off[0]) {
      throw bad(`tensor '${name}' has data_offsets ${JSON.stringify(off)}`);
    }
    const want = elementsOf(t.shape as number[]) * size;
    if (off[1] - off[0] !== want) throw bad(`tensor '${name}' holds ${off[1] - off[0]} bytes; ${t.dtype} [${t.shape}] needs ${want}`);
    entries.push({ name, dtype: t.dtype as string, shape: t.shape as number[], begin: off[0], end: off[1] });
  }
  entries.sort((a, b) => a.begin - b.begin || a.end - b.end);
  let at = 0;
  for (const e of entries) {
    if (e.begin !== at) throw bad(`tensor '${e.name}' starts at data byte ${e.begin}, expected ${at} (${e.begin > at ? 'a gap' : 'an overlap'})`);
    at = e.end;
  }
  const data = buf.length - 8 - n;
  if (at !== data) throw bad(`the tensors cover ${at} bytes of data but the file holds ${data}`);
  const tensors = new Map<string, SafeTensor>();
  for (const e of entries) tensors.set(e.name, { name: e.name, dtype: e.dtype, shape: e.shape, data: buf.subarray(8 + n + e.begin, 8 + n + e.end) });
  return { metadata, tensors, headerBytes: n };
}
