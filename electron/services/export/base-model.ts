/**
 * What an export needs to know of the base model, from its GGUF header alone: that the adapter
 * fits it (every mismatch named in one error), its head counts (to undo llama.cpp's Q/K
 * permutation) and its Hugging Face name when the file says it.
 */
import { HoneError } from '../../common/errors.ts';
import { readGgufHeader, type GgufHeader, type GgufValue } from '../models/gguf-header.ts';
import { kvString, type AdapterFile } from './adapter-file.ts';

export interface BaseModel {
  path: string;
  header: GgufHeader;
  architecture: string;
  /** `org/name` on the Hugging Face hub, when the GGUF names its source there. */
  hfName: string | null;
  /** `general.name` / `general.basename`, for messages. */
  name: string | null;
}

/** Per-layer arrays (head counts) are kept whole; vocabularies, far longer, are not. */
const KEPT_ITEMS = 4096;

export async function readBaseModel(path: string): Promise<BaseModel> {
  const header = await readGgufHeader(path, { keptArrayItems: KEPT_ITEMS });
  const architecture = kvString(header.kv, 'general.architecture');
  if (!architecture) throw new HoneError('bad_format', `${path}: the base model has no general.architecture`);
  return { path, header, architecture, hfName: hfNameOf(header.kv), name: kvString(header.kv, 'general.basename') ?? kvString(header.kv, 'general.name') ?? null };
}

/** `org/name` from a Hugging Face address (`https://huggingface.co/org/name`), or null. */
export function hfRepoOf(url: string): string | null {
  const m = /^(?:https?:\/\/)?(?:www\.)?(?:huggingface\.co|hf\.co)\/(?!datasets\/|spaces\/)([A-Za-z0-9][\w.-]*\/[\w.-]+?)(?:\.git)?\/?$/.exec(url.trim());
  return m ? m[1] : null;
}

/**
 * The model's own Hugging Face repository, from the keys convert_hf_to_gguf.py writes:
 * `general.source.repo_url` (or `general.repo_url`) when it is a Hugging Face address, and the
 * older `general.source.huggingface.repository`. `general.base_model.*` names the model this one
 * was made from, not this one, so it is not used.
 */
export function hfNameOf(kv: Map<string, GgufValue>): string | null {
  for (const key of ['general.source.repo_url', 'general.repo_url', 'general.source.url', 'general.url']) {
    const v = kvString(kv, key);
    const repo = v ? hfRepoOf(v) : null;
    if (repo) return repo;
  }
  const old = kvString(kv, 'general.source.huggingface.repository');
  return old && /^[\w.-]+\/[\w.-]+$/.test(old) ? old : null;
}

/** Throws `adapter_mismatch` naming every mismatch when `adapter` was not made for `model`. */
export function checkAdapterFits(adapter: AdapterFile, model: BaseModel): void {
  if (adapter.architecture !== model.architecture) {
    throw new HoneError('adapter_mismatch', `${adapter.path}: the adapter is for architecture '${adapter.architecture}' but the base model ${model.path} is '${model.architecture}'`, {
      adapter: adapter.architecture,
      model: model.architecture,
    });
  }
  const weights = new Map(model.header.tensors.map((t) => [t.name, t]));
  const problems: string[] = [];
  for (const p of adapter.pairs) {
    const w = weights.get(p.base);
    if (!w) problems.push(`'${p.base}' is not a tensor of the base model`);
    else if (w.dims[0] !== p.a.dims[0] || (w.dims[1] ?? 1) !== p.b.dims[1]) {
      problems.push(`'${p.base}' is [${w.dims}] in the base model but the adapter's A/B make [${p.a.dims[0]}, ${p.b.dims[1]}]`);
    }
  }
  if (problems.length) {
    const shown = problems.slice(0, 8).join('; ') + (problems.length > 8 ? `; and ${problems.length - 8} more` : '');
    throw new HoneError('adapter_mismatch', `${adapter.path}: the adapter does not fit the base model ${model.path}: ${shown}`, { problems });
  }
}

/** The head count of layer `layer` for `key` (a number, or one per layer), or null when absent. */
export function perLayer(model: BaseModel, key: string, layer: number): number | null {
  const v = model.header.kv.get(`${model.architecture}.${key}`);
  if (typeof v === 'number') return v;
  if (Array.isArray(v) && typeof v[layer] === 'number') return v[layer] as number;
  return null;
}
