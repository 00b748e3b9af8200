/**
 * run.json, schema "hone.run/1" (docs/run-json.md): what a finished run leaves, with the same
 * fields hone-train writes (native/cli/run_json.cpp). `data.report`, `data.tokens` and
 * `template` are the app's extras: it reads datasets through the dataset layer.
 */
import type { TemplateInfo, TokenStats, TrainConfig } from '../common/engine-api.ts';
import type { DatasetReport } from '../common/dataset-report.ts';
import type { ModelInfo } from './binding.ts';

export interface RunJsonInput {
  status: 'completed' | 'stopped';
  config: TrainConfig;
  resumedFrom: string | null;
  model: ModelInfo;
  adapter: { path: string; nParams: number };
  report: DatasetReport;
  sequences: number;
  evalSequences: number;
  tokens: TokenStats;
  template: TemplateInfo;
  last: { loss: number; step: number; tokens: number; positions: number; elapsedS: number } | null;
  evalLoss: number | null;
  steps: number;
  lastCheckpoint: string | null;
  /** ops.json's memory part (hone_trainer_memory_report), as the engine writes it. */
  memory: unknown;
}

export function runJson(r: RunJsonInput) {
  const l = r.last;
  return {
    schema: 'hone.run/1',
    writer: 'hone',
    status: r.status,
    // as it ran: alpha 0 means 2 * rank, ubatch 0 the trainer's automatic choice; with a step
    // count, epochs play no part
    config: {
      ...r.config,
      alpha: r.config.alpha || 2 * r.config.rank,
      ubatch: (r.memory as { ubatch?: number } | null)?.ubatch || r.config.ubatch || r.config.batch,
      epochs: r.config.steps > 0 ? 0 : r.config.epochs,
    },
    resumedFrom: r.resumedFrom,
    model: { path: r.config.model, ...r.model },
    adapter: r.adapter,
    data: { format: r.report.format, sequences: r.sequences, evalSequences: r.evalSequences, report: { records: r.report.records, split: r.report.split }, tokens: r.tokens },
    metrics: {
      finalLoss: l?.loss ?? null,
      evalLoss: r.evalLoss,
      steps: r.steps,
      tokens: l?.tokens ?? 0,
      positions: l?.positions ?? 0,
      elapsedS: l?.elapsedS ?? 0,
      // real tokens only: padding is in positions, never in tokens
      tokensPerS: l && l.elapsedS > 0 ? l.tokens / l.elapsedS : 0,
      rowFill: l && l.positions > 0 ? l.tokens / l.positions : 0,
      peakRssMib: process.resourceUsage().maxRSS / 1024,
    },
    lastCheckpoint: r.lastCheckpoint,
    memory: r.memory,
    template: r.template,
  };
}
