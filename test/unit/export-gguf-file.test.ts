// The export's GGUF writer and adapter reader: every key keeps its value and stored type (long
// arrays too), tensors keep their bytes, an independent reader (test/helpers/gguf.ts) agrees,
// and the adapter copy stores A/B as F32, F16 or Q8_0 (F16 where Q8_0's 32-value rows do not fit).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { HoneError } from '../../electron/common/errors.ts';
import { readAdapterFile, TensorReader } from '../../electron/services/export/adapter-file.ts';
import { keptF16Note, writeAdapterCopy } from '../../electron/services/export/gguf-adapter.ts';
import { writeGgufFile, type GgufKv, type GgufTensorOut } from '../../electron/services/export/gguf-writer.ts';
import { decodeToF32, encodeF16, encodeF32 } from '../../electron/services/export/tensor-codecs.ts';
import { readGguf } from '../helpers/gguf.ts';
import { writeGguf } from '../helpers/gguf-writer.ts';
import { tempFiles } from '../helpers/temp-files.ts';
import { rng } from '../helpers/train-data.ts';

const KV: GgufKv[] = [
  { key: 'general.type', type: { type: 'string' }, value: 'adapter' },
  { key: 'general.architecture', type: { type: 'string' }, value: 'llama' },
  { key: 'adapter.type', type: { type: 'string' }, value: 'lora' },
  { key: 'adapter.lora.alpha', type: { type: 'f32' }, value: 16 },
  { key: 'hone.steps', type: { type: 'u32' }, value: 40 },
  { key: 'hone.final_loss', type: { type: 'f64' }, value: 1.234567890123 },
  { key: 'hone.offset', type: { type: 'i64' }, value: -5 },
  { key: 'hone.small', type: { type: 'i8' }, value: -3 },
  { key: 'hone.flag', type: { type: 'bool' }, value: true },
  { key: 'hone.files', type: { type: 'array', itemType: 'string' }, value: ['a.jsonl', 'b/c.jsonl'] },
  { key: 'hone.losses', type: { type: 'array', itemType: 'f32' }, value: Array.from({ length: 100 }, (_, i) => Math.fround(1 / (i + 1))) },
];

function values(n: number, seed: number): Float32Array {
  const r = rng(seed);
  return Float32Array.from({ length: n }, () => Math.fround((r() - 0.5) / 4));
}

/** A LoRA adapter over two weights: q (in 64, rank 4, out 64) and down (in 40, rank 32, out 64). */
function adapterTensors(): { tensors: GgufTensorOut[]; data: Map<string, Float32Array> } {
  const shapes: Array<[string, number[]]> = [
    ['blk.0.attn_q.weight.lora_a', [64, 4]], ['blk.0.attn_q.weight.lora_b', [4, 64]],
    ['blk.0.ffn_down.weight.lora_a', [40, 32]], ['blk.0.ffn_down.weight.lora_b', [32, 64]],
  ];
  const data = new Map<string, Float32Array>();
  const tensors = shapes.map(([name, dims], i): GgufTensorOut => {
    const v = values(dims[0] * dims[1], i + 1);
    data.set(name, v);
    const f16 = name.endsWith('down.weight.lora_a'); // one stored as F16, as another writer might
    const bytes = f16 ? encodeF16(v) : encodeF32(v);
    return { name, dims, type: f16 ? 1 : 0, bytes: bytes.length, data: () => bytes };
  });
  return { tensors, data };
}

test('keys keep their values and stored types, tensors their bytes; an independent reader agrees', async (t) => {
  const dir = tempFiles(t);
  const path = join(dir, 'adapter.gguf');
  const { tensors, data } = adapterTensors();
  const size = await writeGgufFile(path, KV, tensors);
  assert.equal(size, readFileSync(path).length);
  assert.equal(size % 32, 0, 'the last tensor is padded to the alignment too');

  const a = await readAdapterFile(path);
  assert.equal(a.architecture, 'llama');
  assert.equal(a.alpha, 16);
  assert.deepEqual(a.pairs.map((p) => [p.base, p.rank]), [['blk.0.attn_q.weight', 4], ['blk.0.ffn_down.weight', 32]]);
  for (const kv of KV) {
    assert.deepEqual(a.header.kv.get(kv.key), kv.value, kv.key);
    assert.deepEqual(a.header.kvTypes.get(kv.key), kv.type, kv.key);
  }
  const other = readGguf(path);
  assert.deepEqual(other.kv.get('hone.losses'), KV.at(-1)!.value);
  assert.equal(other.kv.get('hone.final_loss'), 1.234567890123);
  const reader = await TensorReader.open(a.header);
  for (const info of a.header.tensors) {
    const want = data.get(info.name)!;
    const got = await reader.f32(info);
    if (info.type === 0) assert.deepEqual(Array.from(got), Array.from(want), info.name);
    else assert.deepEqual(Array.from(got), Array.from(decodeToF32(1, encodeF16(want), want.length)), info.name);
    if (info.type === 0) assert.deepEqual(Array.from(other.tensors.get(info.name)!), Array.from(want), `${info.name} (independent reader)`);
  }
  await reader.close();
});

test('the copy at F32 keeps every key; F16 and Q8_0 storage change only the tensors; Q8_0 needs rows of 32', async (t) => {
  const dir = tempFiles(t);
  const path = join(dir, 'adapter.gguf');
  const { tensors, data } = adapterTensors();
  await writeGgufFile(path, KV, tensors);
  const a = await readAdapterFile(path);
  // the source as stored (one tensor is F16 in the file)
  const stored = new Map([...data].map(([name, v]) => [name, name.endsWith('down.weight.lora_a') ? decodeToF32(1, encodeF16(v), v.length) : v]));
  for (const storage of ['f32', 'f16', 'q8_0'] as const) {
    const out = join(dir, `copy-${storage}.gguf`);
    const seen: string[] = [];
    const copy = await writeAdapterCopy(a, out, storage, (done, total, name) => seen.push(`${done}/${total} ${name}`));
    assert.equal(seen.length, 4);
    const b = await readAdapterFile(out);
    for (const kv of KV) assert.deepEqual([b.header.kv.get(kv.key), b.header.kvTypes.get(kv.key)], [kv.value, kv.type], `${storage}: ${kv.key}`);
    const types = Object.fromEntries(b.header.tensors.map((x) => [x.name, x.type]));
    const want = {
      f32: [0, 0, 0, 0],
      f16: [1, 1, 1, 1],
      // q's B has rows of rank 4 and down's A rows of 40: F16; the others Q8_0
      q8_0: [8, 1, 1, 8],
    }[storage];
    assert.deepEqual(Object.values(types), want, storage);
    assert.deepEqual(copy.keptF16, storage === 'q8_0' ? ['blk.0.attn_q.weight.lora_b', 'blk.0.ffn_down.weight.lora_a'] : []);
    const reader = await TensorReader.open(b.header);
    for (const info of b.header.tensors) {
      const got = await reader.f32(info);
      const src = stored.get(info.name)!;
      const tol = info.type === 8 ? 0.125 / 127 : info.type === 1 ? 2 ** -11 * 0.125 : 0;
      for (let i = 0; i < src.length; i++) assert.ok(Math.abs(got[i] - src[i]) <= tol + 1e-9, `${storage} ${info.name}[${i}]: ${got[i]} vs ${src[i]}`);
    }
    await reader.close();
    if (storage === 'q8_0') assert.match(keptF16Note(copy.keptF16, a)!, /2 of 4 tensors are stored as F16, not Q8_0.*1 with rows of 4, 1 with rows of 40/);
  }
});

test('a file that is not a LoRA adapter, or whose pairs do not match, is refused naming the file and the tensor', async (t) => {
  const dir = tempFiles(t);
  const model = join(dir, 'model.gguf');
  writeGguf(model, { kv: { 'general.architecture': 'llama' }, tensors: [{ name: 'blk.0.attn_q.weight', dims: [64, 64], type: 'F32' }] });
  await assert.rejects(readAdapterFile(model), (e: HoneError) => e.code === 'bad_format' && e.message.startsWith(model) && /not a LoRA adapter/.test(e.message));
  const lonely = join(dir, 'lonely.gguf');
  writeGguf(lonely, {
    kv: { 'general.type': 'adapter', 'adapter.type': 'lora', 'general.architecture': 'llama' },
    tensors: [{ name: 'blk.0.attn_q.weight.lora_a', dims: [64, 4], type: 'F32' }, { name: 'blk.0.attn_k.weight.lora_b', dims: [4, 32], type: 'F32' }],
  });
  await assert.rejects(readAdapterFile(lonely), /'blk\.0\.attn_q\.weight\.lora_a' has no matching lora_b; 'blk\.0\.attn_k\.weight\.lora_b' has no matching lora_a/);
  const shapes = join(dir, 'shapes.gguf');
  writeGguf(shapes, {
    kv: { 'general.type': 'adapter', 'adapter.type': 'lora', 'general.architecture': 'llama' },
    tensors: [{ name: 'x.weight.lora_a', dims: [64, 4], type: 'F32' }, { name: 'x.weight.lora_b', dims: [8, 32], type: 'F32' }],
  });
  await assert.rejects(readAdapterFile(shapes), /'x\.weight': shapes \[64,4\] and \[8,32\] are not a LoRA pair/);
  const quant = join(dir, 'quant.gguf');
  writeGguf(quant, {
    kv: { 'general.type': 'adapter', 'adapter.type': 'lora', 'general.architecture': 'llama' },
    tensors: [{ name: 'x.weight.lora_a', dims: [256, 4], type: 'Q4_K' }, { name: 'x.weight.lora_b', dims: [4, 32], type: 'F32' }],
  });
  await assert.rejects(readAdapterFile(quant), /'x\.weight\.lora_a' is Q4_K \(F32, F16, BF16 or Q8_0 expected\)/);
});
