/**
 * Reads a LoRA adapter GGUF (llama.cpp's format, as the trainer writes it): its metadata through
 * the model list's header reader (every array kept, with its stored types, so it can be copied
 * exactly) and its A/B pairs, whose data is read tensor by tensor and decoded to F32.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { HoneError } from '../../common/errors.ts';
import { reason } from '../models/fs-errors.ts';
import { ggmlType } from '../models/ggml-types.ts';
import { readGgufHeader, type GgufHeader, type GgufTensorInfo, type GgufValue } from '../models/gguf-header.ts';
import { decodeToF32, READABLE_TYPES } from './tensor-codecs.ts';

/** One adapted weight: `<base>.lora_a` (dims [in, rank]) and `<base>.lora_b` (dims [rank, out]). */
export interface LoraPair {
  /** The base model's tensor name (`blk.0.attn_q.weight`). */
  base: string;
  a: GgufTensorInfo;
  b: GgufTensorInfo;
  rank: number;
}

export interface AdapterFile {
  path: string;
  header: GgufHeader;
  architecture: string;
  alpha: number;
  pairs: LoraPair[];
}

const MAX_ADAPTER_ARRAY_ITEMS = 1 << 20;

/** A string value of the adapter's metadata, or undefined. */
export function kvString(kv: Map<string, GgufValue>, key: string): string | undefined {
  const v = kv.get(key);
  return typeof v === 'string' ? v : undefined;
}

export async function readAdapterFile(path: string): Promise<AdapterFile> {
  const header = await readGgufHeader(path, { keptArrayItems: MAX_ADAPTER_ARRAY_ITEMS });
  const kv = header.kv;
  if (kvString(kv, 'general.type') !== 'adapter' || kvString(kv, 'adapter.type') !== 'lora') {
    throw new HoneError('bad_format', `${path}: not a LoRA adapter (general.type is ${JSON.stringify(kv.get('general.type') ?? null)} and adapter.type ${JSON.stringify(kv.get('adapter.type') ?? null)}; a LoRA has 'adapter' and 'lora')`);
  }
  const architecture = kvString(kv, 'general.architecture');
  if (!architecture) throw new HoneError('bad_format', `${path}: the adapter has no general.architecture`);
  const byName = new Map(header.tensors.map((t) => [t.name, t]));
  const pairs: LoraPair[] = [];
  const problems: string[] = [];
  for (const a of header.tensors) {
    if (!a.name.endsWith('.lora_a')) {
      if (!a.name.endsWith('.lora_b')) problems.push(`'${a.name}' is neither a lora_a nor a lora_b`);
      else if (!byName.has(a.name.slice(0, -'.lora_b'.length) + '.lora_a')) problems.push(`'${a.name}' has no matching lora_a`);
      continue;
    }
    const base = a.name.slice(0, -'.lora_a'.length);
    const b = byName.get(`${base}.lora_b`);
    if (!b) {
      problems.push(`'${a.name}' has no matching lora_b`);
      continue;
    }
    for (const t of [a, b]) {
      if (!(t.type in READABLE_TYPES)) problems.push(`'${t.name}' is ${ggmlType(t.type)?.name ?? `type ${t.type}`} (F32, F16, BF16 or Q8_0 expected)`);
    }
    if (a.dims.length !== 2 || b.dims.length !== 2 || a.dims[1] !== b.dims[0]) {
      problems.push(`'${base}': shapes [${a.dims}] and [${b.dims}] are not a LoRA pair ([in, rank] and [rank, out])`);
      continue;
    }
    pairs.push({ base, a, b, rank: a.dims[1] });
  }
  if (problems.length) throw new HoneError('bad_format', `${path}: ${problems.join('; ')}`);
  if (pairs.length === 0) throw new HoneError('bad_format', `${path}: the adapter has no LoRA tensors`);
  const alphaValue = kv.get('adapter.lora.alpha');
  const alpha = typeof alphaValue === 'number' && alphaValue > 0 ? alphaValue : pairs[0].rank; // llama.cpp: alpha 0 means scale 1
  return { path, header, architecture, alpha, pairs };
}

/** Reads tensors' data from one open file. */
export class TensorReader {
  private constructor(
    private handle: FileHandle,
    private header: GgufHeader,
  ) {}

  static async open(header: GgufHeader): Promise<TensorReader> {
    try {
      return new TensorReader(await open(header.path, 'r'), header);
    } catch (err) {
      throw new HoneError('io_error', `${header.path}: cannot open: ${reason(err)}`);
    }
  }

  /** The tensor's stored bytes. */
  async bytes(t: GgufTensorInfo): Promise<Buffer> {
    const buf = Buffer.alloc(t.bytes);
    const at = this.header.dataOffset + t.offset;
    let done = 0;
    while (done < t.bytes) {
      let n: number;
      try {
        ({ bytesRead: n } = await this.handle.read(buf, done, t.bytes - done, at + done));
      } catch (err) {
        throw new HoneError('io_error', `${this.header.path}: cannot read tensor '${t.name}': ${reason(err)}`);
      }
      if (n === 0) throw new HoneError('io_error', `${this.header.path}: the file ended inside tensor '${t.name}' (was it changed meanwhile?)`);
      done += n;
    }
    return buf;
  }

  /** The tensor decoded to F32 (ggml order: dims[0] fastest). */
  async f32(t: GgufTensorInfo): Promise<Float32Array> {
    return decodeToF32(t.type, await this.bytes(t), t.elements);
  }

  async close(): Promise<void> {
    await this.handle.close().catch(() => undefined);
  }
}
