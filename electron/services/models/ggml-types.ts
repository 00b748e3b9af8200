/**
 * ggml's tensor types and llama.cpp's file types, by the numbers GGUF files store. Taken from
 * the pinned llama.cpp release: `enum ggml_type` in ggml/include/ggml.h, block sizes from
 * `type_traits` in ggml/src/ggml.c and the `static_assert(sizeof(block_*))` lines of
 * ggml/src/ggml-common.h, `enum llama_ftype` in include/llama.h. Removed numbers (4, 5, 31-33,
 * 36-38) are absent: a file using one is not valid for that release.
 */

export interface GgmlType {
  name: string;
  /** Elements per block. */
  blockSize: number;
  /** Bytes per block. */
  blockBytes: number;
}

const QK_K = 256;

const TYPES: Record<number, GgmlType> = {
  0: { name: 'F32', blockSize: 1, blockBytes: 4 },
  1: { name: 'F16', blockSize: 1, blockBytes: 2 },
  2: { name: 'Q4_0', blockSize: 32, blockBytes: 18 },
  3: { name: 'Q4_1', blockSize: 32, blockBytes: 20 },
  6: { name: 'Q5_0', blockSize: 32, blockBytes: 22 },
  7: { name: 'Q5_1', blockSize: 32, blockBytes: 24 },
  8: { name: 'Q8_0', blockSize: 32, blockBytes: 34 },
  9: { name: 'Q8_1', blockSize: 32, blockBytes: 36 },
  10: { name: 'Q2_K', blockSize: QK_K, blockBytes: 84 },
  11: { name: 'Q3_K', blockSize: QK_K, blockBytes: 110 },
  12: { name: 'Q4_K', blockSize: QK_K, blockBytes: 144 },
  13: { name: 'Q5_K', blockSize: QK_K, blockBytes: 176 },
  14: { name: 'Q6_K', blockSize: QK_K, blockBytes: 210 },
  15: { name: 'Q8_K', blockSize: QK_K, blockBytes: 292 },
  16: { name: 'IQ2_XXS', blockSize: QK_K, blockBytes: 66 },
  17: { name: 'IQ2_XS', blockSize: QK_K, blockBytes: 74 },
  18: { name: 'IQ3_XXS', blockSize: QK_K, blockBytes: 98 },
  19: { name: 'IQ1_S', blockSize: QK_K, blockBytes: 50 },
  20: { name: 'IQ4_NL', blockSize: 32, blockBytes: 18 },
  21: { name: 'IQ3_S', blockSize: QK_K, blockBytes: 110 },
  22: { name: 'IQ2_S', blockSize: QK_K, blockBytes: 82 },
  23: { name: 'IQ4_XS', blockSize: QK_K, blockBytes: 136 },
  24: { name: 'I8', blockSize: 1, blockBytes: 1 },
  25: { name: 'I16', blockSize: 1, blockBytes: 2 },
  26: { name: 'I32', blockSize: 1, blockBytes: 4 },
  27: { name: 'I64', blockSize: 1, blockBytes: 8 },
  28: { name: 'F64', blockSize: 1, blockBytes: 8 },
  29: { name: 'IQ1_M', blockSize: QK_K, blockBytes: 56 },
  30: { name: 'BF16', blockSize: 1, blockBytes: 2 },
  34: { name: 'TQ1_0', blockSize: QK_K, blockBytes: 54 },
  35: { name: 'TQ2_0', blockSize: QK_K, blockBytes: 66 },
  39: { name: 'MXFP4', blockSize: 32, blockBytes: 17 },
  40: { name: 'NVFP4', blockSize: 64, blockBytes: 36 },
  41: { name: 'Q1_0', blockSize: 128, blockBytes: 18 },
  42: { name: 'Q2_0', blockSize: 64, blockBytes: 18 },
};

/** The type stored as `id`, or undefined for a number the pinned ggml does not know. */
export function ggmlType(id: number): GgmlType | undefined {
  return TYPES[id];
}

/** The number a type name is stored as (the inverse of `ggmlType`), for writers and tests. */
export function ggmlTypeId(name: string): number {
  for (const [id, type] of Object.entries(TYPES)) if (type.name === name) return Number(id);
  throw new Error(`unknown ggml type '${name}'`);
}

/** `LLAMA_FTYPE_*` without the prefix (and without `MOSTLY_`), by number. */
const FILE_TYPES: Record<number, string> = {
  0: 'ALL_F32',
  1: 'F16',
  2: 'Q4_0',
  3: 'Q4_1',
  7: 'Q8_0',
  8: 'Q5_0',
  9: 'Q5_1',
  10: 'Q2_K',
  11: 'Q3_K_S',
  12: 'Q3_K_M',
  13: 'Q3_K_L',
  14: 'Q4_K_S',
  15: 'Q4_K_M',
  16: 'Q5_K_S',
  17: 'Q5_K_M',
  18: 'Q6_K',
  19: 'IQ2_XXS',
  20: 'IQ2_XS',
  21: 'Q2_K_S',
  22: 'IQ3_XS',
  23: 'IQ3_XXS',
  24: 'IQ1_S',
  25: 'IQ4_NL',
  26: 'IQ3_S',
  27: 'IQ3_M',
  28: 'IQ2_S',
  29: 'IQ2_M',
  30: 'IQ4_XS',
  31: 'IQ1_M',
  32: 'BF16',
  36: 'TQ1_0',
  37: 'TQ2_0',
  38: 'MXFP4_MOE',
  39: 'NVFP4',
  40: 'Q1_0',
  41: 'Q2_0',
  1024: 'GUESSED',
};

/** llama.cpp's name of `general.file_type` value `id`; `unknown (id)` for a number it does not define. */
export function fileTypeName(id: number): string {
  return FILE_TYPES[id] ?? `unknown (${id})`;
}
