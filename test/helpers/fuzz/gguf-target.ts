/**
 * Fuzz target: the TypeScript GGUF header reader (electron/services/models/gguf-header.ts) and
 * the model inspection built on it, on damaged copies of real headers: numbers set to edge
 * values (counts, string and array lengths, types, dimensions, tensor offsets), bit flips,
 * truncation anywhere in the header, and files cut short inside the tensor data.
 * A damaged file must be refused with `bad_format` naming the file; a header that is read must
 * describe tensors that lie inside the file.
 */
import fc from 'fast-check';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModelCatalog } from '../../../electron/services/models/catalog.ts';
import { readGgufHeader, type GgufHeader } from '../../../electron/services/models/gguf-header.ts';
import { ggufSeeds, type GgufSeed } from './gguf-seeds.ts';
import { readOrRefuse } from './refusal.ts';
import type { FuzzTarget } from './target.ts';

/** Values that break arithmetic or allocation: sign bits, 2^32, 2^53, all ones. */
const EDGES = [0n, 1n, 2n, 3n, 8n, 9n, 13n, 31n, 32n, 33n, 40n, 255n, 0xffffn, 2n ** 30n, 2n ** 31n - 1n, 2n ** 31n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 62n, 2n ** 63n - 1n, 2n ** 63n, 2n ** 64n - 1n];

export type GgufMutation =
  | { kind: 'field'; field: number; value: { edge: number } | { offBy: number } | { random: bigint } }
  | { kind: 'flip'; at: number; bit: number };

export interface GgufCase {
  seed: number;
  mutations: GgufMutation[];
  /** Cut the file inside its header (at this byte, modulo the header's length). */
  truncateHeader: number | null;
  /** Cut the file this many bytes before its end (inside the tensor data). */
  shortenBy: number | null;
}

const mutation: fc.Arbitrary<GgufMutation> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('field' as const),
      field: fc.nat(),
      value: fc.oneof(
        fc.record({ edge: fc.integer({ min: 0, max: EDGES.length - 1 }) }),
        fc.record({ offBy: fc.integer({ min: -64, max: 64 }) }),
        fc.record({ random: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }) }),
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }) },
);

export const ggufCase = (seeds: number): fc.Arbitrary<GgufCase> =>
  fc.record({
    seed: fc.integer({ min: 0, max: seeds - 1 }),
    mutations: fc.array(mutation, { maxLength: 4 }),
    truncateHeader: fc.option(fc.nat(), { freq: 4 }),
    shortenBy: fc.option(fc.integer({ min: 1, max: 1 << 20 }), { freq: 6 }),
  });

/** The header bytes of a case and the size its file has. */
export function caseFile(seed: GgufSeed, c: GgufCase): { header: Buffer; fileSize: number } {
  const header = Buffer.from(seed.header);
  const { fields, headerEnd } = seed.layout;
  for (const m of c.mutations) {
    if (m.kind === 'flip') {
      header[m.at % headerEnd] ^= 1 << m.bit;
      continue;
    }
    const f = fields[m.field % fields.length];
    const old = f.size === 4 ? BigInt(header.readUInt32LE(f.offset)) : header.readBigUInt64LE(f.offset);
    const v = 'edge' in m.value ? EDGES[m.value.edge] : 'offBy' in m.value ? old + BigInt(m.value.offBy) : m.value.random;
    const bits = f.size === 4 ? 32n : 64n;
    const wrapped = BigInt.asUintN(Number(bits), v);
    if (f.size === 4) header.writeUInt32LE(Number(wrapped), f.offset);
    else header.writeBigUInt64LE(wrapped, f.offset);
  }
  if (c.truncateHeader !== null) {
    const at = c.truncateHeader % (headerEnd + 1);
    return { header: header.subarray(0, at), fileSize: at };
  }
  const fileSize = c.shortenBy === null ? seed.fileSize : Math.max(header.length, seed.fileSize - c.shortenBy);
  return { header, fileSize };
}

export function showGgufCase(seeds: GgufSeed[], c: GgufCase): string {
  const seed = seeds[c.seed];
  const parts = c.mutations.map((m) => {
    if (m.kind === 'flip') return `flip bit ${m.bit} of byte ${m.at % seed.layout.headerEnd}`;
    const f = seed.layout.fields[m.field % seed.layout.fields.length];
    const v = 'edge' in m.value ? `${EDGES[m.value.edge]}` : 'offBy' in m.value ? `its value ${m.value.offBy >= 0 ? '+' : ''}${m.value.offBy}` : `${m.value.random}`;
    return `${f.kind} at byte ${f.offset} set to ${v}`;
  });
  if (c.truncateHeader !== null) parts.push(`cut at byte ${c.truncateHeader % (seed.layout.headerEnd + 1)}`);
  else if (c.shortenBy !== null) parts.push(`file ${c.shortenBy} bytes shorter`);
  return [seed.name, ...parts].join('; ');
}

export function ggufTarget(): FuzzTarget<GgufCase> {
  const seeds = ggufSeeds();
  const dir = mkdtempSync(join(tmpdir(), 'hone-fuzz-gguf-'));
  let n = 0;
  return {
    name: 'gguf-header',
    arbitrary: ggufCase(seeds.length),
    show: (c) => showGgufCase(seeds, c),
    async check(c) {
      const { header, fileSize } = caseFile(seeds[c.seed], c);
      const path = join(dir, `case-${n++}.gguf`);
      writeFileSync(path, header);
      if (fileSize > header.length) truncateSync(path, fileSize);
      try {
        return await checkGgufFile(path);
      } finally {
        rmSync(path, { force: true });
      }
    },
    async close() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The header reader and the model inspection on one file: refusals proper, headers sane. */
export async function checkGgufFile(path: string): Promise<string | null> {
  const read = await readOrRefuse(() => readGgufHeader(path), { where: path, codes: ['bad_format'] });
  if ('problem' in read) return read.problem;
  if ('value' in read) {
    const insane = headerProblem(read.value);
    if (insane) return `read a header that does not hold together: ${insane}`;
  }
  const inspected = await readOrRefuse(() => new ModelCatalog().inspect(path), { where: path, codes: ['bad_format'] });
  if ('problem' in inspected) return `models.inspect: ${inspected.problem}`;
  if ('refused' in inspected) return `models.inspect refused instead of listing the model with its error: ${inspected.refused.message}`;
  const model = inspected.value;
  if ('value' in read && model.error) return `models.inspect lists an error for a header that reads: ${model.error.message}`;
  if ('refused' in read && (!model.error || model.error.code !== 'bad_format' || !model.error.message.includes(path))) {
    return `models.inspect does not list the header's refusal: ${JSON.stringify(model.error)}`;
  }
  return null;
}

function headerProblem(h: GgufHeader): string | null {
  if (!(h.dataOffset % h.alignment === 0 && h.dataOffset <= h.fileSize)) return `data offset ${h.dataOffset} (alignment ${h.alignment}, file ${h.fileSize})`;
  for (const t of h.tensors) {
    const numbers = [t.offset, t.elements, t.bytes, ...t.dims];
    if (!numbers.every((x) => Number.isFinite(x) && x >= 0)) return `tensor '${t.name}' has numbers ${JSON.stringify(numbers)}`;
    if (h.dataOffset + t.offset + t.bytes > h.fileSize) return `tensor '${t.name}' ends past the end of the file`;
  }
  return null;
}

/**
 * The real header cut at every `stride`-th byte: each cut file must be refused as bad_format
 * naming the file. Returns the number of cuts tried and the first problem.
 */
export async function truncationSweep(stride = 1): Promise<{ cuts: number; problem: string | null }> {
  const [seed] = ggufSeeds();
  const dir = mkdtempSync(join(tmpdir(), 'hone-fuzz-cut-'));
  let cuts = 0;
  try {
    for (let at = 0; at <= seed.layout.headerEnd; at += stride) {
      const path = join(dir, `cut-${at}.gguf`);
      writeFileSync(path, seed.header.subarray(0, at));
      cuts++;
      const read = await readOrRefuse(() => readGgufHeader(path), { where: path, codes: ['bad_format'] });
      rmSync(path);
      if ('problem' in read) return { cuts, problem: `cut at byte ${at}: ${read.problem}` };
      if ('value' in read) return { cuts, problem: `cut at byte ${at}: the header was read, though it is incomplete` };
    }
    return { cuts, problem: null };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
