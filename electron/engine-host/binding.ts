/**
 * The native addon's typed surface (native/bin/hone.node). Only the engine host loads it.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { HoneError } from '../common/errors.ts';
import { findUp } from '../services/locate.ts';

export interface ModelInfo {
  arch: string;
  name: string;
  backend: string;
  /** 'bf16' or 'f32' on a GPU backend that honours it, '' elsewhere. */
  gpuPrecision: string;
  nLayer: number;
  nEmbd: number;
  nFf: number;
  nHead: number;
  nHeadKv: number;
  headDim: number;
  tiedOutput: boolean;
  nVocab: number;
  nCtxTrain: number;
  nParams: number;
  weightBytes: number;
}

export interface Rendered {
  tokens: Int32Array;
  mask: Uint8Array;
  /** With {text: true}: the rendered text and each token's [begin, end) bytes in it. */
  text?: string;
  spans?: Int32Array;
}

export type RenderOutcome = Rendered | { error: { code: string; message: string } };

export interface NativeRenderer {
  info(): { source: 'model' | 'override' | 'fallback'; supportsTools: boolean; supportsToolCalls: boolean; supportsSystemRole: boolean; template: string };
  renderBatch(examples: string[], options?: { text?: boolean }): Promise<RenderOutcome[]>;
  dispose(): void;
}

export interface NativeModel {
  info(): ModelInfo;
  tokenize(text: string, addBos?: boolean): Int32Array;
  createRenderer(options?: { chatTemplate?: string; loss?: 'assistant' | 'all'; ignoreWeights?: boolean }): NativeRenderer;
  dispose(): void;
}

export interface NativeAdapter {
  save(path: string): Promise<void>;
  nParams(): number;
  dispose(): void;
}

export interface TrainerParams {
  nCtx?: number;
  nBatch?: number;
  /** Rows a micro-batch holds; 0 (the default): automatic, the most up to nStepRows whose plan fits. */
  nUbatch?: number;
  /** The most rows a step fills (stepRows): the automatic micro-batch's bound; 0: nBatch. */
  nStepRows?: number;
  nSteps?: number;
  nEpochs?: number;
  lr?: number;
  lrSchedule?: 'constant' | 'linear' | 'cosine';
  warmupSteps?: number;
  lrMin?: number;
  weightDecay?: number;
  maxGradNorm?: number;
  seed?: number;
  evalEvery?: number;
  checkpointDir?: string;
  checkpointEvery?: number;
  keepCheckpoints?: number;
  runConfig?: string;
  /** Build, schedule and plan the graphs; allocate no compute buffer (such a trainer only reports). */
  dryRun?: boolean;
  /** Per-node wall time in the op report (every other step is profiled). */
  profile?: boolean;
  /** Bytes training may allocate per memory pool on top of the model and adapter; 0: the pool's free memory. */
  memoryLimit?: number;
  /** Activation recomputation (gradient checkpointing): less memory, the same gradients. */
  recompute?: boolean;
  pack?: boolean;
  nBatchTokens?: number;
  /** Tests only: ops (ggml names, comma-separated) a stand-in primary backend refuses, so they fall back to the CPU. */
  testRefuseOps?: string;
}

export interface Sequence {
  tokens: Int32Array;
  mask?: Uint8Array;
}

export type NativeEvent =
  | { type: 'step'; step: number; nSteps: number; loss: number; lr: number; gradNorm: number; clipScale: number; tokens: number; positions: number; lossTokens: number; tokensPerS: number; rowFill: number; elapsedS: number }
  | { type: 'eval'; step: number; evalLoss: number; lossTokens: number; nSequences: number }
  | { type: 'checkpoint'; path: string; step: number; microBatch: number }
  | { type: 'checkpoint-failed'; step: number; microBatch: number; code: string; message: string };

export interface NativeTrainer {
  resume(checkpointDir: string): Promise<number>;
  /** Writes a checkpoint of the state now (the retry after one failed); resolves with its folder. */
  saveCheckpoint(): Promise<string>;
  /** A new schedule segment from a step-boundary checkpoint (hone_trainer_continue); resolves with the step count. */
  continueFrom(checkpointDir: string): Promise<number>;
  train(data: { train: Sequence[]; eval?: Sequence[] }, onEvent?: (e: NativeEvent) => void): Promise<{ stopped: boolean; step: number }>;
  /** Finish the current optimizer step, checkpoint, resolve with stopped: true. */
  stop(): void;
  /** Stop after the current micro-batch (checkpointing mid-step). */
  cancel(): void;
  step(): number;
  /** ops.json (docs/ops-json.md) as JSON text; not while train() runs. */
  opReport(): string;
  /** ops.json's `memory` part as JSON text; not while train() runs. */
  memoryReport(): string;
  /** Throws out_of_memory (naming the pool, the sizes and what to lower) when a real run would not fit. */
  checkMemory(): void;
  dispose(): void;
}

export interface NativeMergeProgress {
  done: number;
  total: number;
  tensor: string;
  merged: boolean;
}

export interface NativeChatReply {
  text: string;
  promptTokens: number;
  replyTokens: number;
  stop: 'eos' | 'max_tokens' | 'context' | 'stopped';
  template: 'model' | 'fallback';
}

/** hone_chat: llama.cpp inference on a base with an optional adapter (docs/chat.md). */
export interface NativeChat {
  info(): { backend: string; template: 'model' | 'fallback'; nCtx: number; hasAdapter: boolean };
  /**
   * One reply to `messagesJson` (a JSON array of {role, content}). onPiece gets every piece in
   * order, all before the Promise settles; returning false stops the reply (stop 'stopped').
   */
  generate(
    messagesJson: string,
    sampling: { maxTokens?: number; scale?: number; greedy?: boolean; temperature?: number; topP?: number; seed?: number },
    onPiece?: (text: string) => boolean | void,
  ): Promise<NativeChatReply>;
  /** Ends the reply in progress; true when there was one. */
  stop(): boolean;
  dispose(): void;
}

export interface HoneAddon {
  Model: { load(o: { path: string; backend?: string; gpuPrecision?: string; threads?: number }): Promise<NativeModel> };
  Adapter: {
    create(model: NativeModel, o: { rank?: number; alpha?: number; targets?: string; seed?: number }): NativeAdapter;
    load(model: NativeModel, path: string): Promise<NativeAdapter>;
  };
  Trainer: { create(model: NativeModel, adapter: NativeAdapter, params: TrainerParams): Promise<NativeTrainer> };
  Chat: { load(o: { model: string; adapter?: string; backend?: string; threads?: number; ctx?: number }): Promise<NativeChat> };
  /**
   * hone_merge: the adapter merged into the model as a new GGUF. onProgress follows every tensor;
   * returning false cancels (a rejection with code 'cancelled', nothing left under `out`).
   */
  merge(
    params: { model: string; adapter: string; out: string; type?: string; scale?: number; threads?: number },
    onProgress?: (p: NativeMergeProgress) => boolean | void,
  ): Promise<{ path: string; bytes: number; merged: number; copied: number; fallbacks: number; notes: string[] }>;
  /** hone_capabilities_json: backends, trainable architectures, defaults (snake_case keys). */
  capabilities(): string;
  /** hone_text_windows: where a text of nTokens is cut into windows of ctx + 1 tokens (overlap 1). */
  textWindows(nTokens: number, ctx: number): Int32Array;
  /** hone_packing_helps: whether packing would put two of these sequences (token counts) in one row. */
  packingHelps(lengths: Int32Array, ctx: number): boolean;
  /** hone_suggest_context: the context holding 99% of sequences of these token counts whole, a multiple of 64, at most `cap`. */
  suggestContext(lengths: Int32Array, cap: number): number;
  /** hone_step_rows: the most rows a step of these sequences (token counts) fills, as these params take them. */
  stepRows(lengths: Int32Array, params: Pick<TrainerParams, 'nCtx' | 'nBatch' | 'nBatchTokens' | 'seed' | 'pack'>): number;
  napiVersion: number;
}

const BUILT = join('native', 'bin', 'hone.node');

/**
 * Where the addon may be, in the order tried: $HONE_ADDON alone when set; else native/bin/hone.node
 * in the nearest folder above this file (a checkout, running from electron/ or from out/build/),
 * then <resources>/native/hone.node in a packaged app.
 */
export function addonCandidates(): string[] {
  if (process.env.HONE_ADDON) return [resolve(process.env.HONE_ADDON)];
  const root = findUp(BUILT);
  const resources = (process as { resourcesPath?: string }).resourcesPath;
  return [root ? join(root, BUILT) : null, resources ? join(resources, 'native', 'hone.node') : null].filter((p): p is string => p !== null);
}

/** The addon file to load, or null when none of the candidates exists. */
export function addonPath(): string | null {
  return addonCandidates().find((p) => existsSync(p)) ?? null;
}

export function loadAddon(): HoneAddon {
  const p = addonPath();
  if (!p) {
    const looked = process.env.HONE_ADDON ? `HONE_ADDON=${process.env.HONE_ADDON}` : [`${BUILT} above ${import.meta.url}`, ...addonCandidates()].join(', ');
    throw new HoneError('internal', `the native addon hone.node is missing (looked at ${looked}): run \`npm run build:native\` first`);
  }
  return createRequire(import.meta.url)(p) as HoneAddon;
}
