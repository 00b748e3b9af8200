// Our safetensors writer and reader: a round trip gives the same tensors and metadata, the
// header is what the format requires, and files that break the format are refused by the reader.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { HoneError } from '../../electron/common/errors.ts';
import { readSafetensors, safetensorsHeader, writeSafetensors, type SafeTensor } from '../../electron/services/export/safetensors.ts';
import { tempFiles } from '../helpers/temp-files.ts';

function f32(...v: number[]): Buffer {
  return Buffer.from(Float32Array.from(v).buffer);
}

const TENSORS: SafeTensor[] = [
  { name: 'base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight', dtype: 'F32', shape: [2, 3], data: f32(1, 2, 3, 4, 5, 6) },
  { name: 'base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight', dtype: 'F32', shape: [3, 2], data: f32(-1, 0.5, 7, 8, 9, 1e-30) },
  { name: 'odd', dtype: 'F16', shape: [3], data: Buffer.from([0, 0x3c, 0, 0xc0, 0, 0]) },
];

test('a written file reads back to the same tensors, shapes, dtypes and metadata', async (t) => {
  const dir = tempFiles(t);
  const path = join(dir, 'a.safetensors');
  const size = await writeSafetensors(path, TENSORS, { format: 'pt', note: 'héllo' });
  assert.equal(size, readFileSync(path).length);
  const back = await readSafetensors(path);
  assert.deepEqual(back.metadata, { format: 'pt', note: 'héllo' });
  assert.deepEqual([...back.tensors.keys()], TENSORS.map((x) => x.name));
  for (const x of TENSORS) {
    const y = back.tensors.get(x.name)!;
    assert.equal(y.dtype, x.dtype);
    assert.deepEqual(y.shape, x.shape);
    assert.ok(y.data.equals(x.data), x.name);
  }
});

test('the header: 8-byte little-endian length, JSON padded with spaces to 8 bytes, offsets contiguous from 0 to the end', async (t) => {
  const dir = tempFiles(t);
  const path = join(dir, 'a.safetensors');
  await writeSafetensors(path, TENSORS, { format: 'pt' });
  const buf = readFileSync(path);
  const n = Number(buf.readBigUInt64LE(0));
  assert.equal((8 + n) % 8, 0, 'the data starts on an 8-byte boundary');
  const text = buf.toString('utf8', 8, 8 + n);
  assert.match(text, /^\{.*\} *$/s);
  assert.equal(text.trimEnd().length, JSON.stringify(JSON.parse(text)).length, 'only spaces pad it');
  const header = JSON.parse(text) as Record<string, { dtype: string; shape: number[]; data_offsets: [number, number] }>;
  const entries = Object.entries(header).filter(([k]) => k !== '__metadata__').map(([, v]) => v).sort((a, b) => a.data_offsets[0] - b.data_offsets[0]);
  let at = 0;
  for (const e of entries) {
    assert.equal(e.data_offsets[0], at);
    assert.equal(e.data_offsets[1] - e.data_offsets[0], e.shape.reduce((a, b) => a * b, 1) * { F32: 4, F16: 2 }[e.dtype]!);
    at = e.data_offsets[1];
  }
  assert.equal(8 + n + at, buf.length, 'the tensors cover the file');
});

test('the reader refuses what breaks the format, naming the problem', async (t) => {
  const dir = tempFiles(t);
  const good = readFileSync(await (async () => {
    const p = join(dir, 'good.safetensors');
    await writeSafetensors(p, TENSORS.slice(0, 2), {});
    return p;
  })());
  const n = Number(good.readBigUInt64LE(0));
  const header = JSON.parse(good.toString('utf8', 8, 8 + n));
  const data = good.subarray(8 + n);
  const file = (name: string, h: unknown, body: Buffer, pad = true) => {
    let text = JSON.stringify(h);
    if (pad) text += ' '.repeat((8 - ((8 + Buffer.byteLength(text)) % 8)) % 8);
    const len = Buffer.alloc(8);
    len.writeBigUInt64LE(BigInt(Buffer.byteLength(text)));
    const p = join(dir, name);
    writeFileSync(p, Buffer.concat([len, Buffer.from(text), body]));
    return p;
  };
  const [a, b] = Object.keys(header).filter((k) => k !== '__metadata__');
  const refuses = async (path: string, pattern: RegExp) =>
    assert.rejects(readSafetensors(path), (e: HoneError) => e.code === 'bad_format' && e.message.includes(path) && pattern.test(e.message), pattern.source);
  await refuses(file('short.safetensors', header, data.subarray(4)), /cover 48 bytes of data but the file holds 44/);
  await refuses(file('long.safetensors', header, Buffer.concat([data, Buffer.alloc(4)])), /holds 52/);
  await refuses(file('gap.safetensors', { ...header, [b]: { ...header[b], data_offsets: [28, 52] } }, Buffer.concat([data, Buffer.alloc(4)])), /starts at data byte 28, expected 24 \(a gap\)/);
  await refuses(file('overlap.safetensors', { ...header, [b]: { ...header[b], data_offsets: [20, 44] } }, data.subarray(4)), /an overlap/);
  await refuses(file('size.safetensors', { ...header, [a]: { ...header[a], shape: [2, 2] } }, data), /holds 24 bytes; F32 \[2,2\] needs 16/);
  await refuses(file('dtype.safetensors', { ...header, [a]: { ...header[a], dtype: 'F12' } }, data), /dtype "F12"/);
  await refuses(file('unpadded.safetensors', { ...header, x: { dtype: 'U8', shape: [0], data_offsets: [48, 48] } }, data, false), /not on an 8-byte boundary/);
  await refuses(file('meta.safetensors', { ...header, __metadata__: { n: 1 } }, data), /__metadata__\.n is not a string/);
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(1000n);
  writeFileSync(join(dir, 'len.safetensors'), Buffer.concat([len, Buffer.from('{}      ')]));
  await refuses(join(dir, 'len.safetensors'), /header length 1000 does not fit/);
});

test('the header builder refuses a byte count that does not match the shape', () => {
  assert.throws(() => safetensorsHeader([{ name: 'x', dtype: 'F32', shape: [3], bytes: 8 }], {}), /8 bytes for F32 \[3\]/);
  assert.throws(() => safetensorsHeader([{ name: '__metadata__', dtype: 'F32', shape: [1], bytes: 4 }], {}), /is taken/);
});
