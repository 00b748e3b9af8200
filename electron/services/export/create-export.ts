/**
 * One export, start to end (docs/export.md): find the adapter and its base, check they fit,
 * write the format's files under a temporary name beside `out`, and rename them into place.
 * Any failure removes the temporary files and leaves `out` as it was.
 */
import { rm, stat, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { MergeResult, TrainConfig } from '../../common/engine-api.ts';
import { HoneError } from '../../common/errors.ts';
import type { ExportedFile, ExportProgress, ExportRequest, ExportResult, MergeType } from '../../common/export.ts';
import { readAdapterFile, type AdapterFile } from './adapter-file.ts';
import { ExportTarget, MANIFEST } from './atomic.ts';
import { AXOLOTL_CONFIG, axolotlYaml, chatTemplateOf, notTrained, runTokenStats, writeDataset, type RecipeConfig } from './axolotl.ts';
import { checkAdapterFits, readBaseModel, type BaseModel } from './base-model.ts';
import { keptF16Note, writeAdapterCopy } from './gguf-adapter.ts';
import { besideModelfile, modelfileText, ollamaModelName, ollamaNameOf, shellWord } from './ollama.ts';
import { PEFT_CONFIG, PEFT_WEIGHTS, peftConfig, peftTensors } from './peft.ts';
import { writeSafetensors } from './safetensors.ts';
import { resolveSource, type ExportSource, type RunLookup } from './source.ts';

/** The engine host's merge: base + scale·B·A as a new GGUF at `out`, with one call per tensor written. */
export type MergeFn = (
  payload: { model: string; adapter: string; out: string; type?: MergeType },
  onProgress: (done: number, total: number, tensor: string) => void,
) => Promise<MergeResult>;

export interface ExportDeps {
  /** The folder of a run id. */
  lookupRun: RunLookup;
  /** The merge, or null where no engine can run one; it throws `unsupported` for a host without it. */
  merge: MergeFn | null;
  /** The engine's defaults, for keys a run's config.json lacks (hone-train writes only what it was given). */
  defaults: () => Promise<TrainConfig>;
  onProgress?: (p: ExportProgress) => void;
}

interface Job {
  request: ExportRequest;
  source: ExportSource;
  adapter: AdapterFile;
  model: BaseModel;
  target: ExportTarget;
  files: ExportedFile[];
  notes: string[];
  commands: string[];
  deps: ExportDeps;
  progress(p: Omit<ExportProgress, 'type' | 'format' | 'out'>): void;
}

export async function createExport(request: ExportRequest, deps: ExportDeps): Promise<ExportResult> {
  const source = await resolveSource(request, deps.lookupRun);
  const single = (request.format === 'gguf' || request.format === 'merged') && /\.gguf$/i.test(source.out);
  if (/\.gguf$/i.test(source.out) && !single) {
    throw new HoneError('invalid_argument', `exports.create: ${request.format} writes a folder of files; 'out' (${source.out}) must not be a .gguf file name`);
  }
  for (const input of [source.adapter, source.model]) {
    if (resolve(input) === source.out || (await sameFile(input, source.out))) {
      throw new HoneError('invalid_argument', `exports.create: 'out' (${source.out}) is an input of the export; choose another output`);
    }
  }
  const adapter = await readAdapterFile(source.adapter);
  const model = await readBaseModel(source.model);
  checkAdapterFits(adapter, model);
  const target = await ExportTarget.begin(source.out, single);
  const job: Job = {
    request,
    source,
    adapter,
    model,
    target,
    files: [],
    notes: [...source.notes],
    commands: [],
    deps,
    progress: (p) => deps.onProgress?.({ type: 'export-progress', format: request.format, out: source.out, ...p }),
  };
  try {
    await FORMATS[request.format](job);
    await target.commit({
      format: request.format,
      createdAt: new Date().toISOString(),
      source: { run: source.runFolder, adapter: source.adapter, model: source.model },
      request: { type: request.type, storage: request.storage },
      files: job.files.map((f) => ({ name: basename(f.path), bytes: f.bytes, role: f.role })),
      commands: job.commands,
      notes: job.notes,
    });
  } catch (err) {
    await target.abort();
    throw err;
  }
  if (!single) job.files.push({ path: join(source.out, MANIFEST), bytes: (await stat(join(source.out, MANIFEST))).size, role: 'what this export is and where it came from' });
  return { format: request.format, out: source.out, files: job.files, commands: job.commands, notes: job.notes };
}

async function sameFile(a: string, b: string): Promise<boolean> {
  const [x, y] = await Promise.all([stat(a).catch(() => null), stat(b).catch(() => null)]);
  return !!x && !!y && x.ino === y.ino && x.dev === y.dev;
}

/** A file of the export: where it is written now, recorded under its final path. */
async function put(job: Job, name: string, role: string, write: (temp: string) => Promise<number | void>): Promise<string> {
  const { temp, finalPath } = job.target.isFile ? { temp: job.target.temp, finalPath: job.target.final } : job.target.file(name);
  await write(temp);
  job.files.push({ path: finalPath, bytes: (await stat(temp)).size, role });
  return finalPath;
}

const text = (content: string) => async (temp: string) => writeFile(temp, content);

const FORMATS: Record<ExportRequest['format'], (job: Job) => Promise<void>> = {
  gguf: async (job) => {
    const storage = job.request.storage ?? 'f32';
    let kept: string[] = [];
    await put(job, 'adapter.gguf', `the LoRA adapter, llama.cpp's GGUF (A/B ${storage.toUpperCase()})`, async (temp) => {
      const copy = await writeAdapterCopy(job.adapter, temp, storage, (done, total, item) => job.progress({ stage: 'tensors', done, total, item }));
      kept = copy.keptF16;
    });
    const note = keptF16Note(kept, job.adapter);
    if (note) job.notes.push(note);
  },

  peft: async (job) => {
    const t = await peftTensors(job.adapter, job.model, (done, total, item) => job.progress({ stage: 'tensors', done, total, item }));
    await put(job, PEFT_WEIGHTS, "the LoRA's A and B under transformers' module names (F32)", (temp) => writeSafetensors(temp, t.tensors, { format: 'pt' }));
    const config = peftConfig(t, job.adapter.alpha, job.model.hfName);
    await put(job, PEFT_CONFIG, "PEFT's LoraConfig: rank, alpha, target modules, base model", text(JSON.stringify(config, null, 2) + '\n'));
    if (!job.model.hfName) {
      job.notes.push(`the base model's GGUF does not say its Hugging Face name${job.model.name ? ` (it is called '${job.model.name}')` : ''}: base_model_name_or_path is null; load with PeftModel.from_pretrained(base, folder)`);
    }
    if (job.adapter.architecture === 'gemma3') job.notes.push("names are Gemma3ForCausalLM's (model.layers.N); a multimodal Gemma 3 checkpoint nests its text layers under another prefix");
  },

  merged: async (job) => {
    const merge = mergeOrRefuse(job);
    await put(job, 'model.gguf', `the base with the LoRA merged in, GGUF${job.request.type ? ` (merged tensors ${job.request.type.toUpperCase()})` : ''}`, async (temp) => {
      const r = await merge({ model: job.source.model, adapter: job.source.adapter, out: temp, type: job.request.type }, (done, total, item) =>
        job.progress({ stage: 'merge', done, total, item }),
      );
      job.notes.push(`${r.merged} tensors merged, ${r.copied} copied byte for byte`, ...r.notes);
    });
  },

  ollama: async (job) => {
    const runId = job.source.runFolder ? basename(job.source.runFolder) : basename(job.source.adapter);
    const name = ollamaModelName(runId);
    const base = await ollamaNameOf(job.source.model);
    await put(job, 'adapter.gguf', "the LoRA adapter, llama.cpp's GGUF", (temp) => writeAdapterCopy(job.adapter, temp, 'f32').then((c) => c.bytes));
    const from = base ?? job.source.model;
    const modelfile = await put(job, 'Modelfile', 'Ollama Modelfile: the base with the adapter', text(modelfileText({
      comment: [`Written by Hone: the base model with the LoRA trained in ${runId} (docs/export.md).`,
        base ? `${base} is the base as Ollama's store holds it: its template and parameters are inherited.` : 'The base GGUF, by path: Ollama reads its chat template from the file.'],
      from,
      adapter: besideModelfile('adapter.gguf'),
    })));
    job.commands.push(`ollama create ${name} -f ${shellWord(modelfile)}`);
    if (!base) job.notes.push(`the base model is not in Ollama's store: FROM names its GGUF (${job.source.model})`);
    // the second variant: FROM the merged GGUF, for Ollama versions that refuse ADAPTER
    if (!job.deps.merge) {
      job.notes.push('the second Modelfile (FROM a merged GGUF, for Ollama versions that refuse ADAPTER) needs the engine\'s merge, which is not available here: export the merged format and point FROM at it');
      return;
    }
    try {
      await put(job, 'merged.gguf', 'the base with the LoRA merged in, GGUF (for Modelfile.merged)', async (temp) => {
        await job.deps.merge!({ model: job.source.model, adapter: job.source.adapter, out: temp }, (done, total, item) => job.progress({ stage: 'merge', done, total, item }));
      });
    } catch (err) {
      const e = err as HoneError;
      if (e.code !== 'unsupported' && e.code !== 'busy') throw err;
      await rm(job.target.file('merged.gguf').temp, { force: true });
      job.notes.push(`the second Modelfile (FROM a merged GGUF, for Ollama versions that refuse ADAPTER) was not written: ${e.message}`);
      return;
    }
    const merged = await put(job, 'Modelfile.merged', 'Ollama Modelfile: the merged model, for Ollama versions that refuse ADAPTER', text(modelfileText({
      comment: [`Written by Hone: the base with the LoRA of ${runId} merged in (docs/export.md), for Ollama versions that refuse ADAPTER lines.`],
      from: besideModelfile('merged.gguf'),
    })));
    job.commands.push(`ollama create ${name}-merged -f ${shellWord(merged)}`);
  },

  axolotl: async (job) => {
    if (!job.source.runFolder || !job.source.config) {
      throw new HoneError('invalid_argument', 'exports.create: the axolotl export needs a run (its config.json names the data and the settings), not an adapter file');
    }
    const saved = job.source.config;
    const needsDefaults = (['evalData', 'evalSplit', 'seed', 'loss', 'ignoreWeights', 'truncate', 'ctx', 'batch', 'ubatch', 'lr', 'schedule', 'warmup', 'lrMin', 'weightDecay', 'maxGradNorm', 'steps', 'epochs', 'evalEvery', 'chatTemplate'] as const)
      .some((k) => saved[k] === undefined);
    const config = { ...(needsDefaults ? await job.deps.defaults() : {}), ...saved } as RecipeConfig;
    const skip = notTrained(runTokenStats(job.source.runFolder));
    const folder = job.target.temp;
    const dataset = await writeDataset(config, skip, folder, (done, total) => job.progress({ stage: 'dataset', done, total }));
    for (const f of dataset.files) {
      const path = join(folder, f.name);
      job.files.push({ path: join(job.target.final, f.name), bytes: (await stat(path)).size, role: `${f.split} ${f.kind === 'chat' ? 'conversations (OpenAI chat JSONL, loss mask as weight)' : 'texts (JSONL, text)'}: ${f.records}` });
    }
    if (dataset.skipped) job.notes.push(`${dataset.skipped} example(s) that Hone did not train on (dropped by the length policy, or not rendered) are left out`);
    const yaml = axolotlYaml({ config, adapter: job.adapter, model: job.model, dataset, runId: basename(job.source.runFolder), chatTemplate: await chatTemplateOf(config) });
    job.notes.push(...yaml.notes);
    await put(job, AXOLOTL_CONFIG, "Axolotl config: the run's LoRA recipe over these files", text(yaml.text));
    job.commands.push(`cd ${shellWord(job.target.final)} && axolotl train ${AXOLOTL_CONFIG}`);
  },
};

function mergeOrRefuse(job: Job): MergeFn {
  if (!job.deps.merge) throw new HoneError('unsupported', 'exports.create: a merged export needs the engine\'s merge, which is not available here');
  return job.deps.merge;
}
