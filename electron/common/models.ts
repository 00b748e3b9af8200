/**
 * The model list's contract: what `models.list()` and `models.inspect(path)` return, as plain
 * data that crosses IPC, the WebSocket and CLI output unchanged (docs/models.md describes every
 * field). No platform imports.
 */

/** Where a model was found. */
export type ModelSource = 'lmstudio' | 'ollama' | 'huggingface' | 'folder';

/** Why a file could not be read as a model: its format (`bad_format`) or the file system (`io_error`). */
export interface ModelFileError {
  code: 'bad_format' | 'io_error';
  /** Names the file and what is wrong with it. */
  message: string;
}

/** What the tensors are stored as. */
export interface ModelQuantization {
  /** `general.file_type` named as llama.cpp names it (`Q4_K_M`, `F16`, `ALL_F32`); null when the key is absent. */
  fileType: string | null;
  /** The ggml type holding the most parameters (`Q4_K` for a Q4_K_M file); null without tensors. */
  dominantType: string | null;
  /** How many tensors each ggml type holds, by type name (`{F32: 65, Q4_K: 193, Q6_K: 33}`). */
  tensorTypes: Record<string, number>;
}

export interface ListedModel {
  /** Stable key: the real path of the (first) file, symlinks resolved. */
  id: string;
  /** What people call it: `publisher/repo/file.gguf`, `name:tag`, `org/name/file.gguf`, or the file's path in its folder. */
  displayName: string;
  source: ModelSource;
  /** The file to load (the first part of a split model), as found (a Hugging Face snapshot link stays a link). */
  path: string;
  /** Every part in order; one entry for a single file. */
  paths: string[];
  /** Bytes of all parts together. */
  fileSize: number;
  /** Last modification of the first part, ms since the epoch. */
  modifiedMs: number;
  /** Other names of the same file (an Ollama tag that points to the same blob, a second revision). */
  aliases: string[];
  /** `general.architecture` (`llama`, `qwen3`, `clip`…). */
  architecture: string | null;
  /** `general.name`. */
  name: string | null;
  /** `general.type` (`model`, `adapter`…); null when absent (most base models). */
  fileKind: string | null;
  /** Elements of all tensors of all parts. */
  parameters: number | null;
  tensorCount: number | null;
  quantization: ModelQuantization | null;
  /** `<arch>.context_length`. */
  contextLength: number | null;
  /** `<arch>.block_count`. */
  layers: number | null;
  /** `<arch>.embedding_length`. */
  embeddingSize: number | null;
  /** The file carries `tokenizer.chat_template`. */
  hasChatTemplate: boolean;
  /** Whether the engine can train a LoRA on it; null when the engine's list was not given. */
  trainable: boolean | null;
  /** Why not, when `trainable` is false. */
  trainableReason?: string;
  /** Set when the file (or a part, manifest or blob) could not be read; the facts above are then null. */
  error?: ModelFileError;
}

/** A place that was searched. */
export interface ModelRoot {
  source: ModelSource;
  path: string;
  /** Whether the folder exists (LM Studio's folder is absent where LM Studio was never installed). */
  exists: boolean;
  /** Models listed from it (after removing files already listed from another root). */
  found: number;
}

export interface ModelList {
  /** Sorted by display name. */
  models: ListedModel[];
  /** Folders that could not be read and other notes; the scan goes on past each. */
  warnings: string[];
  roots: ModelRoot[];
}

/** Options of `models.list()`. */
export interface ListModelsOptions {
  /** Folders the user added, absolute paths, scanned recursively. */
  folders?: string[];
  /** Architectures the engine trains; without it `trainable` is null unless the file is not a language model. */
  trainableArchitectures?: string[];
}
