/**
 * Scanning a dataset and rendering it through a model: the dataset report (refusing data with
 * errors), every example rendered by the engine, packed into sequences, and one preview.
 */
import { readFileSync } from 'node:fs';
import { HoneError } from '../common/errors.ts';
import type { LengthPolicy, Preview, TemplateInfo, TokenStats, TrainConfig } from '../common/engine-api.ts';
import { importDataset, type DatasetReport, type Example } from '../services/dataset/index.ts';
import type { NativeModel, NativeRenderer, Sequence } from './binding.ts';
import { packExamples, previewOf, suggestedContext, type RenderedExample, type SuggestContext, type WindowStarts } from './sequences.ts';

const BATCH = 256;

export interface RenderedDataset {
  report: DatasetReport;
  template: TemplateInfo;
  train: Sequence[];
  eval: Sequence[];
  stats: TokenStats;
  preview: Preview | null;
}

export async function scanOrFail(cfg: Pick<TrainConfig, 'data' | 'evalData' | 'evalSplit' | 'seed'>, allowErrors: boolean) {
  const ds = await importDataset(cfg.data, { evalPaths: cfg.evalData, evalRatio: cfg.evalData.length ? 0 : cfg.evalSplit, seed: cfg.seed });
  const errors = ds.report.problems.filter((p) => p.severity === 'error');
  if (!allowErrors && errors.length > 0) {
    const first = errors.slice(0, 5).map((p) => `${p.file}${p.line === null ? '' : `:${p.line}`}: ${p.message}`).join('; ');
    throw new HoneError('bad_dataset', `the dataset has ${ds.report.records.invalid || errors.length} invalid record(s) or file problem(s): ${first}`, {
      problems: ds.report.problems,
      problemCounts: ds.report.problemCounts,
    });
  }
  return ds;
}

export function exampleJson(ex: Example): string {
  return ex.kind === 'chat' ? JSON.stringify({ messages: ex.messages, tools: ex.tools }) : JSON.stringify({ text: ex.text });
}

export function createRenderer(model: NativeModel, cfg: Pick<TrainConfig, 'chatTemplate' | 'loss' | 'ignoreWeights'>): NativeRenderer {
  let chatTemplate: string | undefined;
  if (cfg.chatTemplate) {
    try {
      chatTemplate = readFileSync(cfg.chatTemplate, 'utf8');
    } catch (e) {
      throw new HoneError('io_error', `${cfg.chatTemplate}: cannot read the chat template (${(e as Error).message})`);
    }
  }
  return model.createRenderer({ chatTemplate, loss: cfg.loss, ignoreWeights: cfg.ignoreWeights });
}

async function renderAll(renderer: NativeRenderer, examples: Example[], failed: TokenStats['failed'], wantPreview: boolean) {
  const out: RenderedExample[] = [];
  let preview: Preview | null = null;
  for (let i = 0; i < examples.length; i += BATCH) {
    const batch = examples.slice(i, i + BATCH);
    const res = await renderer.renderBatch(batch.map(exampleJson));
    res.forEach((r, k) => {
      const ex = batch[k];
      if ('error' in r) failed.push({ ...ex.source, code: r.error.code, message: r.error.message });
      else out.push({ kind: ex.kind, source: ex.source, tokens: r.tokens, mask: r.mask });
    });
  }
  if (wantPreview) {
    // A chat example shows the mask best; the first one that rendered.
    const pick = examples.find((e) => e.kind === 'chat' && !failed.some((f) => f.file === e.source.file && f.line === e.source.line)) ??
      examples.find((e) => !failed.some((f) => f.file === e.source.file && f.line === e.source.line));
    if (pick) {
      const [r] = await renderer.renderBatch([exampleJson(pick)], { text: true });
      if (!('error' in r)) preview = previewOf(pick.source, r.text!, r.spans!, r.mask);
    }
  }
  return { out, preview };
}

export async function renderDataset(
  model: NativeModel,
  renderer: NativeRenderer,
  report: DatasetReport,
  train: Example[],
  evalEx: Example[],
  ctx: number,
  policy: LengthPolicy,
  windowStarts: WindowStarts,
  suggest: SuggestContext,
  fallbackCtx: number,
): Promise<RenderedDataset> {
  const failed: TokenStats['failed'] = [];
  const tr = await renderAll(renderer, train, failed, true);
  const ev = await renderAll(renderer, evalEx, failed, false);
  // ctx 0: the proposal for the data (text alone has none: the engine's default context)
  const proposal = suggestedContext([...tr.out, ...ev.out], suggest);
  const use = ctx > 0 ? ctx : proposal?.ctx ?? fallbackCtx;
  const packedTrain = packExamples(tr.out, use, policy, windowStarts);
  const packedEval = packExamples(ev.out, use, policy, windowStarts);
  const all = packExamples([...tr.out, ...ev.out], use, policy, windowStarts, failed, proposal);
  const info = renderer.info();
  return {
    report,
    template: { source: info.source, supportsTools: info.supportsTools, supportsToolCalls: info.supportsToolCalls, supportsSystemRole: info.supportsSystemRole },
    train: packedTrain.sequences,
    eval: packedEval.sequences,
    stats: all.stats,
    preview: tr.preview,
  };
}
