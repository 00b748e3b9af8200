/** The GGUF header reader: real values, every value type, tensor sizes per type, only the header read, broken files. */
import assert from 'node:assert/strict';
import { closeSync, mkdirSync, openSync, statSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readGgufHeader, ggmlType } from '../../electron/services/models/index.ts';
import { requireFixture } from '../helpers/fixtures.ts';
import { ggufHeaderBytes, tensorBytes, typed, writeGguf, type GgufSpec, type TensorSpec } from '../helpers/gguf-writer.ts';
import { countFileHandleReads } from '../helpers/read-spy.ts';
import { tempFiles } from '../helpers/temp-files.ts';

const rejectsWith = (promise: Promise<unknown>, code: string, message: string) =>
  assert.rejects(promise, (err: { code?: string; message?: string }) => {
    assert.equal(err.code, code);
    assert.equal(err.message, message);
    return true;
  });

test('stories260K: the real header, read in chunks of any size', async (t) => {
  const path = requireFixture(t, 'stories260K.gguf');
  if (!path) return;
  const header = await readGgufHeader(path);
  assert.equal(header.version, 3);
  assert.equal(header.tensors.length, 48);
  assert.ok(header.tensors.every((x) => ggmlType(x.type)?.name === 'F32'));
  assert.equal(header.tensors.reduce((n, x) => n + x.elements, 0), 292_800);
  assert.equal(header.kv.get('general.architecture'), 'llama');
  assert.equal(header.kv.get('llama.context_length'), 2048);
  assert.equal(header.kv.get('llama.block_count'), 5);
  assert.equal(header.kv.get('llama.embedding_length'), 64);
  assert.equal(header.kv.has('tokenizer.chat_template'), false);
  // Vocabularies are walked, not kept.
  assert.deepEqual(header.kv.get('tokenizer.ggml.tokens'), { itemType: 'string', length: 512 });
  assert.deepEqual(header.kv.get('tokenizer.ggml.scores'), { itemType: 'f32', length: 512 });
  // The tensor data runs to the end of the file: F32 elements are 4 bytes, each tensor aligned to 32.
  const last = header.tensors.reduce((a, b) => (a.offset > b.offset ? a : b));
  assert.equal(header.dataOffset % 32, 0);
  assert.equal(header.dataOffset + last.offset + last.bytes, header.fileSize);

  // Chunks as small as 7 bytes grow the buffer until the header parses, to the same result.
  const small = await readGgufHeader(path, { chunkBytes: 7 });
  assert.deepEqual([...small.kv], [...header.kv]);
  assert.deepEqual(small.tensors, header.tensors);
  assert.ok(small.bytesRead < header.fileSize / 10, `read ${small.bytesRead} of ${header.fileSize} bytes`);
});

test('every GGUF value type reads back as written; long arrays are summarised', async (t) => {
  const path = join(tempFiles(t), 'types.gguf');
  const tokens = Array.from({ length: 100 }, (_, i) => `tok${i}`);
  writeGguf(path, {
    kv: {
      'general.architecture': 'llama',
      u8: typed('u8', 200),
      i8: typed('i8', -100),
      u16: typed('u16', 60_000),
      i16: typed('i16', -30_000),
      u32: typed('u32', 4_000_000_000),
      i32: typed('i32', -2_000_000_000),
      f32: typed('f32', 0.5),
      bool: true,
      u64: typed('u64', 2n ** 40n),
      i64: typed('i64', -(2n ** 40n)),
      f64: typed('f64', 1 / 3),
      text: 'héllo {{ messages }}',
      short: [1, 2, 3],
      names: ['a', 'b'],
      tokens,
      scores: typed('f32', Array.from({ length: 70 }, () => 0)),
    },
  });
  const kv = (await readGgufHeader(path)).kv;
  assert.deepEqual(Object.fromEntries(kv), {
    'general.architecture': 'llama',
    u8: 200,
    i8: -100,
    u16: 60_000,
    i16: -30_000,
    u32: 4_000_000_000,
    i32: -2_000_000_000,
    f32: 0.5,
    bool: true,
    u64: 2 ** 40,
    i64: -(2 ** 40),
    f64: 1 / 3,
    text: 'héllo {{ messages }}',
    short: [1, 2, 3],
    names: ['a', 'b'],
    tokens: { itemType: 'string', length: 100 },
    scores: { itemType: 'f32', length: 70 },
  });
});

test('tensor infos: shapes, types, offsets and sizes per quantized type', async (t) => {
  const path = join(tempFiles(t), 'quant.gguf');
  const tensors: TensorSpec[] = [
    { name: 'a', dims: [512, 3], type: 'Q4_K' },
    { name: 'b', dims: [256, 2, 2], type: 'Q6_K' },
    { name: 'c', dims: [64, 5], type: 'Q8_0' },
    { name: 'd', dims: [96], type: 'Q4_0' },
    { name: 'e', dims: [256, 7], type: 'IQ2_XXS' },
    { name: 'f', dims: [256, 1], type: 'TQ1_0' },
    { name: 'g', dims: [64, 3], type: 'MXFP4' },
    { name: 'h', dims: [10, 3], type: 'BF16' },
    { name: 'i', dims: [10, 3], type: 'F16' },
    { name: 'j', dims: [7], type: 'F32' },
  ];
  const { fileSize, dataOffset } = writeGguf(path, { kv: { 'general.architecture': 'x' }, tensors, alignment: 64 });
  const header = await readGgufHeader(path);
  assert.equal(header.alignment, 64);
  assert.equal(header.dataOffset, dataOffset);
  assert.equal(header.fileSize, fileSize);
  let offset = 0;
  for (const [i, spec] of tensors.entries()) {
    const got = header.tensors[i];
    assert.equal(got.name, spec.name);
    assert.deepEqual(got.dims, spec.dims);
    assert.equal(ggmlType(got.type)?.name, spec.type);
    assert.equal(got.elements, spec.dims.reduce((a, b) => a * b, 1));
    assert.equal(got.bytes, tensorBytes(spec), `bytes of ${spec.type}`);
    assert.equal(got.offset, offset);
    offset += Math.ceil(got.bytes / 64) * 64;
  }
});

test('only the header is read: a 64 MiB tensor costs the first chunk', async (t) => {
  const path = join(tempFiles(t), 'big.gguf');
  // 4096 x 4096 F32 = 64 MiB of (written, not sparse) zeros after the header.
  const { header } = ggufHeaderBytes({ kv: { 'general.architecture': 'llama' }, tensors: [{ name: 'w', dims: [4096, 4096], type: 'F32' }] });
  const fd = openSync(path, 'w');
  writeSync(fd, header);
  const zeros = Buffer.alloc(4 * 1024 * 1024);
  for (let i = 0; i < 16; i++) writeSync(fd, zeros);
  closeSync(fd);
  const reads = await countFileHandleReads(t);
  const got = await readGgufHeader(path, { chunkBytes: 64 * 1024 });
  assert.equal(got.fileSize, header.length + 64 * 1024 * 1024);
  assert.equal(got.tensors[0].elements, 4096 * 4096);
  assert.equal(reads.bytes, 64 * 1024, `bytes read through file handles: ${reads.bytes}`);
  assert.equal(got.bytesRead, reads.bytes);
});

test('a truncated header names the byte it ends at and the pair it was in', async (t) => {
  const path = join(tempFiles(t), 'cut.gguf');
  const kv: GgufSpec['kv'] = {};
  for (let i = 1; i <= 6; i++) kv[`key.${i}`] = i;
  kv['tokenizer.chat_template'] = 'x'.repeat(8000);
  for (let i = 8; i <= 10; i++) kv[`key.${i}`] = i;
  writeGguf(path, { kv });
  truncateSync(path, 4096);
  await rejectsWith(
    readGgufHeader(path),
    'bad_format',
    `${path}: header ends at byte 4096, inside key 'tokenizer.chat_template' (key/value pair 7 of a declared 10): the file is truncated or not a whole GGUF file`,
  );
});

test('tensor data cut short is found from the header alone', async (t) => {
  const path = join(tempFiles(t), 'partial.gguf');
  const { fileSize } = writeGguf(path, { tensors: [{ name: 'w', dims: [1024, 64], type: 'F32' }] });
  truncateSync(path, fileSize - 100);
  await rejectsWith(
    readGgufHeader(path),
    'bad_format',
    `${path}: tensor 'w' data ends at byte ${fileSize}, past the end of the file (${fileSize - 100} bytes): the file is truncated`,
  );
});

test('files that are not GGUF: text, empty, too short', async (t) => {
  const dir = tempFiles(t, { 'notes.gguf': 'hello, this is text\n', 'empty.gguf': '', 'tiny.gguf': 'GG' });
  await rejectsWith(readGgufHeader(join(dir, 'notes.gguf')), 'bad_format', `${join(dir, 'notes.gguf')}: not a GGUF file: it starts with "hell" (68 65 6c 6c) instead of "GGUF"`);
  await rejectsWith(readGgufHeader(join(dir, 'empty.gguf')), 'bad_format', `${join(dir, 'empty.gguf')}: the file is empty, not a GGUF file`);
  await rejectsWith(readGgufHeader(join(dir, 'tiny.gguf')), 'bad_format', `${join(dir, 'tiny.gguf')}: the file is 2 bytes (47 47), too short for a GGUF header`);
});

test('bad versions, counts, value types and tensor infos are each named', async (t) => {
  const dir = tempFiles(t);
  const file = (name: string, spec: GgufSpec, patch?: (b: Buffer) => void) => {
    const { header } = ggufHeaderBytes(spec);
    patch?.(header);
    const path = join(dir, name);
    writeFileSync(path, header);
    truncateSync(path, header.length + 4096);
    return path;
  };
  const one = { kv: { 'general.architecture': 'llama' } };
  // Layout: magic 0, version 4, n_tensors 8, n_kv 16, first key length 24, key 32...
  const keyEnd = 32 + 'general.architecture'.length;

  const v1 = file('v1.gguf', one, (b) => b.writeUInt32LE(1, 4));
  await rejectsWith(readGgufHeader(v1), 'bad_format', `${v1}: GGUF version 1 is no longer supported (llama.cpp reads versions 2 and 3)`);
  const swapped = file('be.gguf', one, (b) => b.writeUInt32BE(3, 4));
  await rejectsWith(readGgufHeader(swapped), 'bad_format', `${swapped}: GGUF version 50331648 looks byte-swapped: a big-endian file, which llama.cpp on this machine cannot read`);

  const many = file('many.gguf', one, (b) => b.writeBigUInt64LE(2n ** 40n, 16));
  await rejectsWith(readGgufHeader(many), 'bad_format', `${many}: declares 0 tensors and ${2 ** 40} key/value pairs, more than a file of ${statSync(many).size} bytes can hold`);
  const negative = file('negative.gguf', one, (b) => b.writeBigUInt64LE(2n ** 63n, 8));
  await rejectsWith(readGgufHeader(negative), 'bad_format', `${negative}: the number of tensors at byte 8 is negative`);

  const badType = file('type.gguf', one, (b) => b.writeUInt32LE(13, keyEnd));
  await rejectsWith(readGgufHeader(badType), 'bad_format', `${badType}: key 'general.architecture' has unknown value type 13 at byte ${keyEnd} (GGUF defines 0 to 12)`);
  const longString = file('long.gguf', one, (b) => b.writeBigUInt64LE(2n ** 50n, keyEnd + 4));
  await rejectsWith(readGgufHeader(longString), 'bad_format', `${longString}: the value of 'general.architecture' at byte ${keyEnd + 4} declares a string of ${2 ** 50} bytes; GGUF allows at most ${2 ** 30}`);

  const twice = file('twice.gguf', { kv: { a: 1, b: 2 } }, (b) => b.write('a', 24 + 8 + 1 + 4 + 4 + 8, 'latin1'));
  await rejectsWith(readGgufHeader(twice), 'bad_format', `${twice}: key 'a' appears twice`);

  const tensor = { tensors: [{ name: 'w', dims: [32, 2], type: 'Q8_0' as const }] };
  // Tensor info after the 24-byte preamble: name length 8 + 'w' 1, n_dims 4, dims 16, type 4, offset 8.
  const typeAt = 24 + 8 + 1 + 4 + 16;
  const removed = file('removed.gguf', tensor, (b) => b.writeUInt32LE(31, typeAt));
  await rejectsWith(readGgufHeader(removed), 'bad_format', `${removed}: tensor 'w' has ggml type 31, which this llama.cpp release does not know (removed or newer)`);
  const ragged = file('ragged.gguf', tensor, (b) => b.writeBigUInt64LE(33n, 24 + 8 + 1 + 4));
  await rejectsWith(readGgufHeader(ragged), 'bad_format', `${ragged}: tensor 'w' of type Q8_0 has rows of 33 elements, not a multiple of its block size 32`);
  const dims = file('dims.gguf', tensor, (b) => b.writeUInt32LE(5, 24 + 8 + 1));
  await rejectsWith(readGgufHeader(dims), 'bad_format', `${dims}: tensor 'w' has 5 dimensions; ggml allows at most 4`);
});

test('a header larger than the limit is refused, naming where the reader was', async (t) => {
  const path = join(tempFiles(t), 'huge-header.gguf');
  writeGguf(path, { kv: { 'general.architecture': 'llama', 'tokenizer.chat_template': 'y'.repeat(300_000) } });
  await rejectsWith(
    readGgufHeader(path, { maxHeaderBytes: 64 * 1024, chunkBytes: 4096 }),
    'bad_format',
    `${path}: header is larger than 64 KiB (still inside key 'tokenizer.chat_template' (key/value pair 2 of a declared 2) at byte ${24 + (8 + 20) + 4 + (8 + 5) + (8 + 23) + 4 + 8 + 300_000}); a model's header is at most tens of MB`,
  );
});

test('a path that is missing or a folder is an io_error naming it', async (t) => {
  const dir = tempFiles(t);
  mkdirSync(join(dir, 'folder.gguf'));
  await rejectsWith(readGgufHeader(join(dir, 'nope.gguf')), 'io_error', `${join(dir, 'nope.gguf')}: cannot open: no such file or folder (ENOENT)`);
  await rejectsWith(readGgufHeader(join(dir, 'folder.gguf')), 'io_error', `${join(dir, 'folder.gguf')}: not a file`);
});
