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

/** What this engine build can do: asked once of the engine host, then cached. */
export interface EngineCapabilities {
  /** Backends present on this machine, in the order `auto` picks them (`CPU` last). */
  backends: string[];
  /** Architectures (`general.architecture` names) the training graph supports. */
  trainableArchitectures: string[];
  /** The engine's defaults for every training option (from its *_default_params). */
  defaults: TrainConfig;
}

export interface PlanPool {
  /** The pool: a backend's device memory (CUDA0, MTL0) or host memory (CPU). */
  pool: string;
  weightsBytes: number;
  adapterBytes: number;
  optimizerBytes: number;
  computeBytes: number;
  totalBytes: number;
  /** Free memory of the pool when planned (host: available RAM). */
  freeBytes: number;
  fits: boolean;
}

export interface PlanResult {
  fits: boolean;
  pools: PlanPool[];
  /** ops.json of the graph that would run (`dry_run: true`). */
  ops: unknown;
  /** Milliseconds the plan took, and whether the model load was a cache hit. */
  elapsedMs: number;
  cached: boolean;
}
