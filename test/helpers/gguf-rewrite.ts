/**
 * Rewrites a GGUF file into another with its keys or tensors changed, everything else copied as
 * it is (stored value types, tensor bytes, alignment): for tests that need a layout llama.cpp's
 * loader accepts but probe-arch does not make.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { readGgufHeader, type GgufTensorInfo } from '../../electron/services/models/gguf-header.ts';
import { writeGgufFile, type GgufKv, type GgufTensorOut } from '../../electron/services/export/gguf-writer.ts';

export interface GgufEdit {
  /** The keys to write (the source's, in its order, by default). */
  kv?: (kv: GgufKv[]) => GgufKv[];
  /** The tensors to write, given the source's and a reader of any source tensor's bytes. */
  tensors?: (tensors: GgufTensorInfo[], bytesOf: (t: GgufTensorInfo) => Buffer) => GgufTensorOut[];
}

export async function rewriteGguf(src: string, dst: string, edit: GgufEdit): Promise<void> {
  const header = await readGgufHeader(src, { keptArrayItems: Number.MAX_SAFE_INTEGER });
  const fd = openSync(src, 'r');
  const bytesOf = (t: GgufTensorInfo) => {
    const b = Buffer.alloc(t.bytes);
    readSync(fd, b, 0, t.bytes, header.dataOffset + t.offset);
    return b;
  };
  try {
    const kv: GgufKv[] = [...header.kv].map(([key, value]) => ({ key, value, type: header.kvTypes.get(key)! }));
    const tensors = edit.tensors ? edit.tensors(header.tensors, bytesOf) : header.tensors.map((t) => copiedTensor(t, bytesOf));
    await writeGgufFile(dst, edit.kv ? edit.kv(kv) : kv, tensors, header.alignment);
  } finally {
    closeSync(fd);
  }
}

/** A copy of `t` as written. */
export function copiedTensor(t: GgufTensorInfo, bytesOf: (t: GgufTensorInfo) => Buffer): GgufTensorOut {
  return { name: t.name, dims: t.dims, type: t.type, bytes: t.bytes, data: () => bytesOf(t) };
}
