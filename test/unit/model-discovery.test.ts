/**
 * Models already on the machine: fake LM Studio, Ollama and Hugging Face trees and an added
 * folder, holding the real stories260K.gguf and small GGUF files written by the test.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, realpathSync, statSync, symlinkSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import type { ListedModel } from '../../electron/common/models.ts';
import { listModels, ModelCatalog } from '../../electron/services/models/index.ts';
import { requireFixture } from '../helpers/fixtures.ts';
import { llamaTensors, typed, writeGguf, type GgufSpec, type KvValue, type TensorSpec } from '../helpers/gguf-writer.ts';
import { countFileHandleReads } from '../helpers/read-spy.ts';
import { tempFiles } from '../helpers/temp-files.ts';

const TRAINABLE = ['llama', 'qwen2', 'qwen3'];

interface ModelOptions {
  name?: string;
  kv?: Record<string, KvValue>;
  tensors?: TensorSpec[];
}

/** A small model of `arch` with the keys the list reads; llama-shaped F32 tensors unless given. */
function model(arch: string, options: ModelOptions = {}): GgufSpec {
  return {
    kv: {
      'general.architecture': arch,
      'general.name': options.name ?? `tiny ${arch}`,
      [`${arch}.context_length`]: 4096,
      [`${arch}.block_count`]: 2,
      [`${arch}.embedding_length`]: 64,
      'tokenizer.ggml.tokens': Array.from({ length: 100 }, (_, i) => `t${i}`),
      ...options.kv,
    },
    tensors: options.tensors ?? llamaTensors(2, 64, 100, 'F32'),
  };
}

const elements = (tensors: TensorSpec[]) => tensors.reduce((n, t) => n + t.dims.reduce((a, b) => a * b, 1), 0);

function write(path: string, spec: GgufSpec): void {
  mkdirSync(dirname(path), { recursive: true });
  writeGguf(path, spec);
}

function writeText(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

const digest = (name: string) => createHash('sha256').update(name).digest('hex');

function ollamaManifest(store: string, registry: string, namespace: string, name: string, tag: string, layers: Array<[string, string]>): void {
  writeText(
    join(store, 'manifests', registry, namespace, name, tag),
    JSON.stringify({
      schemaVersion: 2,
      config: { mediaType: 'application/vnd.docker.container.image.v1+json', digest: `sha256:${digest('config')}`, size: 2 },
      layers: layers.map(([mediaType, blob]) => ({ mediaType, digest: `sha256:${digest(blob)}`, size: 1 })),
    }),
  );
}

const QWEN3_TENSORS: TensorSpec[] = [
  { name: 'token_embd.weight', dims: [256, 320], type: 'Q6_K' },
  { name: 'output_norm.weight', dims: [256], type: 'F32' },
  ...[0, 1].flatMap((i): TensorSpec[] => [
    { name: `blk.${i}.attn_norm.weight`, dims: [256], type: 'F32' },
    ...['attn_q', 'attn_k', 'attn_v', 'attn_output'].map((w): TensorSpec => ({ name: `blk.${i}.${w}.weight`, dims: [256, 256], type: 'Q4_K' })),
  ]),
];
const SPLIT_TENSORS = llamaTensors(2, 64, 100, 'F32');

/** Every layout in one fake home, plus an added folder. */
function buildTree(t: object, stories: string) {
  const base = tempFiles(t);
  const home = join(base, 'home');
  const folder = join(base, 'mine');
  const lmstudio = join(home, '.lmstudio', 'models', 'lmstudio-community', 'Qwen3-0.6B-GGUF');
  write(join(lmstudio, 'Qwen3-0.6B-Q4_K_M.gguf'), model('qwen3', {
    name: 'Qwen3 0.6B',
    kv: { 'general.file_type': 15, 'tokenizer.chat_template': '{% for m in messages %}{{ m.content }}{% endfor %}' },
    tensors: QWEN3_TENSORS,
  }));
  write(join(lmstudio, 'mmproj-Qwen3-0.6B-F16.gguf'), {
    kv: { 'general.architecture': 'clip', 'clip.has_vision_encoder': true },
    tensors: [{ name: 'v.patch_embd.weight', dims: [64, 64], type: 'F16' }],
  });
  const oldLmstudio = join(home, '.cache', 'lm-studio', 'models', 'ggml-org', 'stories');
  mkdirSync(oldLmstudio, { recursive: true });
  copyFileSync(stories, join(oldLmstudio, 'stories260K.gguf'));

  const ollama = join(home, '.ollama', 'models');
  const blob = (name: string) => join(ollama, 'blobs', `sha256-${digest(name)}`);
  const MODEL = 'application/vnd.ollama.image.model';
  write(blob('llava'), model('llama', { tensors: llamaTensors(1, 64, 100, 'Q8_0') }));
  write(blob('projector'), { kv: { 'general.architecture': 'clip' }, tensors: [{ name: 'mm.0.weight', dims: [64, 8], type: 'F16' }] });
  write(blob('adapter'), { kv: { 'general.architecture': 'llama', 'general.type': 'adapter' }, tensors: [{ name: 'blk.0.attn_q.weight.lora_a', dims: [64, 8], type: 'F32' }] });
  writeText(blob('license'), 'LLAMA LICENSE');
  const llavaLayers: Array<[string, string]> = [
    [MODEL, 'llava'],
    ['application/vnd.ollama.image.projector', 'projector'],
    ['application/vnd.ollama.image.adapter', 'adapter'],
    ['application/vnd.ollama.image.license', 'license'],
  ];
  ollamaManifest(ollama, 'registry.ollama.ai', 'library', 'llava', 'latest', llavaLayers);
  ollamaManifest(ollama, 'registry.ollama.ai', 'library', 'llava', '7b', llavaLayers);
  write(blob('tiny'), model('qwen2', { tensors: llamaTensors(1, 64, 100, 'F16') }));
  ollamaManifest(ollama, 'registry.ollama.ai', 'someuser', 'tiny', 'q8', [[MODEL, 'tiny']]);
  write(blob('smol'), model('llama', { tensors: llamaTensors(1, 64, 100, 'Q4_0') }));
  ollamaManifest(ollama, 'hf.co', 'bartowski', 'SmolLM2-GGUF', 'Q4_0', [[MODEL, 'smol']]);
  ollamaManifest(ollama, 'registry.ollama.ai', 'library', 'gone', 'latest', [[MODEL, 'gone']]);

  // Hugging Face: two revisions linking to one blob; refs/main names the newer.
  const hfRepo = join(base, 'hf', 'hub', 'models--TheBloke--TinyLlama-1.1B-GGUF');
  const hfBlob = join(hfRepo, 'blobs', digest('tinyllama'));
  write(hfBlob, model('llama', { name: 'TinyLlama', kv: { 'tokenizer.chat_template': '<|user|>' } }));
  for (const rev of ['rev-old', 'rev-new']) {
    mkdirSync(join(hfRepo, 'snapshots', rev), { recursive: true });
    symlinkSync(join('..', '..', 'blobs', digest('tinyllama')), join(hfRepo, 'snapshots', rev, 'tinyllama.Q8_0.gguf'));
  }
  writeText(join(hfRepo, 'refs', 'main'), 'rev-new');

  // The added folder: a split model, a split with a part missing, broken files, a hidden
  // folder, a link back to the folder itself, a folder nobody may read.
  const parts = [SPLIT_TENSORS.slice(0, 2), SPLIT_TENSORS.slice(2, 7), SPLIT_TENSORS.slice(7)];
  parts.forEach((tensors, i) => {
    const split = { 'split.no': typed('u16', i), 'split.count': typed('u16', 3), 'split.tensors.count': typed('i32', SPLIT_TENSORS.length) };
    const spec = i === 0 ? model('llama', { name: 'Big', kv: split, tensors }) : { kv: split, tensors };
    write(join(folder, 'split', `big-0000${i + 1}-of-00003.gguf`), spec);
  });
  write(join(folder, 'broken', 'half-00001-of-00002.gguf'), model('llama', { kv: { 'split.count': typed('u16', 2) } }));
  write(join(folder, 'truncated.gguf'), model('llama'));
  truncateSync(join(folder, 'truncated.gguf'), 100);
  writeText(join(folder, 'notes.gguf'), 'these are my notes, not a model\n');
  write(join(folder, 'adapter.gguf'), { kv: { 'general.architecture': 'llama', 'general.type': 'adapter', 'adapter.type': 'lora' }, tensors: [] });
  write(join(folder, 'mamba.gguf'), model('mamba'));
  write(join(folder, '.hidden', 'secret.gguf'), model('llama'));
  writeText(join(folder, 'readme.txt'), 'not a model');
  symlinkSync('..', join(folder, 'split', 'loop'));
  write(join(folder, 'locked', 'inside.gguf'), model('llama'));
  return { base, home, folder, lmstudio, oldLmstudio, ollama, blob, hfRepo, hfBlob, env: { HF_HOME: join(base, 'hf') } };
}

const byName = (models: ListedModel[], name: string): ListedModel => {
  const m = models.find((x) => x.displayName === name);
  assert.ok(m, `no model named ${name} in ${models.map((x) => x.displayName).join(', ')}`);
  return m;
};

test('every layout is found, named, deduplicated and sorted by name', async (t) => {
  const stories = requireFixture(t, 'stories260K.gguf');
  if (!stories) return;
  const tree = buildTree(t, stories);
  const locked = join(tree.folder, 'locked');
  chmodSync(locked, 0o000);
  let lockStopsReads = true;
  try {
    readdirSync(locked);
    lockStopsReads = false; // running as root: permissions do not stop reads
  } catch {}
  let result;
  try {
    result = await listModels({ home: tree.home, env: tree.env, folders: [tree.folder], trainableArchitectures: TRAINABLE });
  } finally {
    chmodSync(locked, 0o755);
  }
  const names = [
    'adapter.gguf',
    'broken/half-00001-of-00002.gguf',
    'ggml-org/stories/stories260K.gguf',
    'gone:latest',
    'hf.co/bartowski/SmolLM2-GGUF:Q4_0',
    'llava:7b',
    'lmstudio-community/Qwen3-0.6B-GGUF/mmproj-Qwen3-0.6B-F16.gguf',
    'lmstudio-community/Qwen3-0.6B-GGUF/Qwen3-0.6B-Q4_K_M.gguf',
    ...(lockStopsReads ? [] : ['locked/inside.gguf']),
    'mamba.gguf',
    'notes.gguf',
    'someuser/tiny:q8',
    'split/big-00001-of-00003.gguf',
    'TheBloke/TinyLlama-1.1B-GGUF/tinyllama.Q8_0.gguf',
    'truncated.gguf',
  ];
  assert.deepEqual(result.models.map((m) => m.displayName), names);
  assert.deepEqual(result.roots, [
    { source: 'lmstudio', path: join(tree.home, '.lmstudio', 'models'), exists: true, found: 2 },
    { source: 'lmstudio', path: join(tree.home, '.cache', 'lm-studio', 'models'), exists: true, found: 1 },
    { source: 'ollama', path: tree.ollama, exists: true, found: 4 },
    { source: 'huggingface', path: join(tree.base, 'hf', 'hub'), exists: true, found: 1 },
    { source: 'folder', path: tree.folder, exists: true, found: lockStopsReads ? 6 : 7 },
  ]);
  if (lockStopsReads) {
    assert.deepEqual(result.warnings, [`cannot read folder ${locked}: permission denied (EACCES); skipped`]);
  } else {
    t.diagnostic('running as root: chmod 000 does not stop reads, so the unreadable-folder warning is not checked');
    assert.deepEqual(result.warnings, []);
  }
  assert.equal(new Set(result.models.map((m) => m.id)).size, result.models.length, 'ids are unique');
  assert.deepEqual(JSON.parse(JSON.stringify(result)), result, 'the result is plain JSON');
});

test('stories260K: the real values, from LM Studio\'s older folder', async (t) => {
  const stories = requireFixture(t, 'stories260K.gguf');
  if (!stories) return;
  const tree = buildTree(t, stories);
  const { models } = await listModels({ home: tree.home, env: tree.env, trainableArchitectures: TRAINABLE });
  const path = join(tree.oldLmstudio, 'stories260K.gguf');
  assert.deepEqual(byName(models, 'ggml-org/stories/stories260K.gguf'), {
    id: realpathSync(path),
    displayName: 'ggml-org/stories/stories260K.gguf',
    source: 'lmstudio',
    path,
    paths: [path],
    fileSize: statSync(stories).size,
    modifiedMs: statSync(path).mtimeMs,
    aliases: [],
    architecture: 'llama',
    name: 'llama',
    fileKind: null,
    parameters: 292_800,
    tensorCount: 48,
    quantization: { fileType: null, dominantType: 'F32', tensorTypes: { F32: 48 } },
    contextLength: 2048,
    layers: 5,
    embeddingSize: 64,
    hasChatTemplate: false,
    trainable: true,
  });
});

test('LM Studio: quantization, chat template, and a projector that is not trainable', async (t) => {
  const stories = requireFixture(t, 'stories260K.gguf');
  if (!stories) return;
  const tree = buildTree(t, stories);
  const { models } = await listModels({ home: tree.home, env: tree.env, trainableArchitectures: TRAINABLE });
  const qwen = byName(models, 'lmstudio-community/Qwen3-0.6B-GGUF/Qwen3-0.6B-Q4_K_M.gguf');
  assert.equal(qwen.architecture, 'qwen3');
  assert.equal(qwen.name, 'Qwen3 0.6B');
  assert.equal(qwen.parameters, elements(QWEN3_TENSORS));
  assert.deepEqual(qwen.quantization, { fileType: 'Q4_K_M', dominantType: 'Q4_K', tensorTypes: { F32: 3, Q4_K: 8, Q6_K: 1 } });
  assert.equal(qwen.hasChatTemplate, true);
  assert.deepEqual([qwen.contextLength, qwen.layers, qwen.embeddingSize], [4096, 2, 64]);
  assert.equal(qwen.trainable, true);
  const mmproj = byName(models, 'lmstudio-community/Qwen3-0.6B-GGUF/mmproj-Qwen3-0.6B-F16.gguf');
  assert.equal(mmproj.trainable, false);
  assert.equal(mmproj.trainableReason, "this is a vision projector (architecture 'clip'), not a language model");
});

test('Ollama: tags name their model blob; projector and adapter layers are not models; a missing blob is an error', async (t) => {
  const stories = requireFixture(t, 'stories260K.gguf');
  if (!stories) return;
  const tree = buildTree(t, stories);
  const { models } = await listModels({ home: tree.home, env: tree.env, trainableArchitectures: TRAINABLE });
  const ollama = models.filter((m) => m.source === 'ollama');
  assert.deepEqual(ollama.map((m) => [m.displayName, m.path, m.aliases]), [
    ['gone:latest', tree.blob('gone'), []],
    ['hf.co/bartowski/SmolLM2-GGUF:Q4_0', tree.blob('smol'), []],
    ['llava:7b', tree.blob('llava'), ['llava:latest']],
    ['someuser/tiny:q8', tree.blob('tiny'), []],
  ]);
  for (const other of ['projector', 'adapter', 'license']) {
    assert.ok(!models.some((m) => m.paths.includes(tree.blob(other))), `the ${other} blob is not listed`);
  }
  const llava = byName(models, 'llava:7b');
  assert.deepEqual(llava.quantization?.tensorTypes, { F32: 2, Q8_0: 5 });
  assert.equal(byName(models, 'someuser/tiny:q8').quantization?.dominantType, 'F16');
  assert.equal(byName(models, 'hf.co/bartowski/SmolLM2-GGUF:Q4_0').quantization?.dominantType, 'Q4_0');
  const gone = byName(models, 'gone:latest');
  const manifest = join(tree.ollama, 'manifests', 'registry.ollama.ai', 'library', 'gone', 'latest');
  assert.deepEqual(gone.error, {
    code: 'io_error',
    message: `${tree.blob('gone')}: the model blob of gone:latest (manifest ${manifest}) is missing or unreadable: no such file or folder (ENOENT)`,
  });
  assert.equal(gone.architecture, null);
  assert.equal(gone.trainable, false);
});

test('Ollama: a manifest that is not JSON, or has no model layer, is reported', async (t) => {
  const store = tempFiles(t, {
    'manifests/registry.ollama.ai/library/bad/latest': '{"layers": [',
    'manifests/registry.ollama.ai/library/embed/latest': JSON.stringify({ layers: [{ mediaType: 'application/vnd.ollama.image.license', digest: `sha256:${digest('x')}` }] }),
    'manifests/registry.ollama.ai/library/evil/latest': JSON.stringify({ layers: [{ mediaType: 'application/vnd.ollama.image.model', digest: 'sha256:../../etc/passwd' }] }),
  });
  const home = tempFiles(t);
  const { models, warnings } = await listModels({ home, env: { OLLAMA_MODELS: store } });
  const manifest = (name: string) => join(store, 'manifests', 'registry.ollama.ai', 'library', name, 'latest');
  assert.deepEqual(models.map((m) => [m.displayName, m.error?.code]), [['bad:latest', 'bad_format'], ['evil:latest', 'bad_format']]);
  assert.match(models[0].error!.message, new RegExp(`^${escape(manifest('bad'))}: the manifest of bad:latest is not JSON: `));
  assert.equal(models[1].error!.message, `${manifest('evil')}: layers[0].digest of evil:latest is "sha256:../../etc/passwd", not sha256:<64 hex digits>`);
  assert.deepEqual(warnings, [`${manifest('embed')}: embed:latest has no layer of type application/vnd.ollama.image.model; not a model, skipped`]);
});

test('Hugging Face: two revisions sharing a blob are one model, named after refs/main', async (t) => {
  const stories = requireFixture(t, 'stories260K.gguf');
  if (!stories) return;
  const tree = buildTree(t, stories);
  const { models } = await listModels({ home: tree.home, env: tree.env });
  const hf = models.filter((m) => m.source === 'huggingface');
  assert.equal(hf.length, 1);
  const link = join(tree.hfRepo, 'snapshots', 'rev-new', 'tinyllama.Q8_0.gguf');
  assert.deepEqual([hf[0].displayName, hf[0].id, hf[0].path, hf[0].aliases], ['TheBloke/TinyLlama-1.1B-GGUF/tinyllama.Q8_0.gguf', realpathSync(tree.hfBlob), link, []]);
  assert.equal(hf[0].fileSize, statSync(tree.hfBlob).size);
  assert.equal(hf[0].name, 'TinyLlama');
  assert.equal(hf[0].hasChatTemplate, true);
  // Without the engine's list, trainable is unknown for a language model.
  assert.equal(hf[0].trainable, null);
});

test('HF_HUB_CACHE wins over HF_HOME, and OLLAMA_MODELS over ~/.ollama/models', async (t) => {
  const home = tempFiles(t);
  const hub = tempFiles(t);
  const store = tempFiles(t);
  const { roots } = await listModels({ home, env: { HF_HUB_CACHE: hub, HF_HOME: join(home, 'elsewhere'), OLLAMA_MODELS: store } });
  assert.deepEqual(roots.map((r) => [r.source, r.path, r.exists]), [
    ['lmstudio', join(home, '.lmstudio', 'models'), false],
    ['lmstudio', join(home, '.cache', 'lm-studio', 'models'), false],
    ['ollama', store, true],
    ['huggingface', hub, true],
  ]);
  const defaults = await listModels({ home, env: {} });
  assert.deepEqual(defaults.roots.slice(2).map((r) => r.path), [join(home, '.ollama', 'models'), join(home, '.cache', 'huggingface', 'hub')]);
});

test('added folder: a split model is one entry; broken files are listed with errors that name them', async (t) => {
  const stories = requireFixture(t, 'stories260K.gguf');
  if (!stories) return;
  const tree = buildTree(t, stories);
  const { models } = await listModels({ home: tree.home, env: tree.env, folders: [tree.folder], trainableArchitectures: TRAINABLE });
  const split = byName(models, 'split/big-00001-of-00003.gguf');
  const partPaths = [1, 2, 3].map((i) => join(tree.folder, 'split', `big-0000${i}-of-00003.gguf`));
  assert.deepEqual(split.paths, partPaths);
  assert.equal(split.fileSize, partPaths.reduce((n, p) => n + statSync(p).size, 0));
  assert.equal(split.parameters, elements(SPLIT_TENSORS));
  assert.equal(split.tensorCount, SPLIT_TENSORS.length);
  assert.equal(split.name, 'Big');
  assert.equal(split.error, undefined);
  assert.ok(!models.some((m) => m.displayName.includes('-00002-of-')), 'later parts are not listed');

  const half = byName(models, 'broken/half-00001-of-00002.gguf');
  assert.deepEqual(half.error, {
    code: 'io_error',
    message: `${join(tree.folder, 'broken', 'half-00002-of-00002.gguf')}: part 2 of 2 of split model half is missing (found 1)`,
  });
  const truncated = join(tree.folder, 'truncated.gguf');
  assert.deepEqual(byName(models, 'truncated.gguf').error, {
    code: 'bad_format',
    message: `${truncated}: header ends at byte 100, inside key 'general.name' (key/value pair 2 of a declared 6): the file is truncated or not a whole GGUF file`,
  });
  assert.deepEqual(byName(models, 'notes.gguf').error, {
    code: 'bad_format',
    message: `${join(tree.folder, 'notes.gguf')}: not a GGUF file: it starts with "thes" (74 68 65 73) instead of "GGUF"`,
  });
  const adapter = byName(models, 'adapter.gguf');
  assert.deepEqual([adapter.fileKind, adapter.trainable, adapter.trainableReason], ['adapter', false, 'this is a LoRA adapter (general.type = adapter), not a base model']);
  const mamba = byName(models, 'mamba.gguf');
  assert.deepEqual([mamba.trainable, mamba.trainableReason], [false, "architecture 'mamba' is not trainable yet (see docs/architectures.md)"]);
  assert.ok(!models.some((m) => m.path.includes('.hidden')), 'hidden folders are skipped');
});

test('a split whose names and split.count disagree, or a lone file declaring parts, is bad_format', async (t) => {
  const dir = tempFiles(t);
  write(join(dir, 'odd-00001-of-00002.gguf'), model('llama', { kv: { 'split.count': typed('u16', 3) } }));
  write(join(dir, 'odd-00002-of-00002.gguf'), { kv: { 'split.no': typed('u16', 1), 'split.count': typed('u16', 3) }, tensors: [] });
  write(join(dir, 'lone.gguf'), model('llama', { kv: { 'split.count': typed('u16', 4) } }));
  const { models } = await listModels({ home: dir, env: {}, folders: [dir] });
  assert.deepEqual(models.map((m) => [m.displayName, m.error]), [
    ['lone.gguf', { code: 'bad_format', message: `${join(dir, 'lone.gguf')}: split.count is 4, but the file is not named as part 1 (lone-00001-of-00004.gguf), so its other parts cannot be found` }],
    ['odd-00001-of-00002.gguf', { code: 'bad_format', message: `${join(dir, 'odd-00001-of-00002.gguf')}: split.count is 3, but the file name says 2 parts` }],
  ]);
});

test('a multi-GiB sparse model lists from its header alone', async (t) => {
  const dir = tempFiles(t);
  const path = join(dir, 'huge.gguf');
  // 4 tensors of 2^29 BF16 elements: 4 GiB of data the reader must not touch.
  const tensors: TensorSpec[] = [0, 1, 2, 3].map((i) => ({ name: `blk.${i}.ffn_up.weight`, dims: [16384, 32768], type: 'BF16' }));
  const { fileSize } = writeGguf(path, model('llama', { tensors }));
  assert.ok(fileSize > 4 * 2 ** 30);
  const reads = await countFileHandleReads(t);
  const { models } = await listModels({ home: dir, env: {}, folders: [dir] });
  assert.equal(models[0].fileSize, fileSize);
  assert.equal(models[0].parameters, 4 * 2 ** 29);
  assert.deepEqual(models[0].quantization, { fileType: null, dominantType: 'BF16', tensorTypes: { BF16: 4 } });
  assert.ok(reads.bytes <= 256 * 1024, `read ${reads.bytes} bytes of a ${fileSize}-byte file`);
});

test('the catalog rereads only files whose size or modification time changed', async (t) => {
  const dir = tempFiles(t);
  write(join(dir, 'a.gguf'), model('llama'));
  write(join(dir, 'b.gguf'), model('qwen2'));
  const catalog = new ModelCatalog({ home: dir, env: {}, folders: [dir] });
  const reads = await countFileHandleReads(t);
  const first = await catalog.list();
  const afterFirst = reads.calls;
  assert.ok(afterFirst >= 2);
  const second = await catalog.list();
  assert.equal(reads.calls, afterFirst, 'nothing read the second time');
  assert.deepEqual(second, first);

  write(join(dir, 'b.gguf'), model('qwen3'));
  utimesSync(join(dir, 'b.gguf'), new Date(), new Date(Date.now() + 5000));
  const third = await catalog.list();
  assert.equal(reads.calls, afterFirst + 1, 'only the changed file is read');
  assert.deepEqual(third.models.map((m) => m.architecture), ['llama', 'qwen3']);
});

test('inspect: one file, the whole split from any part, and clear errors for bad paths', async (t) => {
  const stories = requireFixture(t, 'stories260K.gguf');
  if (!stories) return;
  const tree = buildTree(t, stories);
  const catalog = new ModelCatalog({ trainableArchitectures: TRAINABLE });
  const one = await catalog.inspect(stories);
  assert.deepEqual([one.displayName, one.source, one.parameters, one.trainable], ['stories260K.gguf', 'folder', 292_800, true]);

  const part2 = join(tree.folder, 'split', 'big-00002-of-00003.gguf');
  const split = await catalog.inspect(part2);
  assert.equal(split.paths.length, 3);
  assert.equal(split.path, join(tree.folder, 'split', 'big-00001-of-00003.gguf'));
  assert.equal(split.parameters, elements(SPLIT_TENSORS));

  const notes = await catalog.inspect(join(tree.folder, 'notes.gguf'));
  assert.equal(notes.error?.code, 'bad_format');

  const missing = join(tree.folder, 'nope.gguf');
  await assert.rejects(catalog.inspect(missing), { code: 'io_error', message: `${missing}: no such file or folder (ENOENT)` });
  await assert.rejects(catalog.inspect(tree.folder), { code: 'io_error', message: `${tree.folder}: not a file (a folder)` });
  await assert.rejects(catalog.inspect('models/x.gguf'), { code: 'invalid_argument', message: 'model inspect: the path must be an absolute path, got "models/x.gguf"' });
});

test('bad options are invalid_argument errors naming the option', async () => {
  await assert.rejects(listModels({ folders: ['relative/dir'] }), { code: 'invalid_argument', message: 'model list: folders[0] must be an absolute path, got "relative/dir"' });
  await assert.rejects(listModels({ trainableArchitectures: ['llama', ''] }), { code: 'invalid_argument', message: 'model list: trainableArchitectures[1] must be a non-empty string, got ""' });
  await assert.rejects(listModels({ home: 'home' }), { code: 'invalid_argument', message: 'model list: home must be an absolute path, got "home"' });
  await assert.rejects(listModels({ concurrency: 0 }), { code: 'invalid_argument', message: 'model list: concurrency must be an integer from 1 to 64, got 0' });
});

test('an added folder that is missing is a warning, not an error', async (t) => {
  const home = tempFiles(t);
  const gone = join(home, 'not-here');
  const result = await listModels({ home, env: {}, folders: [gone] });
  assert.deepEqual(result.models, []);
  assert.deepEqual(result.warnings, [`cannot read folder ${gone}: no such file or folder (ENOENT); skipped`]);
  assert.deepEqual(result.roots.at(-1), { source: 'folder', path: gone, exists: false, found: 0 });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
