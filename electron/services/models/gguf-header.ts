/**
 * Reads the header of a GGUF file (magic, version, key/value pairs, tensor infos) and nothing
 * of its tensor data: the file is read through a handle from byte 0 in growing chunks until the
 * header parses, so a 40 GB model costs a few MB of reading. The layout is ggml's gguf.h;
 * the checks follow gguf.cpp's loader, so a file rejected here is one llama.cpp rejects too.
 *
 * Every failure is a HoneError: `io_error` when the file system fails, `bad_format` when the
 * bytes are not a valid GGUF header; both messages name the file and the place.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { HoneError } from '../../common/errors.ts';
import { reason } from './fs-errors.ts';
import { ggmlType } from './ggml-types.ts';

/** A key's value. Arrays longer than `KEPT_ARRAY_ITEMS` (vocabularies) are summarised, not decoded. */
export type GgufValue = number | string | boolean | GgufValue[] | GgufLongArray;

export interface GgufLongArray {
  itemType: string;
  length: number;
}

export interface GgufTensorInfo {
  name: string;
  dims: number[];
  /** ggml type number (ggml-types.ts names it). */
  type: number;
  /** Offset of the data from the start of the data section. */
  offset: number;
  elements: number;
  bytes: number;
}

/** How a key's value is stored: a GGUF value type name (`u32`, `f32`, `string`…), and for arrays their items' type. */
export interface GgufValueType {
  type: string;
  itemType?: string;
}

export interface GgufHeader {
  path: string;
  version: number;
  fileSize: number;
  kv: Map<string, GgufValue>;
  /** Each key's stored type, so a writer can copy a value exactly as it was. */
  kvTypes: Map<string, GgufValueType>;
  tensors: GgufTensorInfo[];
  alignment: number;
  /** First byte of the tensor data section. */
  dataOffset: number;
  /** Bytes read from the file to parse the header. */
  bytesRead: number;
}

export interface ReadHeaderOptions {
  /** A header larger than this is refused (vocabularies make real headers tens of MB at most). */
  maxHeaderBytes?: number;
  /** Size of the first read; later reads grow the buffer to what the parser needs. */
  chunkBytes?: number;
  /** Arrays up to this length are decoded (default KEPT_ARRAY_ITEMS); longer ones are summarised. */
  keptArrayItems?: number;
}

export const DEFAULT_MAX_HEADER_BYTES = 256 * 1024 * 1024;
const DEFAULT_CHUNK_BYTES = 256 * 1024;
/** Arrays up to this length are decoded into the result; longer ones are only walked. */
export const KEPT_ARRAY_ITEMS = 64;

// gguf.cpp's limits: GGUF_MAX_STRING_LENGTH, GGUF_MAX_ARRAY_ELEMENTS, GGML_MAX_DIMS.
const MAX_STRING_BYTES = 1024 * 1024 * 1024;
const MAX_ARRAY_ITEMS = 1024 * 1024 * 1024;
const MAX_DIMS = 4;
// The fewest bytes one key/value pair (key length, empty key, type, a one-byte value) and one
// tensor info (name length, empty name, n_dims, type, offset) can take.
const MIN_KV_BYTES = 8 + 4 + 1;
const MIN_TENSOR_INFO_BYTES = 8 + 4 + 4 + 8;
/** More tensors or keys than any model has (large MoE files hold a few thousand tensors). */
const PLAUSIBLE_COUNT = 1 << 20;

const VALUE_TYPES = ['u8', 'i8', 'u16', 'i16', 'u32', 'i32', 'f32', 'bool', 'string', 'array', 'u64', 'i64', 'f64'];
const SCALAR_BYTES: Record<number, number> = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };
const STRING = 8;
const ARRAY = 9;

/** Thrown inside the parser when the buffer holds fewer bytes than it needs. */
class Short {
  constructor(public needed: number) {}
}

export async function readGgufHeader(path: string, options: ReadHeaderOptions = {}): Promise<GgufHeader> {
  const maxHeaderBytes = options.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES;
  const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    throw ioError(path, 'cannot open', err);
  }
  try {
    const stat = await handle.stat().catch((err) => {
      throw ioError(path, 'cannot read', err);
    });
    if (!stat.isFile()) throw new HoneError('io_error', `${path}: not a file`);
    const fileSize = stat.size;
    const file = new GrowingRead(handle, path, fileSize);
    await file.growTo(Math.min(chunkBytes, fileSize));
    checkMagic(path, file.bytes, fileSize);
    for (;;) {
      const parser = new Parser(path, file.bytes, file.length, fileSize, maxHeaderBytes, options.keptArrayItems ?? KEPT_ARRAY_ITEMS);
      try {
        return { ...parser.header(), bytesRead: file.length };
      } catch (err) {
        if (!(err instanceof Short)) throw err;
        if (err.needed > fileSize) {
          throw badFormat(path, `header ends at byte ${fileSize}, inside ${parser.where}: the file is truncated or not a whole GGUF file`);
        }
        if (err.needed > maxHeaderBytes) {
          throw badFormat(path, `header is larger than ${mib(maxHeaderBytes)} (still inside ${parser.where} at byte ${err.needed}); a model's header is at most tens of MB`);
        }
        await file.growTo(Math.min(fileSize, maxHeaderBytes, Math.max(err.needed, 2 * file.length)));
      }
    }
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** The file's first bytes in one buffer that grows on demand. */
class GrowingRead {
  bytes = Buffer.alloc(0);
  length = 0;

  constructor(
    private handle: FileHandle,
    private path: string,
    private fileSize: number,
  ) {}

  async growTo(size: number): Promise<void> {
    if (size <= this.length) return;
    const next = Buffer.alloc(size);
    this.bytes.copy(next, 0, 0, this.length);
    this.bytes = next;
    while (this.length < size) {
      let n: number;
      try {
        ({ bytesRead: n } = await this.handle.read(next, this.length, size - this.length, this.length));
      } catch (err) {
        throw ioError(this.path, `cannot read at byte ${this.length}`, err);
      }
      if (n === 0) throw new HoneError('io_error', `${this.path}: the file ended at byte ${this.length} while being read (it was ${this.fileSize} bytes); was it changed meanwhile?`);
      this.length += n;
    }
  }
}

function checkMagic(path: string, bytes: Buffer, fileSize: number): void {
  if (fileSize === 0) throw badFormat(path, 'the file is empty, not a GGUF file');
  const head = bytes.subarray(0, Math.min(4, fileSize));
  if (head.toString('latin1') === 'GGUF') return;
  const shown = JSON.stringify(head.toString('latin1'));
  const hex = [...head].map((b) => b.toString(16).padStart(2, '0')).join(' ');
  if (fileSize < 4) throw badFormat(path, `the file is ${fileSize} bytes (${hex}), too short for a GGUF header`);
  throw badFormat(path, `not a GGUF file: it starts with ${shown} (${hex}) instead of "GGUF"`);
}

/** Parses from byte 0 of `bytes[0, length)`; throws Short when more bytes are needed. */
class Parser {
  pos = 4;
  /** Where the parser is, for messages. */
  where = 'the header';

  constructor(
    private path: string,
    private bytes: Buffer,
    private length: number,
    private fileSize: number,
    private maxHeaderBytes: number,
    private keptArrayItems: number,
  ) {}

  header(): Omit<GgufHeader, 'bytesRead'> {
    const version = this.u32();
    this.checkVersion(version);
    this.where = 'the header (tensor and key/value counts)';
    const nTensors = this.count('tensors');
    const nKv = this.count('key/value pairs');
    // Counts no header could hold are corrupt; plausible ones in a short file are left to
    // the truncation message, which says more.
    const least = nTensors * MIN_TENSOR_INFO_BYTES + nKv * MIN_KV_BYTES;
    const declared = `declares ${nTensors} tensors and ${nKv} key/value pairs`;
    if (least > this.fileSize && Math.max(nTensors, nKv) > PLAUSIBLE_COUNT) {
      throw this.bad(`${declared}, more than a file of ${this.fileSize} bytes can hold`);
    }
    if (least > this.maxHeaderBytes) throw this.bad(`${declared}, more than a header of at most ${mib(this.maxHeaderBytes)} can hold`);
    const kv = new Map<string, GgufValue>();
    const kvTypes = new Map<string, GgufValueType>();
    for (let i = 0; i < nKv; i++) {
      this.where = `key/value pair ${i + 1} of a declared ${nKv}`;
      const key = this.string('key');
      if (key === '') throw this.bad(`key/value pair ${i + 1} has an empty key`);
      if (kv.has(key)) throw this.bad(`key '${key}' appears twice`);
      this.where = `key '${key}' (key/value pair ${i + 1} of a declared ${nKv})`;
      const type = this.u32();
      const itemAt = this.pos;
      kv.set(key, this.value(type, key));
      kvTypes.set(key, type === ARRAY ? { type: 'array', itemType: VALUE_TYPES[this.bytes.readUInt32LE(itemAt)] } : { type: VALUE_TYPES[type] });
    }
    const alignment = this.alignment(kv);
    const tensors: GgufTensorInfo[] = [];
    const names = new Set<string>();
    for (let i = 0; i < nTensors; i++) {
      this.where = `tensor info ${i + 1} of a declared ${nTensors}`;
      const info = this.tensorInfo(alignment);
      if (names.has(info.name)) throw this.bad(`tensor '${info.name}' appears twice`);
      names.add(info.name);
      tensors.push(info);
    }
    const dataOffset = Math.ceil(this.pos / alignment) * alignment;
    for (const t of tensors) {
      const end = dataOffset + t.offset + t.bytes;
      if (end > this.fileSize) {
        throw this.bad(`tensor '${t.name}' data ends at byte ${end}, past the end of the file (${this.fileSize} bytes): the file is truncated`);
      }
    }
    return { path: this.path, version, fileSize: this.fileSize, kv, kvTypes, tensors, alignment, dataOffset };
  }

  private checkVersion(version: number): void {
    if (version === 2 || version === 3) return;
    if (version === 1) throw this.bad('GGUF version 1 is no longer supported (llama.cpp reads versions 2 and 3)');
    if ((version & 0xffff) === 0) throw this.bad(`GGUF version ${version} looks byte-swapped: a big-endian file, which llama.cpp on this machine cannot read`);
    throw this.bad(`GGUF version ${version} is not supported (versions 2 and 3 are)`);
  }

  private count(what: string): number {
    const at = this.pos;
    const n = this.u64();
    // gguf.cpp reads the counts as int64; a negative one is the top bit set.
    if (n >= 2 ** 63) throw this.bad(`the number of ${what} at byte ${at} is negative`);
    return n;
  }

  private alignment(kv: Map<string, GgufValue>): number {
    const value = kv.get('general.alignment');
    if (value === undefined) return 32;
    if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0 || (value & (value - 1)) !== 0) {
      throw this.bad(`general.alignment is ${JSON.stringify(value)}, not a power of 2`);
    }
    return value;
  }

  private tensorInfo(alignment: number): GgufTensorInfo {
    const name = this.string('tensor name');
    this.where = `tensor '${name}' (${this.where})`;
    const nDims = this.u32();
    if (nDims > MAX_DIMS) throw this.bad(`tensor '${name}' has ${nDims} dimensions; ggml allows at most ${MAX_DIMS}`);
    const dims: number[] = [];
    let elements = 1n;
    for (let d = 0; d < nDims; d++) {
      const ne = this.u64();
      if (ne >= 2 ** 63) throw this.bad(`tensor '${name}' dimension ${d} is negative`);
      dims.push(ne);
      elements *= BigInt(ne);
    }
    if (elements >= 2n ** 63n) throw this.bad(`tensor '${name}' has ${elements} elements, more than ggml can address`);
    const typeId = this.u32();
    const type = ggmlType(typeId);
    if (!type) throw this.bad(`tensor '${name}' has ggml type ${typeId}, which this llama.cpp release does not know (removed or newer)`);
    const rowLength = dims[0] ?? 1;
    if (rowLength % type.blockSize !== 0) {
      throw this.bad(`tensor '${name}' of type ${type.name} has rows of ${rowLength} elements, not a multiple of its block size ${type.blockSize}`);
    }
    const offset = this.u64();
    if (offset % alignment !== 0) throw this.bad(`tensor '${name}' data offset ${offset} is not a multiple of the alignment ${alignment}`);
    const n = Number(elements);
    return { name, dims, type: typeId, offset, elements: n, bytes: (n / type.blockSize) * type.blockBytes };
  }

  private value(type: number, key: string): GgufValue {
    if (type === STRING) return this.string(`the value of '${key}'`);
    if (type === ARRAY) return this.array(key);
    return this.scalar(type, key);
  }

  private array(key: string): GgufValue {
    const itemType = this.u32();
    const length = this.u64();
    if (itemType === ARRAY) throw this.bad(`key '${key}' is an array of arrays, which GGUF does not allow`);
    const itemBytes = SCALAR_BYTES[itemType];
    if (itemType !== STRING && itemBytes === undefined) throw this.unknownType(itemType, key, this.pos - 12);
    if (length > MAX_ARRAY_ITEMS) throw this.bad(`key '${key}' declares an array of ${length} items; GGUF allows at most ${MAX_ARRAY_ITEMS}`);
    if (length <= this.keptArrayItems) {
      const items: GgufValue[] = [];
      for (let i = 0; i < length; i++) items.push(this.value(itemType, key));
      return items;
    }
    if (itemType === STRING) {
      for (let i = 0; i < length; i++) this.skipString(key, i);
    } else {
      this.need(length * itemBytes);
      this.pos += length * itemBytes;
    }
    return { itemType: VALUE_TYPES[itemType], length };
  }

  private scalar(type: number, key: string): number | boolean {
    const size = SCALAR_BYTES[type];
    if (size === undefined) throw this.unknownType(type, key, this.pos - 4);
    this.need(size);
    const b = this.bytes;
    const p = this.pos;
    this.pos += size;
    switch (type) {
      case 0: return b.readUInt8(p);
      case 1: return b.readInt8(p);
      case 2: return b.readUInt16LE(p);
      case 3: return b.readInt16LE(p);
      case 4: return b.readUInt32LE(p);
      case 5: return b.readInt32LE(p);
      case 6: return b.readFloatLE(p);
      case 7: return b.readUInt8(p) !== 0;
      case 10: return Number(b.readBigUInt64LE(p));
      case 11: return Number(b.readBigInt64LE(p));
      default: return b.readDoubleLE(p);
    }
  }

  private unknownType(type: number, key: string, at: number): HoneError {
    return this.bad(`key '${key}' has unknown value type ${type} at byte ${at} (GGUF defines 0 to ${VALUE_TYPES.length - 1})`);
  }

  private string(what: string): string {
    const length = this.stringLength(what);
    this.need(length);
    const s = this.bytes.toString('utf8', this.pos, this.pos + length);
    this.pos += length;
    return s;
  }

  private skipString(key: string, index: number): void {
    const length = this.stringLength(`item ${index} of '${key}'`);
    this.need(length);
    this.pos += length;
  }

  private stringLength(what: string): number {
    const at = this.pos;
    const length = this.u64();
    if (length > MAX_STRING_BYTES) throw this.bad(`${what} at byte ${at} declares a string of ${length} bytes; GGUF allows at most ${MAX_STRING_BYTES}`);
    return length;
  }

  private u32(): number {
    this.need(4);
    const v = this.bytes.readUInt32LE(this.pos);
    this.pos += 4;
    return v;
  }

  /** A u64 as a number: exact below 2^53, which every sane count and size is. */
  private u64(): number {
    this.need(8);
    const lo = this.bytes.readUInt32LE(this.pos);
    const hi = this.bytes.readUInt32LE(this.pos + 4);
    this.pos += 8;
    return hi * 2 ** 32 + lo;
  }

  private need(n: number): void {
    if (this.pos + n > this.length) throw new Short(this.pos + n);
  }

  private bad(message: string): HoneError {
    return badFormat(this.path, message);
  }
}

function badFormat(path: string, message: string): HoneError {
  return new HoneError('bad_format', `${path}: ${message}`);
}

function ioError(path: string, what: string, err: unknown): HoneError {
  return new HoneError('io_error', `${path}: ${what}: ${reason(err)}`);
}

function mib(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  return bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}
