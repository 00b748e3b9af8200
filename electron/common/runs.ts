/**
 * The run registry's data as every front end sees it (docs/run-folder.md describes the files).
 * No platform imports.
 */
import type { EngineEvent, TokenStats, TrainConfig } from './engine-api.ts';
import type { PlainError } from './errors.ts';

export type RunStatus =
  | 'starting' // the host is loading, rendering, building
  | 'running'
  | 'pausing' // a pause or stop was asked; the current step finishes and checkpoints
  | 'paused'
  | 'stopped'
  | 'finished'
  | 'failed' // ended with an error (detail in `error`); resumable when a checkpoint exists
  | 'interrupted'; // the host died or the machine rebooted mid-run; resumable from `resumableStep`

export interface RunSummary {
  id: string;
  /** Shown in lists: the model and data file names and when it started. */
  title: string;
  status: RunStatus;
  createdAt: string;
  updatedAt: string;
  model: string;
  data: string[];
  step: number;
  nSteps: number;
  /** The newest step a checkpoint holds, or null. */
  resumableStep: number | null;
  lastLoss: number | null;
  lastEvalLoss: number | null;
  /** Real (non-padding) tokens per second over the run so far; null before its first step. */
  tokensPerS: number | null;
  /** Real tokens / processed positions over the run so far (1: no padding); null before its first step. */
  rowFill: number | null;
  /** The adapter file once the run finished. */
  adapter: string | null;
  error: PlainError | null;
  /** Schedule segments: 1 for a run trained once; each `continue` adds one. */
  segments: number;
}

export interface RunDetail extends RunSummary {
  config: TrainConfig;
  folder: string;
  tokens: TokenStats | null;
}

/** One line of a run's events.jsonl: an engine event with its sequence number and time. */
export interface RunEventRecord {
  seq: number;
  at: string;
  /** Schedule segment (0-based) the event belongs to. */
  segment: number;
  event: EngineEvent | { type: 'status'; status: RunStatus; error?: PlainError };
}

export interface DatasetImport {
  /** The files found (a folder expands to its data files). */
  files: string[];
  report: import('./dataset-report.ts').DatasetReport;
}

/** A compute backend present on this machine. */
export interface BackendInfo {
  /** ggml's device name: `CPU`, `CUDA0`, `MTL0`. */
  name: string;
  kind: 'cpu' | 'gpu';
  /** The `backend` setting that selects it (`cpu`, `cuda`, `metal`). */
  request: 'cpu' | 'cuda' | 'metal' | '';
  description: string;
  /** Free memory now (CPU: what the system can give without swapping), and the total. */
  freeBytes: number;
  totalBytes: number;
}

/** What this engine build can do: asked once of the engine host, then cached. */
export interface EngineCapabilities {
  /** Backends present, GPUs first in the order `auto` picks them, the CPU last. */
  backends: BackendInfo[];
  /** Architectures (`general.architecture` names) the training graph supports. */
  trainableArchitectures: string[];
  /** The engine's default for every training option (hone_capabilities_json): the one place. */
  defaults: TrainConfig;
}

/** One memory pool of a plan (ops.json's memory.backends[], docs/ops-json.md). */
export interface PlanPool {
  /** `CPU` (system memory) or a GPU backend (`CUDA0`, `MTL0`). */
  pool: string;
  /** What training would allocate here (the plan to fit). */
  planBytes: number;
  /** Already resident: weights (not mapped) and the adapter. */
  residentBytes: number;
  /** Memory-mapped weights (page cache, never counted against free memory). */
  mappedBytes: number;
  freeBytes: number;
  totalBytes: number;
  /** What planBytes must fit in: free memory, or the memory limit when lower. */
  limitBytes: number;
  fits: boolean;
  /** The plan by kind: adapter, gradient_accumulators, optimizer_state, compute_buffer, ... */
  items: Array<{ what: string; bytes: number; trainer: boolean; mapped: boolean }>;
}

export interface PlanResult {
  fits: boolean;
  /** When it does not fit: the engine's message naming the pool, the sizes and what to lower. */
  notFit: string | null;
  pools: PlanPool[];
  /** ops.json of the graph that would run (`dry_run: true`): op placement, CPU fallbacks and why. */
  ops: unknown;
  /** Milliseconds the plan took, and whether the model was already loaded (the host keeps the last one). */
  elapsedMs: number;
  cached: boolean;
}
