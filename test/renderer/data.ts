/**
 * Builders of the service's answers for tests, shaped as the contract in electron/common says:
 * each starts from plausible values and takes the fields a test cares about. Derived fields
 * (an ops report's shares and fallbacks, a dataset's totals) are computed from the parts.
 */
import type { DatasetReport, FileReport, Problem } from '../../electron/common/dataset-report.ts';
import type { InspectResult, TokenStats, TrainConfig } from '../../electron/common/engine-api.ts';
import type { ListedModel, ModelList } from '../../electron/common/models.ts';
import type { OpsNode, OpsReport } from '../../electron/common/ops-report.ts';
import type { DatasetImport, EngineCapabilities, PlanPool, PlanResult, RunDetail, RunEventRecord, RunSummary } from '../../electron/common/runs.ts';

export const DEFAULTS: TrainConfig = {
  model: '', data: [], out: '', evalData: [], evalSplit: 0, evalEvery: 0, rank: 8, alpha: 0,
  targets: 'attn_q,attn_k,attn_v,attn_output', lr: 1e-4, schedule: 'constant', warmup: 0, lrMin: 0,
  weightDecay: 0, maxGradNorm: 1, steps: 0, epochs: 1, ctx: 512, batch: 1, ubatch: 0, seed: 42,
  backend: 'auto', gpuPrecision: 'bf16', threads: 0, checkpointEvery: 0, keepCheckpoints: 3,
  loss: 'assistant', ignoreWeights: false, truncate: 'right', chatTemplate: '', memoryLimit: 0, profile: false, recompute: false, pack: true, batchTokens: 0,
};

export function capabilities(backends: Array<'CPU' | 'CUDA0' | 'MTL0'> = ['CPU']): EngineCapabilities {
  return {
    backends: backends.map((name) => ({
      name,
      kind: name === 'CPU' ? 'cpu' : 'gpu',
      request: name === 'CPU' ? 'cpu' : name.startsWith('CUDA') ? 'cuda' : 'metal',
      description: name === 'CPU' ? 'the processor' : `${name} test device`,
      freeBytes: 8 << 30,
      totalBytes: 16 << 30,
    })),
    trainableArchitectures: ['llama', 'qwen3'],
    defaults: DEFAULTS,
  };
}

export function info(backends?: Array<'CPU' | 'CUDA0' | 'MTL0'>) {
  return { version: '0.1.0', dataDir: '/data', engine: capabilities(backends) };
}

export function model(over: Partial<ListedModel> = {}): ListedModel {
  const path = over.path ?? '/models/tiny-llama.gguf';
  return {
    id: path, displayName: 'tiny-llama.gguf', source: 'folder', path, paths: [path], fileSize: 1_180_000, modifiedMs: 0,
    aliases: [], architecture: 'llama', name: 'Tiny Llama', fileKind: null, parameters: 293_000, tensorCount: 48,
    quantization: { fileType: 'ALL_F32', dominantType: 'F32', tensorTypes: { F32: 48 } }, contextLength: 2048, layers: 5,
    embeddingSize: 64, hasChatTemplate: false, trainable: true, ...over,
  };
}

export function modelList(models: ListedModel[], warnings: string[] = []): ModelList {
  return { models, warnings, roots: [{ source: 'folder', path: '/models', exists: true, found: models.length }] };
}

export function fileReport(path: string, counts: { total: number; invalid?: number; duplicates?: number }, over: Partial<FileReport> = {}): FileReport {
  const invalid = counts.invalid ?? 0;
  return {
    path, format: 'openai-chat', container: 'jsonl', overridden: false, role: 'train', bytes: counts.total * 300,
    records: { total: counts.total, valid: counts.total - invalid, invalid, duplicates: counts.duplicates ?? 0 }, ...over,
  };
}

/** A report over files, its totals and problem counts summed from them. */
export function datasetImport(files: FileReport[], problems: Problem[] = [], omitted = 0): DatasetImport {
  const sum = (k: 'total' | 'valid' | 'invalid' | 'duplicates') => files.reduce((a, f) => a + f.records[k], 0);
  const problemCounts: DatasetReport['problemCounts'] = {};
  for (const p of problems) problemCounts[p.code] = (problemCounts[p.code] ?? 0) + 1;
  const report: DatasetReport = {
    files, format: files.length ? files[0].format : null,
    records: { total: sum('total'), valid: sum('valid'), invalid: sum('invalid'), duplicates: sum('duplicates') },
    problems, problemCounts, problemsOmitted: omitted, duplicatesDropped: true,
    split: { train: sum('valid'), eval: 0, rule: 'ratio', ratio: 0, seed: '42' }, skipped: [],
  };
  return { files: files.map((f) => f.path), report };
}

export function problem(file: string, line: number, over: Partial<Problem> = {}): Problem {
  return { file, line, field: 'messages[1].content', message: `line ${line}: content is empty`, code: 'empty_content', severity: 'error', ...over };
}

export function tokenStats(over: Partial<TokenStats> = {}): TokenStats {
  return {
    examples: 10, sequences: 10, tokens: 1200, lossTokens: 400, ctx: 512, policy: 'right', overLength: 0, truncated: 0, dropped: 0,
    chunked: 0, affected: [], failed: [], suggestedCtx: { ctx: 256, covers: 1 }, histogram: [{ from: 64, to: 128, count: 4 }, { from: 128, to: 256, count: 6 }],
    lengths: { min: 70, median: 120, max: 200, mean: 120 }, ...over,
  };
}

export function inspectResult(tokens: TokenStats, text = 'User: hi\nAssistant: hello there'): InspectResult {
  const start = text.indexOf('hello');
  return {
    report: datasetImport([fileReport('/data/a.jsonl', { total: tokens.examples })]).report,
    template: { source: 'model', supportsTools: false, supportsToolCalls: false, supportsSystemRole: true },
    tokens,
    preview: { source: { file: '/data/a.jsonl', line: 1 }, text, lossSpans: start >= 0 ? [[start, text.length]] : [], tokens: 12, lossTokens: 4 },
  };
}

export function node(i: number, over: Partial<OpsNode> = {}): OpsNode {
  return {
    i, pass: 'forward', op: 'MUL_MAT', name: `node-${i}`, backend: 'CPU', type: 'f32', shape: [64, 32, 1, 1], layer: 0,
    weight: null, flops: 1000, compute: true, src: [{ name: 'a', type: 'f32', shape: [64, 64, 1, 1], backend: 'CPU' }, { name: 'b', type: 'f32', shape: [64, 32, 1, 1], backend: 'CPU' }],
    ...over,
  };
}

/** An ops report whose shares, fallbacks and counts are computed from its nodes. */
export function opsReport(nodes: OpsNode[], backends: string[] = ['CPU'], dryRun = true): OpsReport {
  const compute = nodes.filter((n) => n.compute);
  const flops = compute.reduce((a, n) => a + n.flops, 0);
  const share: OpsReport['share'] = {};
  for (const b of new Set(compute.map((n) => n.backend))) {
    const on = compute.filter((n) => n.backend === b);
    const f = on.reduce((a, n) => a + n.flops, 0);
    share[b] = { nodes: on.length, node_share: on.length / compute.length, flops: f, flops_share: flops ? f / flops : 0 };
  }
  const byOp = new Map<string, OpsReport['by_op'][number]>();
  for (const n of compute) {
    const key = `${n.op}|${n.backend}|${n.src[0]?.type ?? '-'}`;
    const e = byOp.get(key) ?? { op: n.op, backend: n.backend, src0_type: n.src[0]?.type ?? '-', count: 0 };
    e.count++;
    byOp.set(key, e);
  }
  return {
    schema: 'hone.ops/1', dry_run: dryRun, backends,
    memory: { items: [], backends: [], limit_bytes: 0, kv_cache_bytes: 0, mode: 'plain', mode_reason: 'the plain graph fits', ubatch: 1, ubatch_reason: 'asked for', compute_buffer: {}, graph_tensor_bytes_before_reuse: {} },
    graph: { forward_nodes: nodes.length, backward_nodes: 0, optimizer_nodes: 0, trainable_tensors: 2 },
    n_nodes: nodes.length, n_compute_nodes: compute.length, n_splits: new Set(compute.map((n) => n.backend)).size, n_copies: 1, copy_bytes: 0,
    share, by_op: [...byOp.values()], transitions: [], copies: [],
    cpu_fallbacks: compute.filter((n) => n.cpu_reason).map((n) => ({ i: n.i, op: n.op, name: n.name, layer: n.layer, reason: n.cpu_reason! })),
    gradient_waste_nodes: 0, gradient_waste_flops: 0, gradient_waste: [], gradient_waste_backward_nodes: [], profile: null, nodes,
  };
}

export function pool(over: Partial<PlanPool> = {}): PlanPool {
  const items = over.items ?? [
    { what: 'gradient_accumulators', bytes: 1 << 20, trainer: true, mapped: false },
    { what: 'optimizer_state', bytes: 2 << 20, trainer: true, mapped: false },
    { what: 'compute_buffer', bytes: 8 << 20, trainer: true, mapped: false },
  ];
  const planBytes = items.filter((i) => i.trainer).reduce((a, i) => a + i.bytes, 0);
  const limit = over.limitBytes ?? 1 << 30;
  return { pool: 'CPU', planBytes, residentBytes: 200_000, mappedBytes: 1_100_000, freeBytes: limit, totalBytes: 2 << 30, limitBytes: limit, fits: planBytes <= limit, items, ...over };
}

export function planResult(pools: PlanPool[], ops: OpsReport): PlanResult {
  const fits = pools.every((p) => p.fits);
  return { fits, notFit: fits ? null : `${pools.find((p) => !p.fits)!.pool}: needs more memory than it has; lower the context`, pools, ops, elapsedMs: 42, cached: false };
}

export function runSummary(over: Partial<RunSummary> = {}): RunSummary {
  return {
    id: 'run-1', title: 'tiny-llama.gguf · a.jsonl · 2026-01-01 10:00', status: 'running', createdAt: '2026-01-01T10:00:00Z', updatedAt: '2026-01-01T10:01:00Z',
    model: '/models/tiny-llama.gguf', data: ['/data/a.jsonl'], step: 0, nSteps: 100, resumableStep: null, lastLoss: null, lastEvalLoss: null, tokensPerS: null, rowFill: null,
    adapter: null, error: null, segments: 1, ...over,
  };
}

export function runDetail(summary: RunSummary, config: Partial<TrainConfig> = {}): RunDetail {
  return { ...summary, config: { ...DEFAULTS, model: summary.model, data: summary.data, ...config }, folder: `/data/runs/${summary.id}`, tokens: null };
}

/** Step records `from..to` (1-based steps, seq = step + offset), a loss falling like 4/√step. */
export function stepRecords(from: number, to: number, opts: { nSteps?: number; seqOffset?: number; secondsPerStep?: number } = {}): RunEventRecord[] {
  const out: RunEventRecord[] = [];
  for (let step = from; step <= to; step++) {
    out.push({
      seq: step + (opts.seqOffset ?? 0), at: '2026-01-01T10:00:00Z', segment: 0,
      event: { type: 'step', step, nSteps: opts.nSteps ?? 100, loss: 4 / Math.sqrt(step), lr: 1e-4, gradNorm: 1, tokens: 256 * step, positions: 512 * step, lossTokens: 100, tokensPerS: 1000, rowFill: 0.5, elapsedS: step * (opts.secondsPerStep ?? 0.5) },
    });
  }
  return out;
}
