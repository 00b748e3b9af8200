/**
 * Where each number of a valid GGUF header sits (ggml's gguf.h layout), so a mutation can set a
 * count, a string length, a type, a dimension or a tensor offset to a value a reader must
 * survive. Only walks files it is given whole and valid (the seeds); not a reader.
 */
export type FieldKind = 'version' | 'count' | 'string-length' | 'value-type' | 'array-type' | 'array-length' | 'n-dims' | 'dim' | 'tensor-type' | 'tensor-offset';

export interface GgufField {
  offset: number;
  size: 4 | 8;
  kind: FieldKind;
}

export interface GgufLayout {
  fields: GgufField[];
  /** End of the last tensor info: the header proper, before the alignment padding. */
  headerEnd: number;
}

const SCALAR_BYTES: Record<number, number> = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };
const STRING = 8;
const ARRAY = 9;

export function ggufLayout(bytes: Buffer): GgufLayout {
  const fields: GgufField[] = [];
  let pos = 4;
  const field = (size: 4 | 8, kind: FieldKind): number => {
    fields.push({ offset: pos, size, kind });
    const v = size === 4 ? bytes.readUInt32LE(pos) : Number(bytes.readBigUInt64LE(pos));
    pos += size;
    return v;
  };
  const string = () => {
    const length = field(8, 'string-length');
    pos += length;
  };
  const value = (type: number) => {
    if (type === STRING) string();
    else pos += SCALAR_BYTES[type];
  };
  field(4, 'version');
  const nTensors = field(8, 'count');
  const nKv = field(8, 'count');
  for (let i = 0; i < nKv; i++) {
    string();
    const type = field(4, 'value-type');
    if (type !== ARRAY) {
      value(type);
      continue;
    }
    const itemType = field(4, 'array-type');
    const length = field(8, 'array-length');
    // long arrays (vocabularies): only their first items' fields are listed
    for (let j = 0; j < length; j++) {
      if (itemType === STRING && j < 16) string();
      else if (itemType === STRING) pos += 8 + Number(bytes.readBigUInt64LE(pos));
      else pos += SCALAR_BYTES[itemType];
    }
  }
  for (let i = 0; i < nTensors; i++) {
    string();
    const nDims = field(4, 'n-dims');
    for (let d = 0; d < nDims; d++) field(8, 'dim');
    field(4, 'tensor-type');
    field(8, 'tensor-offset');
  }
  return { fields, headerEnd: pos };
}
