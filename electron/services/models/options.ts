/** Options of the model list, checked before anything is read. */
import { homedir } from 'node:os';
import { isAbsolute } from 'node:path';
import { HoneError } from '../../common/errors.ts';
import type { ListModelsOptions } from '../../common/models.ts';
import { DEFAULT_MAX_HEADER_BYTES } from './gguf-header.ts';

export interface DiscoveryOptions extends ListModelsOptions {
  /** The home folder the standard places are under (default `os.homedir()`). */
  home?: string;
  /** Environment read for OLLAMA_MODELS, HF_HUB_CACHE, HF_HOME (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** Headers read at the same time. */
  concurrency?: number;
  /** Largest header accepted, bytes. */
  maxHeaderBytes?: number;
}

export interface ResolvedDiscovery {
  home: string;
  env: Record<string, string | undefined>;
  folders: string[];
  trainable: ReadonlySet<string> | null;
  concurrency: number;
  maxHeaderBytes: number;
}

export function resolveDiscovery(options: DiscoveryOptions): ResolvedDiscovery {
  const bad = (message: string) => new HoneError('invalid_argument', `model list: ${message}`);
  if (options === null || typeof options !== 'object') throw bad('options must be an object');
  const home = options.home ?? homedir();
  if (typeof home !== 'string' || !isAbsolute(home)) throw bad(`home must be an absolute path, got ${JSON.stringify(home)}`);
  const env = options.env ?? process.env;
  if (env === null || typeof env !== 'object') throw bad('env must be an object of strings');
  const folders = options.folders ?? [];
  if (!Array.isArray(folders)) throw bad('folders must be an array of absolute paths');
  folders.forEach((f, i) => {
    if (typeof f !== 'string' || !isAbsolute(f)) throw bad(`folders[${i}] must be an absolute path, got ${JSON.stringify(f)}`);
  });
  let trainable: Set<string> | null = null;
  if (options.trainableArchitectures !== undefined) {
    const list = options.trainableArchitectures;
    if (!Array.isArray(list)) throw bad('trainableArchitectures must be an array of architecture names');
    list.forEach((a, i) => {
      if (typeof a !== 'string' || a === '') throw bad(`trainableArchitectures[${i}] must be a non-empty string, got ${JSON.stringify(a)}`);
    });
    trainable = new Set(list);
  }
  const concurrency = options.concurrency ?? 4;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) throw bad(`concurrency must be an integer from 1 to 64, got ${concurrency}`);
  const maxHeaderBytes = options.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES;
  if (!Number.isInteger(maxHeaderBytes) || maxHeaderBytes < 1024) throw bad(`maxHeaderBytes must be an integer of at least 1024, got ${maxHeaderBytes}`);
  return { home, env, folders, trainable, concurrency, maxHeaderBytes };
}
