// The Axolotl export of a run (no engine): the run's examples in its own split as chat JSONL with
// the loss mask as per-message weight, the examples Hone dropped left out, and a config whose
// values are the run's recipe, read back as YAML.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import type { TrainConfig } from '../../electron/common/engine-api.ts';
import { HoneError } from '../../electron/common/errors.ts';
import { weighted, yamlFloat } from '../../electron/services/export/axolotl.ts';
import { createExport } from '../../electron/services/export/create-export.ts';
import { writeGgufFile } from '../../electron/services/export/gguf-writer.ts';
import { encodeF32 } from '../../electron/services/export/tensor-codecs.ts';
import { writeGguf } from '../helpers/gguf-writer.ts';
import { jsonl, tempFiles } from '../helpers/temp-files.ts';

const CHATS = [
  { messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello.' }] },
  { messages: [{ role: 'user', content: 'Two turns' }, { role: 'assistant', content: 'first', weight: 0 }, { role: 'user', content: 'again' }, { role: 'assistant', content: 'second' }] },
  { messages: [{ role: 'user', content: 'A long one' }, { role: 'assistant', content: 'x'.repeat(50) }] },
  { messages: [{ role: 'user', content: 'Fourth' }, { role: 'assistant', content: 'Four.' }] },
];

async function setup(t: object, config: Partial<TrainConfig>) {
  const dir = tempFiles(t, { 'chats.jsonl': jsonl(...CHATS), 'notes.txt': 'A plain text file.\n\nIts second paragraph.\n' });
  const model = join(dir, 'base.gguf');
  writeGguf(model, { kv: { 'general.architecture': 'qwen2', 'general.source.repo_url': 'https://huggingface.co/Qwen/Qwen2.5-0.5B' }, tensors: [{ name: 'blk.0.attn_q.weight', dims: [64, 64], type: 'F32' }, { name: 'blk.0.ffn_up.weight', dims: [64, 96], type: 'F32' }] });
  const run = join(dir, 'run');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(run);
  const full: TrainConfig = {
    model, data: [join(dir, 'chats.jsonl'), join(dir, 'notes.txt')], out: run, evalData: [], evalSplit: 0, evalEvery: 0, rank: 8, alpha: 16, targets: 'all',
    lr: 2e-4, schedule: 'cosine', warmup: 3, lrMin: 2e-5, weightDecay: 0.01, maxGradNorm: 1, steps: 40, epochs: 1, ctx: 256, batch: 4, ubatch: 2,
    seed: 7, backend: 'cpu', gpuPrecision: 'bf16', threads: 1, checkpointEvery: 0, keepCheckpoints: 3, loss: 'assistant', ignoreWeights: false,
    truncate: 'drop', chatTemplate: '', memoryLimit: 0, profile: false, recompute: false, pack: false, batchTokens: 0, ...config,
  };
  writeFileSync(join(run, 'config.json'), JSON.stringify(full));
  // the run's token statistics: the long example was dropped by the length policy
  writeFileSync(join(run, 'run.json'), JSON.stringify({ data: { tokens: { affected: [{ file: join(dir, 'chats.jsonl'), line: 3, outcome: 'dropped', tokens: 300, lossTokens: 50, lostLossTokens: 50 }], failed: [] } } }));
  const tensors = [['blk.0.attn_q.weight', 64], ['blk.0.ffn_up.weight', 96]].flatMap(([name, out]) => [
    { name: `${name}.lora_a`, dims: [64, 8], type: 0, bytes: 64 * 8 * 4, data: () => encodeF32(new Float32Array(64 * 8).fill(0.01)) },
    { name: `${name}.lora_b`, dims: [8, out as number], type: 0, bytes: 8 * (out as number) * 4, data: () => encodeF32(new Float32Array(8 * (out as number)).fill(0.02)) },
  ]);
  await writeGgufFile(join(run, 'adapter.gguf'), [
    { key: 'general.type', type: { type: 'string' }, value: 'adapter' },
    { key: 'general.architecture', type: { type: 'string' }, value: 'qwen2' },
    { key: 'adapter.type', type: { type: 'string' }, value: 'lora' },
    { key: 'adapter.lora.alpha', type: { type: 'f32' }, value: 16 },
  ], tensors);
  return { dir, run, model };
}

const noDeps = {
  lookupRun: () => {
    throw new Error('not used');
  },
  merge: null,
  defaults: async () => {
    throw new Error('a complete config needs no defaults');
  },
};

const lines = (path: string) => readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l));

test('the dataset as Hone trained on it: chat JSONL with weights, text apart, the dropped example left out; the recipe as YAML', async (t) => {
  const { run } = await setup(t, {});
  const res = await createExport({ run, format: 'axolotl' }, noDeps);
  const out = join(run, 'exports', 'axolotl');
  assert.deepEqual(res.files.map((f) => f.path.slice(out.length + 1)).sort(), ['axolotl.yaml', 'hone-export.json', 'train-text.jsonl', 'train.jsonl']);
  const train = lines(join(out, 'train.jsonl'));
  assert.equal(train.length, 3, 'the dropped example is left out');
  assert.deepEqual(train[0].messages.map((m: { weight: number }) => m.weight), [0, 0, 1]);
  assert.deepEqual(train[1].messages.map((m: { role: string; weight: number }) => [m.role, m.weight]), [['user', 0], ['assistant', 0], ['user', 0], ['assistant', 1]]);
  assert.equal(train[1].messages[3].content, 'second');
  assert.deepEqual(lines(join(out, 'train-text.jsonl')).map((r) => r.text), ['A plain text file.\n\nIts second paragraph.\n'], 'the text as Hone read it');
  assert.match(res.notes.join('\n'), /1 example\(s\) that Hone did not train on/);

  const y = parse(readFileSync(join(out, 'axolotl.yaml'), 'utf8'));
  assert.equal(y.base_model, 'Qwen/Qwen2.5-0.5B');
  assert.equal(y.chat_template, 'tokenizer_default');
  assert.equal(y.adapter, 'lora');
  assert.equal(y.lora_r, 8);
  assert.equal(y.lora_alpha, 16);
  assert.deepEqual(y.lora_target_modules, ['q_proj', 'up_proj']);
  assert.equal(y.learning_rate, 2e-4);
  assert.equal(y.lr_scheduler, 'cosine');
  assert.equal(y.cosine_min_lr_ratio, 0.1);
  assert.equal(y.warmup_steps, 3);
  assert.equal(y.max_steps, 40);
  assert.equal(y.num_epochs, undefined);
  assert.equal(y.sequence_len, 257);
  assert.equal(y.excess_length_strategy, 'drop');
  assert.equal(y.micro_batch_size, 2);
  assert.equal(y.gradient_accumulation_steps, 2);
  assert.equal(y.gradient_checkpointing, undefined, 'the run did not recompute activations');
  assert.equal(y.weight_decay, 0.01);
  assert.equal(y.seed, 7);
  assert.deepEqual(y.datasets.map((d: { path: string; type: string }) => [d.path, d.type]), [['train.jsonl', 'chat_template'], ['train-text.jsonl', 'completion']]);
  const chat = y.datasets[0];
  assert.equal(chat.field_messages, 'messages');
  assert.equal(chat.message_field_training, 'weight');
  assert.deepEqual(chat.message_property_mappings, { role: 'role', content: 'content' });
  assert.deepEqual(chat.roles_to_train, ['assistant']);
  assert.equal(chat.train_on_eos, 'turn');
  assert.equal(y.test_datasets, undefined);
  assert.deepEqual(res.commands, [`cd ${out} && axolotl train axolotl.yaml`]);
});

test('the run\'s own split, loss all, epochs, a constant schedule with warm-up, a template override, recomputed activations', async (t) => {
  const { dir, run } = await setup(t, { evalSplit: 0.5, loss: 'all', steps: 0, epochs: 2, schedule: 'constant', warmup: 5, chatTemplate: '', truncate: 'left', recompute: true });
  writeFileSync(join(dir, 't.jinja'), '{% for m in messages %}{{ m.content }}{% endfor %}');
  writeFileSync(join(run, 'config.json'), JSON.stringify({ ...JSON.parse(readFileSync(join(run, 'config.json'), 'utf8')), chatTemplate: join(dir, 't.jinja') }));
  const res = await createExport({ run, format: 'axolotl', out: join(dir, 'ax') }, noDeps);
  const train = res.files.find((f) => f.path.endsWith('/train.jsonl'));
  const evalFile = res.files.find((f) => f.path.endsWith('/eval.jsonl'));
  assert.ok(evalFile, 'half the records held out, as the run split them');
  const all = [...(train ? lines(train.path) : []), ...lines(evalFile.path)];
  assert.equal(all.length, 3);
  for (const r of all) assert.ok(r.messages.every((m: { weight: number }) => m.weight === 1), 'loss all: every message carries loss');
  const y = parse(readFileSync(join(dir, 'ax', 'axolotl.yaml'), 'utf8'));
  assert.equal(y.num_epochs, 2);
  assert.equal(y.max_steps, undefined);
  assert.equal(y.lr_scheduler, 'constant_with_warmup');
  assert.equal(y.chat_template, 'jinja');
  assert.equal(y.chat_template_jinja, '{% for m in messages %}{{ m.content }}{% endfor %}');
  assert.ok(y.test_datasets.some((d: { path: string }) => d.path === 'eval.jsonl'));
  assert.equal(y.datasets[0].train_on_eos, 'all');
  assert.equal(y.excess_length_strategy, 'truncate');
  assert.equal(y.gradient_checkpointing, true, 'recomputed activations: Axolotl\'s gradient checkpointing');
  assert.match(res.notes.join('\n'), /truncated long examples on the left/);
});

test('a hone-train config.json without some keys takes the engine\'s defaults; a base with no Hugging Face name keeps its path with a comment', async (t) => {
  const { run, model } = await setup(t, {});
  const saved = JSON.parse(readFileSync(join(run, 'config.json'), 'utf8'));
  delete saved.loss;
  delete saved.truncate;
  writeFileSync(join(run, 'config.json'), JSON.stringify(saved));
  writeGguf(model, { kv: { 'general.architecture': 'qwen2', 'general.name': 'Tiny Qwen' }, tensors: [{ name: 'blk.0.attn_q.weight', dims: [64, 64], type: 'F32' }, { name: 'blk.0.ffn_up.weight', dims: [64, 96], type: 'F32' }] });
  let asked = 0;
  const res = await createExport({ run, format: 'axolotl' }, { ...noDeps, defaults: async () => (asked++, { loss: 'assistant', truncate: 'right' }) as TrainConfig });
  assert.equal(asked, 1);
  const text = readFileSync(join(run, 'exports', 'axolotl', 'axolotl.yaml'), 'utf8');
  assert.equal(parse(text).base_model, model);
  assert.match(text, /does not say its Hugging Face name: replace this path .*\(Tiny Qwen\)/);
  assert.equal(parse(text).excess_length_strategy, 'truncate');
  assert.match(res.notes.join('\n'), /Hugging Face name is not in its GGUF/);
});

test('an adapter file has no dataset to export; a data file with errors now is refused', async (t) => {
  const { dir, run, model } = await setup(t, {});
  await assert.rejects(createExport({ adapter: join(run, 'adapter.gguf'), model, format: 'axolotl', out: join(dir, 'x') }, noDeps), /needs a run/);
  writeFileSync(join(dir, 'chats.jsonl'), jsonl(...CHATS, '{"messages": [{"role": "user"'));
  await assert.rejects(createExport({ run, format: 'axolotl' }, noDeps), (e: HoneError) => e.code === 'bad_dataset' && /chats\.jsonl:5/.test(e.message));
});

test('weights follow the mask rules; floats read as floats by YAML 1.1', () => {
  const m = [{ role: 'user' as const, content: 'a', weight: 1 as const }, { role: 'assistant' as const, content: 'b', weight: 0 as const }, { role: 'assistant' as const, content: 'c' }];
  assert.deepEqual(weighted(m, 'assistant', false).map((x) => x.weight), [0, 0, 1]);
  assert.deepEqual(weighted(m, 'assistant', true).map((x) => x.weight), [0, 1, 1]);
  assert.deepEqual(weighted(m, 'all', false).map((x) => x.weight), [1, 1, 1]);
  assert.deepEqual([1e-4, 2e-7, 1, 0.5, 1e21, 16].map(yamlFloat), ['0.0001', '2.0e-7', '1.0', '0.5', '1.0e+21', '16.0']);
  for (const s of ['2.0e-7', '1.0e+21']) assert.match(s, /^[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+][0-9]+)?$/, "PyYAML's float pattern");
});
