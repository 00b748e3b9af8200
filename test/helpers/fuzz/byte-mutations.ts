/**
 * Byte-level damage to a real file, as fast-check values (positions are plain naturals taken
 * modulo the length, so they shrink toward the start of the file): truncation, bit flips,
 * inserted bytes that readers trip on (BOMs, CR, NUL, broken UTF-8), deleted runs, all line
 * ends turned to CRLF, and lines of megabytes.
 */
import fc from 'fast-check';

/** Bytes worth inserting: each one a separate way to confuse a decoder or a splitter. */
export const PAYLOADS = {
  bom: [0xef, 0xbb, 0xbf],
  crlf: [0x0d, 0x0a],
  cr: [0x0d],
  lf: [0x0a],
  nul: [0x00],
  tab: [0x09],
  quote: [0x22],
  comma: [0x2c],
  brackets: [0x5b, 0x7b, 0x5d, 0x7d],
  backslash: [0x5c],
  'lone-continuation': [0x80],
  'cut-sequence': [0xe2, 0x82],
  overlong: [0xc0, 0xaf],
  surrogate: [0xed, 0xa0, 0x80],
  'byte-ff': [0xff],
  'utf16-bom': [0xff, 0xfe],
} as const;

export type Payload = keyof typeof PAYLOADS;

export type ByteMutation =
  | { kind: 'truncate'; at: number }
  | { kind: 'flip'; at: number; bit: number }
  | { kind: 'insert'; at: number; payload: Payload }
  | { kind: 'delete'; at: number; length: number }
  | { kind: 'crlf' }
  | { kind: 'long-line'; at: number; bytes: number; fill: 'letters' | 'json-string' };

const at = fc.nat();

export const byteMutation: fc.Arbitrary<ByteMutation> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('truncate' as const), at }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('flip' as const), at, bit: fc.integer({ min: 0, max: 7 }) }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('insert' as const), at, payload: fc.constantFrom(...(Object.keys(PAYLOADS) as Payload[])) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), at, length: fc.integer({ min: 1, max: 64 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('crlf' as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('long-line' as const),
      at,
      bytes: fc.integer({ min: 1 << 16, max: 3 << 20 }),
      fill: fc.constantFrom('letters' as const, 'json-string' as const),
    }),
  },
);

/** A few mutations, applied in order. */
export const byteMutations = fc.array(byteMutation, { minLength: 1, maxLength: 4 });

export function applyByteMutation(bytes: Uint8Array, m: ByteMutation): Uint8Array {
  const pos = (n: number) => n % (bytes.length + 1);
  switch (m.kind) {
    case 'truncate':
      return bytes.subarray(0, pos(m.at));
    case 'flip': {
      if (bytes.length === 0) return bytes;
      const out = Uint8Array.from(bytes);
      out[m.at % bytes.length] ^= 1 << m.bit;
      return out;
    }
    case 'insert':
      return splice(bytes, pos(m.at), 0, Uint8Array.from(PAYLOADS[m.payload]));
    case 'delete':
      return splice(bytes, pos(m.at), m.length, new Uint8Array(0));
    case 'crlf':
      return fromLatin1(latin1(bytes).replace(/\r?\n/g, '\r\n'));
    case 'long-line': {
      const run = new Uint8Array(m.bytes).fill(0x61);
      if (m.fill === 'json-string') {
        run[0] = 0x22;
        run[run.length - 1] = 0x22;
      }
      return splice(bytes, pos(m.at), 0, run);
    }
  }
}

export function applyByteMutations(bytes: Uint8Array, list: readonly ByteMutation[]): Uint8Array {
  return list.reduce(applyByteMutation, bytes);
}

/** A mutation in a few words, for reports. */
export function showByteMutation(m: ByteMutation): string {
  switch (m.kind) {
    case 'truncate': return `truncate at ${m.at}`;
    case 'flip': return `flip bit ${m.bit} of byte ${m.at}`;
    case 'insert': return `insert ${m.payload} at ${m.at}`;
    case 'delete': return `delete ${m.length} bytes at ${m.at}`;
    case 'crlf': return 'every line end as CRLF';
    case 'long-line': return `insert a ${m.bytes}-byte ${m.fill} at ${m.at}`;
  }
}

function splice(bytes: Uint8Array, start: number, remove: number, insert: Uint8Array): Uint8Array {
  const end = Math.min(bytes.length, start + remove);
  const out = new Uint8Array(start + insert.length + bytes.length - end);
  out.set(bytes.subarray(0, start), 0);
  out.set(insert, start);
  out.set(bytes.subarray(end), start + insert.length);
  return out;
}

function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}

function fromLatin1(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'latin1'));
}
