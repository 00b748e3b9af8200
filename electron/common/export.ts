/**
 * Exports of a trained adapter (docs/export.md): what a caller asks for, what comes back and the
 * progress in between, as plain data that crosses IPC, the WebSocket and CLI output unchanged.
 * No platform imports.
 */

/** Every export format, in the order the docs list them. */
export const EXPORT_FORMATS = ['gguf', 'peft', 'merged', 'ollama', 'axolotl'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** What a merged model's merged tensors are re-quantized to (the base's own type when none is given). */
export const MERGE_TYPES = ['q4_k_m', 'q5_k_m', 'q8_0', 'f16'] as const;
export type MergeType = (typeof MERGE_TYPES)[number];

/** How a GGUF adapter stores its A and B tensors (the trainer writes F32). */
export const ADAPTER_STORAGES = ['f32', 'f16', 'q8_0'] as const;
export type AdapterStorage = (typeof ADAPTER_STORAGES)[number];

/**
 * One export. The source is a run (`run`: a run id of the data folder, or the absolute path of a
 * run folder: one with config.json and adapter.gguf) or an adapter file with its base model
 * (`adapter` + `model`), never both.
 */
export interface ExportRequest {
  run?: string;
  adapter?: string;
  model?: string;
  format: ExportFormat;
  /**
   * Where to write: a folder (made by the export); for `gguf` and `merged` also a file name
   * ending in `.gguf`. Default with a run: `<run folder>/exports/<format>[-<type or storage>]`;
   * required without one. An existing folder is replaced only when it is an earlier export.
   */
  out?: string;
  /** `merged` only: what the merged tensors are re-quantized to. */
  type?: MergeType;
  /** `gguf` only: how A and B are stored (default f32, as trained). */
  storage?: AdapterStorage;
}

export interface ExportedFile {
  path: string;
  bytes: number;
  /** What the file is, in a few words (`the LoRA adapter, llama.cpp's GGUF`). */
  role: string;
}

export interface ExportResult {
  format: ExportFormat;
  /** The folder written, or the file for a `.gguf` out. */
  out: string;
  files: ExportedFile[];
  /** Commands that use the export, exact (ollama: `ollama create …`), in the order to try them. */
  commands: string[];
  /**
   * What the user should know about this export: a tensor kept at F16 because Q8_0 does not fit
   * its rows, a base model whose Hugging Face name the GGUF does not say, a variant that needs
   * the engine's merge.
   */
  notes: string[];
}

/** Progress of a slow export (merging, copying tensors, writing a dataset), as a ServiceEvent. */
export interface ExportProgress {
  type: 'export-progress';
  format: ExportFormat;
  /** The final path the export writes (its result's `out`): which export this is. */
  out: string;
  /** What is being done now: `tensors` (converting or merging), `dataset` (records written). */
  stage: 'tensors' | 'merge' | 'dataset';
  done: number;
  total: number;
  /** The tensor or file being worked on, when there is one. */
  item?: string;
}

/** The default folder name under `<run folder>/exports/` for a request. */
export function defaultExportName(request: Pick<ExportRequest, 'format' | 'type' | 'storage'>): string {
  const variant = request.format === 'merged' ? request.type : request.format === 'gguf' ? request.storage : undefined;
  return variant ? `${request.format}-${variant}` : request.format;
}
