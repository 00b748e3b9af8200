/**
 * The GGUF LoRA export: the adapter as llama.cpp loads it, every metadata key kept as stored
 * (the trainer's `hone.*` block included), A and B at F32 as trained or stored as F16 or Q8_0.
 * Q8_0 packs rows in blocks of 32 values, so a tensor whose rows are not a multiple of 32 long
 * (a B of rank < 32, an A over a width like 172) is stored as F16 instead, and the notes say so.
 */
import type { AdapterStorage } from '../../common/export.ts';
import type { AdapterFile } from './adapter-file.ts';
import { TensorReader } from './adapter-file.ts';
import { writeGgufFile, type GgufKv, type GgufTensorOut } from './gguf-writer.ts';
import { encodeF16, encodeF32, encodeQ8_0, encodedBytes, Q8_0_BLOCK } from './tensor-codecs.ts';

const TYPE_ID: Record<AdapterStorage, number> = { f32: 0, f16: 1, q8_0: 8 };

/** The ggml type a tensor with rows of `rowLength` values gets for `storage`. */
export function storedType(storage: AdapterStorage, rowLength: number): number {
  if (storage === 'q8_0' && rowLength % Q8_0_BLOCK !== 0) return TYPE_ID.f16;
  return TYPE_ID[storage];
}

export interface AdapterCopy {
  bytes: number;
  /** Tensors stored as F16 although Q8_0 was asked for. */
  keptF16: string[];
}

export async function writeAdapterCopy(
  adapter: AdapterFile,
  path: string,
  storage: AdapterStorage,
  onTensor?: (done: number, total: number, name: string) => void,
): Promise<AdapterCopy> {
  const header = adapter.header;
  const kv: GgufKv[] = [...header.kv].map(([key, value]) => ({ key, value, type: header.kvTypes.get(key)! }));
  const reader = await TensorReader.open(header);
  const keptF16: string[] = [];
  let done = 0;
  try {
    const tensors: GgufTensorOut[] = header.tensors.map((t) => {
      const type = storedType(storage, t.dims[0]);
      if (storage === 'q8_0' && type !== TYPE_ID.q8_0) keptF16.push(t.name);
      return {
        name: t.name,
        dims: t.dims,
        type,
        bytes: encodedBytes(type, t.elements),
        data: async () => {
          onTensor?.(++done, header.tensors.length, t.name);
          if (type === t.type) return reader.bytes(t); // as stored: byte for byte
          const values = await reader.f32(t);
          return type === TYPE_ID.f32 ? encodeF32(values) : type === TYPE_ID.f16 ? encodeF16(values) : encodeQ8_0(values);
        },
      };
    });
    const bytes = await writeGgufFile(path, kv, tensors, header.alignment);
    return { bytes, keptF16 };
  } finally {
    await reader.close();
  }
}

/** The note for tensors that stayed F16 under q8_0 storage, grouped by row length. */
export function keptF16Note(keptF16: string[], adapter: AdapterFile): string | null {
  if (keptF16.length === 0) return null;
  const rowOf = new Map(adapter.header.tensors.map((t) => [t.name, t.dims[0]]));
  const byRow = new Map<number, number>();
  for (const n of keptF16) byRow.set(rowOf.get(n)!, (byRow.get(rowOf.get(n)!) ?? 0) + 1);
  const groups = [...byRow].sort((a, b) => a[0] - b[0]).map(([row, n]) => `${n} with rows of ${row}`).join(', ');
  return `${keptF16.length} of ${adapter.header.tensors.length} tensors are stored as F16, not Q8_0: Q8_0 needs rows that are a multiple of ${Q8_0_BLOCK} values (${groups}; a B's rows are the rank)`;
}
