/**
 * The engine host's contract: typed requests, streamed events, results. Parent and host
 * exchange `{id, kind, payload}` requests, `{id, event}` events and `{id, ok, result | error}`
 * replies. No platform imports.
 */
import type { ChatMessage, ChatReply, ChatSampling, ChatWhich } from './chat.ts';
import type { DatasetReport } from './dataset-report.ts';
import type { PlainError } from './errors.ts';

/** Every option of a training run; the CLI flag of each is its kebab-case name. */
export interface TrainConfig {
  model: string;
  data: string[];
  out: string;
  /** Held-out data files (instead of evalSplit). */
  evalData: string[];
  evalSplit: number;
  evalEvery: number;
  rank: number;
  /** LoRA alpha; 0 means 2 * rank. */
  alpha: number;
  targets: string;
  lr: number;
  schedule: 'constant' | 'linear' | 'cosine';
  warmup: number;
  lrMin: number;
  weightDecay: number;
  maxGradNorm: number;
  /** Optimizer steps; 0: use epochs. */
  steps: number;
  epochs: number;
  /** Tokens a row holds; 0: proposed from the data (`suggestedCtx` of its token statistics). */
  ctx: number;
  batch: number;
  /** > 0: a step takes examples while their real tokens fit in this budget (at least one), instead of `batch` examples. */
  batchTokens: number;
  ubatch: number;
  seed: number;
  backend: 'auto' | 'cpu' | 'cuda' | 'metal';
  /** How frozen quantized weights are multiplied on a GPU (docs/training.md). */
  gpuPrecision: 'bf16' | 'f32';
  /** CPU threads; 0: all. */
  threads: number;
  checkpointEvery: number;
  keepCheckpoints: number;
  /** Which tokens carry loss: assistant turns (text: all) or every token. */
  loss: 'assistant' | 'all';
  /** Train on assistant messages marked `weight: 0` too. */
  ignoreWeights: boolean;
  /** What to do with a chat example longer than ctx + 1 tokens. */
  truncate: 'drop' | 'left' | 'right';
  /** A Jinja file used instead of the model's chat template ('' = the model's). */
  chatTemplate: string;
  /** Bytes training may allocate in each memory pool on top of the model and adapter; 0: the pool's free memory. */
  memoryLimit: number;
  /** Time every op (every other step); the op report then carries per-op times. */
  profile: boolean;
  /** Recompute activations in the backward pass (gradient checkpointing): less memory, a slower step, the same gradients. */
  recompute: boolean;
  /**
   * Pack a step's examples into shared rows of ctx positions (attention stays within each
   * example): less padding, the same loss and gradients. Applied where two examples fit in a
   * row and the architecture allows it (docs/training.md).
   */
  pack: boolean;
}

export type LengthPolicy = TrainConfig['truncate'];

/** Token statistics of a rendered dataset (docs/cli.md describes each field). */
export interface TokenStats {
  /** Examples rendered (train + eval). */
  examples: number;
  /** Sequences sent to training (text examples may become several). */
  sequences: number;
  /** Tokens of all sequences, after truncation. */
  tokens: number;
  /** Tokens that carry loss, after truncation. */
  lossTokens: number;
  ctx: number;
  policy: LengthPolicy;
  /** Examples longer than ctx + 1 tokens. */
  overLength: number;
  /** Of those: truncated (kept), dropped (policy drop, or no loss token left). */
  truncated: number;
  dropped: number;
  /** Text examples cut into ctx-sized windows (never truncated). */
  chunked: number;
  /**
   * Every example the context truncates or drops, by file and line: its tokens and loss tokens
   * and how many of those the policy loses (a dropped example loses all).
   */
  affected: Array<{ file: string; line: number; outcome: 'truncated' | 'dropped'; tokens: number; lossTokens: number; lostLossTokens: number }>;
  /** Examples the template could not render, with where they came from. */
  failed: Array<{ file: string; line: number; code: string; message: string }>;
  /**
   * The context proposed for the chat examples (null: none, e.g. only text): the smallest
   * multiple of 64 holding 99% of them whole, at most the model's training context; `covers`:
   * the share of chat examples it holds whole.
   */
  suggestedCtx: { ctx: number; covers: number } | null;
  /** Length histogram of rendered examples (before truncation), power-of-two bins. */
  histogram: Array<{ from: number; to: number; count: number }>;
  lengths: { min: number; median: number; max: number; mean: number };
}

/** One rendered example with its loss spans, for people to check the template and mask. */
export interface Preview {
  source: { file: string; line: number };
  text: string;
  /** Byte-free character ranges [begin, end) of `text` that carry loss. */
  lossSpans: Array<[number, number]>;
  tokens: number;
  lossTokens: number;
}

export interface TemplateInfo {
  source: 'model' | 'override' | 'fallback';
  supportsTools: boolean;
  supportsToolCalls: boolean;
  supportsSystemRole: boolean;
}

export interface InspectResult {
  report: DatasetReport;
  template: TemplateInfo;
  tokens: TokenStats;
  preview: Preview | null;
}

export interface TrainResult {
  adapter: string | null;
  runJson: string | null;
  stopped: boolean;
  step: number;
  lastCheckpoint: string | null;
  finalLoss: number | null;
}

/** The types a merge may re-quantize its merged tensors to (none: each keeps its base type). */
export type MergeType = 'q4_k_m' | 'q5_k_m' | 'q8_0' | 'f16';

export interface MergeResult {
  path: string;
  bytes: number;
  /** Tensors with a LoRA added, re-quantized. */
  merged: number;
  /** Tensors copied byte for byte. */
  copied: number;
  /** Merged tensors written in another type than asked (a row length the type's block does not divide). */
  fallbacks: number;
  /** What the merge did that was not asked: each fallback, a base other than the adapter was trained on. */
  notes: string[];
}

export type EngineEvent =
  | { type: 'phase'; phase: 'scan' | 'load' | 'render' | 'build' | 'train' | 'save'; message: string }
  | {
      type: 'step';
      step: number;
      nSteps: number;
      loss: number;
      lr: number;
      gradNorm: number;
      /** Real (non-padding) input tokens trained on so far, loss-carrying or not. */
      tokens: number;
      /** Positions processed so far: the real tokens and the padding that filled rows. */
      positions: number;
      lossTokens: number;
      /** Real tokens per second of this step; padding never counts. */
      tokensPerS: number;
      /** This step's real tokens / its processed positions (1: rows were full). */
      rowFill: number;
      elapsedS: number;
    }
  | { type: 'eval'; step: number; evalLoss: number; lossTokens: number; nSequences: number }
  | { type: 'checkpoint'; path: string; step: number; microBatch: number }
  /**
   * A checkpoint could not be written (disk full, permission); nothing is lost: training goes on
   * and the next checkpoint tries again. `held`: it was the checkpoint of a stop or pause, so
   * the run waits, its state in memory, for `retry-checkpoint` or `discard`.
   */
  | { type: 'checkpoint-failed'; step: number; microBatch: number; code: string; message: string; lastGood: string | null; held: boolean }
  | { type: 'tokens'; stats: TokenStats }
  | { type: 'host-exited'; reason: string; lastCheckpoint: string | null }
  /** A merge wrote tensor `done` of `total`. */
  | { type: 'merge-progress'; done: number; total: number; tensor: string }
  /** A piece of a chat reply (whole UTF-8 characters), from the base or with the adapter. */
  | { type: 'chat-token'; which: ChatWhich; text: string };

/** What a `chat` request answers (docs/chat.md). */
export interface ChatHostResult {
  template: 'model' | 'fallback';
  backend: string;
  /** The model (and adapter) were already loaded by an earlier request. */
  cached: boolean;
  replies: ChatReply[];
}

export interface Requests {
  inspect: { payload: { model: string; data: string[]; config: Partial<TrainConfig> }; result: InspectResult };
  /**
   * `resume`: a checkpoint of this run, continued bit for bit. `continueFrom`: a checkpoint at a
   * step boundary whose adapter and optimizer state start a new schedule segment of `config`.
   */
  train: { payload: { config: TrainConfig; resume: string | null; continueFrom?: string | null }; result: TrainResult };
  /** Finish the current optimizer step, checkpoint, and end the run. */
  stop: { payload: Record<string, never>; result: { stopping: boolean } };
  /** Stop after the current micro-batch (checkpointing mid-step). */
  cancel: { payload: Record<string, never>; result: { stopping: boolean } };
  /** A run held after its stop could not checkpoint: try writing the checkpoint again. */
  'retry-checkpoint': { payload: Record<string, never>; result: { retrying: boolean } };
  /** A run held after its stop could not checkpoint: end it, resumable from its last good checkpoint. */
  discard: { payload: Record<string, never>; result: { discarding: boolean } };
  /** What this engine build can do (backends, trainable architectures, the engine's defaults). */
  capabilities: { payload: Record<string, never>; result: import('./runs.ts').EngineCapabilities };
  /** Memory per pool and op placement of the graph `config` would train, nothing allocated for compute. */
  plan: { payload: { config: TrainConfig }; result: import('./runs.ts').PlanResult };
  /**
   * base + scale·B·A as a new GGUF at `out` (docs/adapter-format.md): written under a temporary
   * name and renamed; `cancel` stops it and leaves nothing under `out`.
   */
  merge: { payload: { model: string; adapter: string; out: string; type?: MergeType; scale?: number }; result: MergeResult };
  /**
   * A reply to `messages` through llama.cpp with the adapter at `scale` (none: the base), streamed
   * as `chat-token` events; `compare`: the base first, then with the adapter, on one loaded model.
   * The model stays loaded for the next chat of the same files; a `train` frees it. `stop` ends
   * the reply in progress (its text so far is kept, stop 'stopped') and skips the next.
   */
  chat: {
    payload: { model: string; adapter: string | null; scale: number; messages: ChatMessage[]; sampling: ChatSampling; compare: boolean; backend?: 'cpu' | 'auto' | 'cuda' | 'metal'; threads?: number };
    result: ChatHostResult;
  };
}

export type RequestKind = keyof Requests;

export interface RequestMessage<K extends RequestKind = RequestKind> {
  id: number;
  kind: K;
  payload: Requests[K]['payload'];
}

export type HostMessage =
  | { id: number; event: EngineEvent }
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; error: PlainError };
