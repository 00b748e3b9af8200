/**
 * The Axolotl export, for a run that outgrows one machine: the run's dataset as Hone trained on
 * it (the same files read the same way, the same train/eval split, minus the examples the length
 * policy dropped or the template could not render) as OpenAI chat JSONL with the loss mask as
 * each message's `weight` (1: the message carries loss), and an Axolotl config with the run's
 * recipe: LoRA r/alpha/targets in Hugging Face names, learning rate and schedule, steps or
 * epochs, sequence length, batch and accumulation.
 *
 * Paths in the config are relative to its folder: run `axolotl train axolotl.yaml` there.
 */
import { createWriteStream, existsSync, type WriteStream } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { TokenStats, TrainConfig } from '../../common/engine-api.ts';
import { HoneError } from '../../common/errors.ts';
import { openDataset, type ChatMessage, type Example } from '../dataset/index.ts';
import { readJsonFile } from '../json-file.ts';
import { reason } from '../models/fs-errors.ts';
import { readEventsLog } from '../runs/events-log.ts';
import { RUN_FILES } from '../runs/run-folder.ts';
import { tokenStatsOf } from '../runs/token-stats.ts';
import type { AdapterFile } from './adapter-file.ts';
import type { BaseModel } from './base-model.ts';
import { HF_ARCHITECTURES, hfModule } from './hf-names.ts';

export const AXOLOTL_CONFIG = 'axolotl.yaml';

/** The settings the export reads; a hone-train config.json may lack some (the engine's defaults fill them). */
export type RecipeConfig = Pick<TrainConfig,
  'data' | 'evalData' | 'evalSplit' | 'seed' | 'loss' | 'ignoreWeights' | 'truncate' | 'ctx' | 'batch' | 'ubatch' | 'lr' | 'schedule' |
  'warmup' | 'lrMin' | 'weightDecay' | 'maxGradNorm' | 'steps' | 'epochs' | 'evalEvery' | 'chatTemplate'> & { beta1?: number; beta2?: number; eps?: number; recompute?: boolean; pack?: boolean };

/** The messages with every `weight` set as Hone's mask has it: 1 for a message that carries loss. */
export function weighted(messages: ChatMessage[], loss: TrainConfig['loss'], ignoreWeights: boolean): ChatMessage[] {
  return messages.map((m) => ({ ...m, weight: loss === 'all' || (m.role === 'assistant' && (ignoreWeights || m.weight !== 0)) ? 1 : 0 }));
}

/** `file:line` of every example Hone did not train on (dropped by the length policy, or not rendered), from the run's token statistics. */
export function notTrained(stats: TokenStats | null): Set<string> {
  const out = new Set<string>();
  if (!stats) return out;
  for (const a of stats.affected) if (a.outcome === 'dropped') out.add(`${a.file}:${a.line}`);
  for (const f of stats.failed) out.add(`${f.file}:${f.line}`);
  return out;
}

/** The run's token statistics: run.json's `data.tokens`, else the last `tokens` event of events.jsonl; null when neither has them. */
export function runTokenStats(runFolder: string): TokenStats | null {
  try {
    const run = readJsonFile(join(runFolder, RUN_FILES.runJson)) as { data?: { tokens?: unknown } } | null;
    const fromRun = tokenStatsOf(run?.data?.tokens);
    if (fromRun) return fromRun;
  } catch {
    // no run.json yet (the run has not finished) or not readable: the log may have them
  }
  const events = join(runFolder, RUN_FILES.events);
  if (!existsSync(events)) return null;
  let stats: TokenStats | null = null;
  try {
    for (const r of readEventsLog(events)) if (r.event.type === 'tokens') stats = tokenStatsOf(r.event.stats) ?? stats;
  } catch {
    return null;
  }
  return stats;
}

interface JsonlOut {
  name: string;
  path: string;
  stream: WriteStream;
  records: number;
  error: Error | null;
}

function jsonl(folder: string, name: string): JsonlOut {
  const out: JsonlOut = { name, path: join(folder, name), stream: createWriteStream(join(folder, name)), records: 0, error: null };
  out.stream.on('error', (err) => (out.error ??= err));
  return out;
}

function failed(out: JsonlOut): HoneError {
  return new HoneError('io_error', `${out.path}: cannot be written: ${reason(out.error)}`, { path: out.path });
}

async function writeLine(out: JsonlOut, value: unknown): Promise<void> {
  if (out.error) throw failed(out);
  out.records++;
  if (!out.stream.write(JSON.stringify(value) + '\n')) {
    await new Promise<void>((resolve) => {
      out.stream.once('drain', resolve);
      out.stream.once('error', () => resolve());
    });
    if (out.error) throw failed(out);
  }
}

async function close(out: JsonlOut): Promise<void> {
  if (!out.stream.destroyed) {
    await new Promise<void>((resolve) => {
      out.stream.once('error', () => resolve());
      out.stream.end(() => resolve());
    });
  }
  if (out.error) throw failed(out);
}

export interface DatasetFiles {
  /** Written files (name -> records), chat and text, train and eval; a file with no records is not kept. */
  files: Array<{ name: string; records: number; split: 'train' | 'eval'; kind: 'chat' | 'text' }>;
  skipped: number;
}

/** Writes the run's examples into `folder` as train/eval chat (and text) JSONL. */
export async function writeDataset(
  config: RecipeConfig,
  skip: Set<string>,
  folder: string,
  onRecords?: (done: number, total: number) => void,
): Promise<DatasetFiles> {
  const opened = await openDataset(config.data, { evalPaths: config.evalData, evalRatio: config.evalData.length ? 0 : config.evalSplit, seed: config.seed });
  const errors = opened.report.problems.filter((p) => p.severity === 'error');
  if (errors.length) {
    const first = errors.slice(0, 5).map((p) => `${p.file}${p.line === null ? '' : `:${p.line}`}: ${p.message}`).join('; ');
    throw new HoneError('bad_dataset', `the run's dataset has errors now (did a file change since the run?): ${first}`, { problems: opened.report.problems });
  }
  const total = opened.report.split.train + opened.report.split.eval;
  const outs = {
    'train-chat': jsonl(folder, 'train.jsonl'),
    'eval-chat': jsonl(folder, 'eval.jsonl'),
    'train-text': jsonl(folder, 'train-text.jsonl'),
    'eval-text': jsonl(folder, 'eval-text.jsonl'),
  };
  let skipped = 0;
  let done = 0;
  try {
    for await (const { split, example } of opened.examples()) {
      done++;
      if (done % 1000 === 0) onRecords?.(done, total);
      if (skip.has(`${example.source.file}:${example.source.line}`)) {
        skipped++;
        continue;
      }
      await writeLine(outs[`${split}-${example.kind}`], recordOf(example, config));
    }
  } finally {
    for (const o of Object.values(outs)) await close(o);
  }
  onRecords?.(total, total);
  const files: DatasetFiles['files'] = [];
  for (const [key, o] of Object.entries(outs)) {
    const [split, kind] = key.split('-') as ['train' | 'eval', 'chat' | 'text'];
    if (o.records === 0) await rm(join(folder, o.name), { force: true });
    else files.push({ name: o.name, records: o.records, split, kind });
  }
  if (!files.some((f) => f.split === 'train')) throw new HoneError('no_examples', `the run's dataset (${config.data.join(', ')}) gives no training example`);
  return { files, skipped };
}

function recordOf(ex: Example, config: RecipeConfig): unknown {
  if (ex.kind === 'text') return { text: ex.text };
  const record: Record<string, unknown> = { messages: weighted(ex.messages, config.loss, config.ignoreWeights) };
  if (ex.tools) record.tools = ex.tools;
  return record;
}

/** A number as YAML 1.1 (PyYAML, which Axolotl reads with) takes for a float: always a dot, a signed exponent. */
export function yamlFloat(x: number): string {
  if (!Number.isFinite(x)) throw new Error(`${x} is not a finite number`);
  const s = String(x);
  if (!s.includes('e')) return s.includes('.') ? s : `${s}.0`;
  const [m, e] = s.split('e');
  return `${m.includes('.') ? m : `${m}.0`}e${/^[+-]/.test(e) ? e : `+${e}`}`;
}

const q = (s: string) => JSON.stringify(s);

/** transformers' scheduler names for Hone's schedules (warm-up is `warmup_steps` in all of them). */
function scheduler(c: RecipeConfig): { lines: string[]; notes: string[] } {
  const notes: string[] = [];
  if (c.schedule === 'constant') return { lines: [`lr_scheduler: ${c.warmup > 0 ? 'constant_with_warmup' : 'constant'}`], notes };
  if (c.schedule === 'cosine') {
    const lines = ['lr_scheduler: cosine'];
    if (c.lrMin > 0) lines.push(`cosine_min_lr_ratio: ${yamlFloat(c.lrMin / c.lr)}  # Hone's lr-min ${c.lrMin}`);
    return { lines, notes };
  }
  if (c.lrMin > 0) notes.push(`Hone's linear schedule ends at lr-min ${c.lrMin}; transformers' linear ends at 0`);
  return { lines: ['lr_scheduler: linear'], notes };
}

export interface AxolotlInputs {
  config: RecipeConfig;
  adapter: AdapterFile;
  model: BaseModel;
  dataset: DatasetFiles;
  runId: string;
  /** The chat template override's text, when the run used one. */
  chatTemplate: string | null;
}

/** The Axolotl config text and the notes it comes with. */
export function axolotlYaml(x: AxolotlInputs): { text: string; notes: string[] } {
  const c = x.config;
  const notes: string[] = [];
  const L: string[] = [`# Axolotl config written by Hone from run ${x.runId}: the same data, split and LoRA recipe (docs/export.md).`];
  L.push('# Paths are relative to this folder: run `axolotl train axolotl.yaml` here.');
  if (x.model.hfName) L.push(`base_model: ${q(x.model.hfName)}  # named in the GGUF's metadata`);
  else {
    L.push(`# The base GGUF does not say its Hugging Face name: replace this path with the model's Hugging Face name (${x.model.name ?? 'unnamed'}).`);
    L.push(`base_model: ${q(x.model.path)}`);
    notes.push(`the base model's Hugging Face name is not in its GGUF: axolotl.yaml names the GGUF path, to be replaced with the model's Hugging Face name`);
  }
  if (x.chatTemplate !== null) {
    L.push('chat_template: jinja  # the run rendered with its own chat template', `chat_template_jinja: ${q(x.chatTemplate)}`);
  } else {
    L.push("chat_template: tokenizer_default  # the model's own template, which Hone rendered with");
  }
  const datasetEntry = (f: DatasetFiles['files'][number]): string[] =>
    f.kind === 'text'
      ? [`  - path: ${q(f.name)}  # ${f.records} text examples`, '    ds_type: json', '    type: completion', '    field: text']
      : [
          `  - path: ${q(f.name)}  # ${f.records} conversations`,
          '    ds_type: json',
          '    type: chat_template',
          '    field_messages: messages',
          '    message_property_mappings:',
          '      role: role',
          '      content: content',
          "    message_field_training: weight  # Hone's loss mask: 1 on each message that carries loss",
          `    roles_to_train: ${c.loss === 'all' ? '["system", "user", "assistant", "tool"]' : '["assistant"]'}`,
          `    train_on_eos: ${c.loss === 'all' ? 'all' : 'turn'}`,
        ];
  const kept = x.dataset.files;
  L.push('datasets:', ...kept.filter((f) => f.split === 'train').flatMap(datasetEntry));
  const evalFiles = kept.filter((f) => f.split === 'eval');
  if (evalFiles.length) L.push('test_datasets:', ...evalFiles.flatMap(datasetEntry));
  L.push('val_set_size: 0.0  # the held-out split is test_datasets, as Hone split it');
  if (c.evalEvery > 0) L.push(`eval_steps: ${c.evalEvery}`);
  if (x.dataset.skipped) L.push(`# ${x.dataset.skipped} example(s) Hone did not train on (dropped by the length policy, or not rendered) are left out.`);

  L.push('', 'adapter: lora', `lora_r: ${x.adapter.pairs[0].rank}`, `lora_alpha: ${yamlFloat(x.adapter.alpha)}`, 'lora_dropout: 0.0');
  const arch = x.adapter.architecture;
  if (HF_ARCHITECTURES[arch]) {
    const leaves = [...new Set(x.adapter.pairs.map((p) => hfModule(arch, p.base, x.adapter.path).leaf))];
    L.push(`lora_target_modules: [${leaves.map(q).join(', ')}]`);
  } else {
    const gguf = [...new Set(x.adapter.pairs.map((p) => p.base.replace(/^blk\.\d+\./, '').replace(/\.weight$/, '')))];
    L.push(`# No Hugging Face module names are known for ${arch}; Hone trained ${gguf.join(', ')} (llama.cpp's names).`, 'lora_target_linear: true');
    notes.push(`no Hugging Face module names are known for ${arch}: axolotl.yaml targets every linear layer (lora_target_linear); Hone trained ${gguf.join(', ')}`);
  }

  L.push('', `learning_rate: ${yamlFloat(c.lr)}`);
  const s = scheduler(c);
  L.push(...s.lines, `warmup_steps: ${c.warmup}`);
  notes.push(...s.notes);
  if (c.steps > 0) L.push(`max_steps: ${c.steps}`);
  else L.push(`num_epochs: ${yamlFloat(c.epochs)}`);
  const ubatch = c.ubatch > 0 ? c.ubatch : c.batch;
  L.push(
    `sequence_len: ${c.ctx + 1}  # Hone's ctx ${c.ctx}: each sequence is ctx + 1 tokens (ctx predictions)`,
    `excess_length_strategy: ${c.truncate === 'drop' ? 'drop' : 'truncate'}${c.truncate === 'left' ? "  # Hone kept the last tokens (truncate left); Axolotl keeps the first" : ''}`,
    // runs from before packing existed have no `pack`: one example per row
    c.pack ? 'sample_packing: true  # Hone packed examples into shared rows, attention within each' : 'sample_packing: false  # Hone trained one example per row',
    `micro_batch_size: ${ubatch}`,
    `gradient_accumulation_steps: ${Math.max(1, Math.round(c.batch / ubatch))}`,
    'optimizer: adamw_torch',
  );
  if (c.recompute) L.push('gradient_checkpointing: true  # Hone recomputed activations (the same gradients)');
  if (c.truncate === 'left') notes.push("Hone truncated long examples on the left (kept their last tokens); Axolotl's truncate keeps the first");
  if (c.beta1 !== undefined) L.push(`adam_beta1: ${yamlFloat(c.beta1)}`);
  if (c.beta2 !== undefined) L.push(`adam_beta2: ${yamlFloat(c.beta2)}`);
  if (c.eps !== undefined) L.push(`adam_epsilon: ${yamlFloat(c.eps)}`);
  L.push(`weight_decay: ${yamlFloat(c.weightDecay)}`, `max_grad_norm: ${yamlFloat(c.maxGradNorm)}`, `seed: ${c.seed}`, 'output_dir: ./outputs/lora');
  return { text: L.join('\n') + '\n', notes };
}

/** The run's chat template override, read as the run used it; null when it used the model's. */
export async function chatTemplateOf(config: RecipeConfig): Promise<string | null> {
  if (!config.chatTemplate) return null;
  try {
    return await readFile(config.chatTemplate, 'utf8');
  } catch (err) {
    throw new HoneError('io_error', `${config.chatTemplate}: the run's chat template cannot be read: ${reason(err)}`, { path: config.chatTemplate });
  }
}
