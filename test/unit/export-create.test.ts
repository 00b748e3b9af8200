// createExport on synthetic files (no engine): each format's files from an adapter and a base
// model, the run folder and checkpoint lookups, the Ollama store's name for a base, an earlier
// export replaced, and every failure leaving nothing under the final name and no temporary file.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { TrainConfig } from '../../electron/common/engine-api.ts';
import { HoneError } from '../../electron/common/errors.ts';
import type { ExportProgress, ExportRequest } from '../../electron/common/export.ts';
import { createExport, type ExportDeps, type MergeFn } from '../../electron/services/export/create-export.ts';
import { writeGgufFile, type GgufKv } from '../../electron/services/export/gguf-writer.ts';
import { unpermuteQK } from '../../electron/services/export/qk-permute.ts';
import { readSafetensors } from '../../electron/services/export/safetensors.ts';
import { encodeF32 } from '../../electron/services/export/tensor-codecs.ts';
import { writeGguf } from '../helpers/gguf-writer.ts';
import { tempFiles } from '../helpers/temp-files.ts';
import { rng } from '../helpers/train-data.ts';

/** A llama-shaped base (zero weights: only its header matters here) of 2 layers, 8 heads, 4 KV heads. */
function baseModel(path: string, arch = 'llama', extra: Record<string, string> = {}): string {
  const tensors = [];
  for (let i = 0; i < 2; i++) {
    tensors.push({ name: `blk.${i}.attn_q.weight`, dims: [64, 64], type: 'F32' as const }, { name: `blk.${i}.attn_k.weight`, dims: [64, 32], type: 'F32' as const });
    tensors.push({ name: `blk.${i}.attn_v.weight`, dims: [64, 32], type: 'F32' as const });
  }
  writeGguf(path, { kv: { 'general.architecture': arch, 'general.name': 'tiny', [`${arch}.attention.head_count`]: 8, [`${arch}.attention.head_count_kv`]: 4, ...extra }, tensors });
  return path;
}

const ADAPTER_KV = (arch = 'llama'): GgufKv[] => [
  { key: 'general.type', type: { type: 'string' }, value: 'adapter' },
  { key: 'general.architecture', type: { type: 'string' }, value: arch },
  { key: 'adapter.type', type: { type: 'string' }, value: 'lora' },
  { key: 'adapter.lora.alpha', type: { type: 'f32' }, value: 8 },
  { key: 'hone.steps', type: { type: 'u32' }, value: 3 },
];

/** An adapter on q, k, v of both layers (rank 4) with seeded non-zero A and B; returns the values by tensor name. */
async function adapter(path: string, arch = 'llama', rank = 4): Promise<Map<string, Float32Array>> {
  const r = rng(5);
  const data = new Map<string, Float32Array>();
  const tensors = [];
  for (let i = 0; i < 2; i++) {
    for (const [w, out] of [['attn_q', 64], ['attn_k', 32], ['attn_v', 32]] as const) {
      for (const [suffix, dims] of [['lora_a', [64, rank]], ['lora_b', [rank, out]]] as const) {
        const name = `blk.${i}.${w}.weight.${suffix}`;
        const v = Float32Array.from({ length: dims[0] * dims[1] }, () => Math.fround(r() - 0.5));
        data.set(name, v);
        tensors.push({ name, dims: [...dims], type: 0, bytes: v.byteLength, data: () => encodeF32(v) });
      }
    }
  }
  await writeGgufFile(path, ADAPTER_KV(arch), tensors);
  return data;
}

function deps(over: Partial<ExportDeps> = {}): ExportDeps & { events: ExportProgress[] } {
  const events: ExportProgress[] = [];
  return {
    lookupRun: (id) => {
      throw new HoneError('not_found', `no run ${id}`);
    },
    merge: null,
    defaults: async () => ({ loss: 'assistant', ignoreWeights: false, truncate: 'right', evalSplit: 0, evalData: [], seed: 42, ctx: 64, batch: 1, ubatch: 0, lr: 1e-4, schedule: 'constant', warmup: 0, lrMin: 0, weightDecay: 0, maxGradNorm: 1, steps: 0, epochs: 1, evalEvery: 0, chatTemplate: '' }) as unknown as TrainConfig,
    onProgress: (p) => events.push(p),
    events,
    ...over,
  };
}

/** Nothing but these names in `dir` (no temporary files left beside an export). */
function onlyNames(dir: string, names: string[]) {
  assert.deepEqual(readdirSync(dir).sort(), [...names].sort(), `in ${dir}`);
}

test('gguf: a copy of the adapter (keys kept) and a manifest, in a new folder; progress per tensor', async (t) => {
  const dir = tempFiles(t);
  const model = baseModel(join(dir, 'base.gguf'));
  await adapter(join(dir, 'a.gguf'));
  const d = deps();
  const out = join(dir, 'out', 'gguf');
  const res = await createExport({ adapter: join(dir, 'a.gguf'), model, format: 'gguf', out }, d);
  assert.equal(res.out, out);
  assert.deepEqual(res.files.map((f) => f.path), [join(out, 'adapter.gguf'), join(out, 'hone-export.json')]);
  assert.ok(readFileSync(join(out, 'adapter.gguf')).equals(readFileSync(join(dir, 'a.gguf'))), 'at F32 the copy is the same bytes');
  const manifest = JSON.parse(readFileSync(join(out, 'hone-export.json'), 'utf8'));
  assert.equal(manifest.format, 'gguf');
  assert.equal(manifest.source.adapter, join(dir, 'a.gguf'));
  assert.equal(d.events.length, 12);
  assert.deepEqual(d.events.at(-1), { type: 'export-progress', format: 'gguf', out, stage: 'tensors', done: 12, total: 12, item: 'blk.1.attn_v.weight.lora_b' });
  onlyNames(join(dir, 'out'), ['gguf']);

  // a .gguf out is one file; an existing file there is never overwritten
  const file = join(dir, 'out', 'lora-f16.gguf');
  const single = await createExport({ adapter: join(dir, 'a.gguf'), model, format: 'gguf', out: file, storage: 'f16' }, deps());
  assert.deepEqual(single.files.map((f) => f.path), [file]);
  await assert.rejects(createExport({ adapter: join(dir, 'a.gguf'), model, format: 'gguf', out: file }, deps()), /lora-f16\.gguf: already exists/);
  await assert.rejects(createExport({ adapter: join(dir, 'a.gguf'), model, format: 'peft', out: join(dir, 'x.gguf') }, deps()), /peft writes a folder/);
  onlyNames(join(dir, 'out'), ['gguf', 'lora-f16.gguf']);
});

test('peft: safetensors with transformers names, B of q/k un-permuted (K by the KV heads), A and v as they are; the config', async (t) => {
  const dir = tempFiles(t);
  const model = baseModel(join(dir, 'base.gguf'), 'llama', { 'general.source.repo_url': 'https://huggingface.co/org/Tiny-Llama' });
  const data = await adapter(join(dir, 'a.gguf'));
  const out = join(dir, 'peft');
  const res = await createExport({ adapter: join(dir, 'a.gguf'), model, format: 'peft', out }, deps());
  onlyNames(out, ['adapter_model.safetensors', 'adapter_config.json', 'hone-export.json']);
  const st = await readSafetensors(join(out, 'adapter_model.safetensors'));
  assert.equal(st.tensors.size, 12);
  const get = (k: string) => new Float32Array(Uint8Array.from(st.tensors.get(k)!.data).buffer);
  const key = (i: number, m: string, w: 'A' | 'B') => `base_model.model.model.layers.${i}.self_attn.${m}.lora_${w}.weight`;
  for (let i = 0; i < 2; i++) {
    assert.deepEqual(st.tensors.get(key(i, 'q_proj', 'A'))!.shape, [4, 64]);
    assert.deepEqual(st.tensors.get(key(i, 'k_proj', 'B'))!.shape, [32, 4]);
    assert.deepEqual(Array.from(get(key(i, 'q_proj', 'A'))), Array.from(data.get(`blk.${i}.attn_q.weight.lora_a`)!));
    assert.deepEqual(Array.from(get(key(i, 'q_proj', 'B'))), Array.from(unpermuteQK(data.get(`blk.${i}.attn_q.weight.lora_b`)!, 64, 4, 8)));
    assert.deepEqual(Array.from(get(key(i, 'k_proj', 'B'))), Array.from(unpermuteQK(data.get(`blk.${i}.attn_k.weight.lora_b`)!, 32, 4, 4)));
    assert.notDeepEqual(Array.from(get(key(i, 'k_proj', 'B'))), Array.from(unpermuteQK(data.get(`blk.${i}.attn_k.weight.lora_b`)!, 32, 4, 8)), 'K uses the KV head count');
    assert.deepEqual(Array.from(get(key(i, 'v_proj', 'B'))), Array.from(data.get(`blk.${i}.attn_v.weight.lora_b`)!));
  }
  const config = JSON.parse(readFileSync(join(out, 'adapter_config.json'), 'utf8'));
  assert.equal(config.peft_type, 'LORA');
  assert.equal(config.r, 4);
  assert.equal(config.lora_alpha, 8);
  assert.deepEqual(config.target_modules, ['q_proj', 'k_proj', 'v_proj']);
  assert.equal(config.base_model_name_or_path, 'org/Tiny-Llama');
  assert.deepEqual(res.notes, []);

  // qwen2: nothing permuted; a base without a Hugging Face name gets null and a note
  const qmodel = baseModel(join(dir, 'qwen.gguf'), 'qwen2');
  const qdata = await adapter(join(dir, 'q.gguf'), 'qwen2');
  const qres = await createExport({ adapter: join(dir, 'q.gguf'), model: qmodel, format: 'peft', out: join(dir, 'qpeft') }, deps());
  const qst = await readSafetensors(join(dir, 'qpeft', 'adapter_model.safetensors'));
  assert.deepEqual(Array.from(new Float32Array(Uint8Array.from(qst.tensors.get(key(1, 'q_proj', 'B'))!.data).buffer)), Array.from(qdata.get('blk.1.attn_q.weight.lora_b')!));
  assert.equal(JSON.parse(readFileSync(join(dir, 'qpeft', 'adapter_config.json'), 'utf8')).base_model_name_or_path, null);
  assert.match(qres.notes.join('\n'), /does not say its Hugging Face name \(it is called 'tiny'\)/);
});

test('failures leave nothing: unknown architecture for PEFT, a mismatched base, an unwritable or foreign output, missing inputs', async (t) => {
  const dir = tempFiles(t);
  const model = baseModel(join(dir, 'base.gguf'));
  await adapter(join(dir, 'a.gguf'));
  const omodel = baseModel(join(dir, 'olmo.gguf'), 'olmo2');
  await adapter(join(dir, 'o.gguf'), 'olmo2');
  const run = (req: Partial<ExportRequest>) => createExport({ adapter: join(dir, 'a.gguf'), model, format: 'gguf', out: join(dir, 'out'), ...req } as ExportRequest, deps());
  const before = readdirSync(dir).sort();
  await assert.rejects(run({ adapter: join(dir, 'o.gguf'), model: omodel, format: 'peft' }), (e: HoneError) => e.code === 'unsupported' && /architecture 'olmo2' has no Hugging Face name mapping/.test(e.message));
  await assert.rejects(run({ model: omodel }), (e: HoneError) => e.code === 'adapter_mismatch' && /adapter is for architecture 'llama' but the base model .*olmo\.gguf is 'olmo2'/.test(e.message));
  const wide = join(dir, 'wide.gguf');
  writeGguf(wide, { kv: { 'general.architecture': 'llama' }, tensors: [{ name: 'blk.0.attn_q.weight', dims: [128, 64], type: 'F32' }] });
  await assert.rejects(run({ model: wide }), (e: HoneError) => e.code === 'adapter_mismatch' && /'blk\.0\.attn_q\.weight' is \[128,64\] in the base model but the adapter's A\/B make \[64, 64\]; 'blk\.0\.attn_k\.weight' is not a tensor of the base model/.test(e.message));
  writeFileSync(join(dir, 'a-file'), 'x');
  await assert.rejects(run({ out: join(dir, 'a-file', 'out') }), (e: HoneError) => e.code === 'io_error' && /a-file: the output folder cannot be written/.test(e.message));
  mkdirSync(join(dir, 'mine'));
  writeFileSync(join(dir, 'mine', 'notes.txt'), 'keep me');
  await assert.rejects(run({ out: join(dir, 'mine') }), /mine: exists and is not an earlier Hone export/);
  assert.equal(readFileSync(join(dir, 'mine', 'notes.txt'), 'utf8'), 'keep me');
  await assert.rejects(run({ adapter: join(dir, 'none.gguf') }), (e: HoneError) => e.code === 'not_found' && /none\.gguf: the adapter cannot be read/.test(e.message));
  await assert.rejects(run({ adapter: model }), (e: HoneError) => e.code === 'bad_format' && /not a LoRA adapter/.test(e.message));
  await assert.rejects(run({ out: join(dir, 'a.gguf') }), /is an input of the export/);
  await assert.rejects(run({ format: 'merged' }), (e: HoneError) => e.code === 'unsupported' && /needs the engine's merge/.test(e.message));
  await assert.rejects(run({ adapter: 'rel/a.gguf' }), (e: HoneError) => e.code === 'invalid_argument' && /absolute path/.test(e.message));
  assert.deepEqual(readdirSync(dir).sort(), [...before, 'a-file', 'mine', 'wide.gguf'].sort(), 'no output and no temporary file was left');
});

test('a run folder: its adapter, else its newest checkpoint\'s (noted); a run with neither, or no config, is named', async (t) => {
  const dir = tempFiles(t);
  const model = baseModel(join(dir, 'base.gguf'));
  const runDir = join(dir, 'runs', 'r1');
  mkdirSync(join(runDir, 'checkpoints', '3'), { recursive: true });
  mkdirSync(join(runDir, 'checkpoints', '12'), { recursive: true });
  writeFileSync(join(runDir, 'config.json'), JSON.stringify({ model, data: [] }));
  for (const step of ['3', '12']) writeFileSync(join(runDir, 'checkpoints', step, 'state.json'), '{}');
  await assert.rejects(createExport({ run: runDir, format: 'gguf' }, deps()), (e: HoneError) => e.code === 'not_found' && /r1: the run has no adapter yet/.test(e.message));
  await adapter(join(runDir, 'checkpoints', '12', 'adapter.gguf'));
  const res = await createExport({ run: runDir, format: 'gguf' }, deps());
  assert.equal(res.out, join(runDir, 'exports', 'gguf'), 'the default place');
  assert.match(res.notes.join('\n'), /has not finished: this is the adapter of its newest checkpoint \(step 12\)/);
  // by id, through the lookup; the same export again replaces the earlier one
  const byId = await createExport({ run: 'r1', format: 'gguf' }, deps({ lookupRun: (id) => join(dir, 'runs', id) }));
  assert.equal(byId.out, res.out);
  onlyNames(join(runDir, 'exports'), ['gguf']);
  await assert.rejects(createExport({ run: join(dir, 'runs', 'nothing'), format: 'gguf' }, deps()), (e: HoneError) => e.code === 'not_found' && /nothing: not a run folder \(no config\.json\)/.test(e.message));
  await assert.rejects(createExport({ run: 'r9', format: 'gguf' }, deps()), /no run r9/);
});

test('ollama: FROM the name in Ollama\'s store (or the GGUF path), ADAPTER beside the Modelfile, the exact commands; the merged variant through the merge', async (t) => {
  const dir = tempFiles(t);
  // a base that is a blob of an Ollama store, named by two tags
  const store = join(dir, 'ollama');
  mkdirSync(join(store, 'blobs'), { recursive: true });
  const blobBytes = (() => {
    const p = baseModel(join(dir, 'tmp.gguf'));
    return readFileSync(p);
  })();
  const hex = createHash('sha256').update(blobBytes).digest('hex');
  const blob = join(store, 'blobs', `sha256-${hex}`);
  writeFileSync(blob, blobBytes);
  const manifest = JSON.stringify({ layers: [{ mediaType: 'application/vnd.ollama.image.model', digest: `sha256:${hex}` }] });
  for (const [ns, name, tag] of [['library', 'tiny', 'latest'], ['someone', 'tiny-copy', '1b']]) {
    mkdirSync(join(store, 'manifests', 'registry.ollama.ai', ns, name), { recursive: true });
    writeFileSync(join(store, 'manifests', 'registry.ollama.ai', ns, name, tag), manifest);
  }
  await adapter(join(dir, 'a.gguf'));
  const out = join(dir, 'my exports', 'ollama');
  const res = await createExport({ adapter: join(dir, 'a.gguf'), model: blob, format: 'ollama', out }, deps());
  onlyNames(out, ['Modelfile', 'adapter.gguf', 'hone-export.json']);
  const modelfile = readFileSync(join(out, 'Modelfile'), 'utf8');
  assert.match(modelfile, /^FROM tiny:latest$/m);
  assert.match(modelfile, /^ADAPTER \.\/adapter\.gguf$/m);
  assert.doesNotMatch(modelfile, /^TEMPLATE/m);
  assert.deepEqual(res.commands, [`ollama create hone-a -f '${join(out, 'Modelfile')}'`]);
  assert.match(res.notes.join('\n'), /second Modelfile \(FROM a merged GGUF.*needs the engine's merge/);

  // a base outside the store is FROM its path; with a merge, Modelfile.merged FROM merged.gguf
  const plain = baseModel(join(dir, 'plain base.gguf'));
  const calls: unknown[] = [];
  const merge: MergeFn = async (payload, onProgress) => {
    calls.push(payload);
    onProgress(1, 2, 'blk.0.attn_q.weight');
    writeFileSync(payload.out, 'merged model bytes');
    return { path: payload.out, bytes: 18, merged: 6, copied: 0, fallbacks: 0, notes: [] } as never;
  };
  const d = deps({ merge });
  const out2 = join(dir, 'ollama2');
  const res2 = await createExport({ adapter: join(dir, 'a.gguf'), model: plain, format: 'ollama', out: out2 }, d);
  onlyNames(out2, ['Modelfile', 'Modelfile.merged', 'adapter.gguf', 'merged.gguf', 'hone-export.json']);
  assert.match(readFileSync(join(out2, 'Modelfile'), 'utf8'), new RegExp(`^FROM ${JSON.stringify(plain).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'), 'a path with a space is quoted');
  assert.match(readFileSync(join(out2, 'Modelfile.merged'), 'utf8'), /^FROM \.\/merged\.gguf$/m);
  assert.doesNotMatch(readFileSync(join(out2, 'Modelfile.merged'), 'utf8'), /^ADAPTER/m);
  assert.deepEqual(res2.commands, [`ollama create hone-a -f ${join(out2, 'Modelfile')}`, `ollama create hone-a-merged -f ${join(out2, 'Modelfile.merged')}`]);
  assert.equal((calls[0] as { model: string }).model, plain);
  assert.deepEqual(d.events.filter((e) => e.stage === 'merge'), [{ type: 'export-progress', format: 'ollama', out: out2, stage: 'merge', done: 1, total: 2, item: 'blk.0.attn_q.weight' }]);

  // a merge that fails half-way: nothing under the final name, no temporary file
  const broken: MergeFn = async (payload) => {
    writeFileSync(payload.out, 'half a model');
    throw new HoneError('io_error', `${payload.out}: disk full`);
  };
  await assert.rejects(createExport({ adapter: join(dir, 'a.gguf'), model: plain, format: 'merged', out: join(dir, 'merged') }, deps({ merge: broken })), /disk full/);
  assert.ok(!existsSync(join(dir, 'merged')));
  assert.deepEqual(readdirSync(dir).filter((n) => n.startsWith('.')), []);
});

test('what an export killed midway left beside its output is removed by the next export there; a live one\'s is not', async (t) => {
  const dir = tempFiles(t);
  const model = baseModel(join(dir, 'base.gguf'));
  await adapter(join(dir, 'a.gguf'));
  // a pid that is no process now (the largest pid Linux hands out is below 2^22) and this process's own
  const dead = join(dir, '.out.tmp-4194303-deadbeef');
  const live = join(dir, `.out.tmp-${process.pid}-0badf00d`);
  mkdirSync(dead);
  writeFileSync(join(dead, 'adapter.gguf'), 'half');
  mkdirSync(live);
  await createExport({ adapter: join(dir, 'a.gguf'), model, format: 'gguf', out: join(dir, 'out') }, deps());
  assert.ok(!existsSync(dead), 'the dead export\'s folder is gone');
  assert.ok(existsSync(live), 'an export in progress is left alone');
});
