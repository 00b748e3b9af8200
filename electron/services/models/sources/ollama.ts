/**
 * Ollama's store (`$OLLAMA_MODELS`, else `~/.ollama/models`): one JSON manifest per tag at
 * `manifests/<registry>/<namespace>/<name>/<tag>`, whose `layers[]` name content-addressed
 * blobs at `blobs/sha256-<hex>`. The layer of media type `application/vnd.ollama.image.model`
 * is the GGUF; projector and adapter layers are other files and are not listed. Names follow
 * Ollama's shortest form: `name:tag`, `namespace/name:tag` outside `library`, and
 * `registry/namespace/name:tag` outside `registry.ollama.ai`.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ModelFileError } from '../../../common/models.ts';
import type { Candidate } from '../candidates.ts';
import { reason } from '../fs-errors.ts';
import { readFolder } from '../walk.ts';

const MODEL_LAYER = 'application/vnd.ollama.image.model';
const DEFAULT_REGISTRY = 'registry.ollama.ai';
const DEFAULT_NAMESPACE = 'library';
/** Manifests are a few hundred bytes; anything much larger is not one. */
const MAX_MANIFEST_BYTES = 1024 * 1024;
const DIGEST = /^sha256[:-]([0-9a-f]{64})$/;

export async function ollamaCandidates(rootIndex: number, store: string, warnings: string[]): Promise<Candidate[]> {
  const out: Candidate[] = [];
  const manifests = join(store, 'manifests');
  const subfolders = async (dir: string) =>
    (await readFolder(dir, warnings, true)).filter((e) => !e.name.startsWith('.') && (e.isDirectory() || e.isSymbolicLink()));
  for (const registry of await subfolders(manifests)) {
    for (const namespace of await subfolders(join(manifests, registry.name))) {
      for (const model of await subfolders(join(manifests, registry.name, namespace.name))) {
        const dir = join(manifests, registry.name, namespace.name, model.name);
        for (const tag of await readFolder(dir, warnings)) {
          if (tag.name.startsWith('.') || tag.isDirectory()) continue;
          const displayName = ollamaName(registry.name, namespace.name, model.name, tag.name);
          const found = await resolveManifest(store, join(dir, tag.name), displayName, warnings);
          if (found) out.push({ source: 'ollama', root: rootIndex, displayName, ...found });
        }
      }
    }
  }
  return out;
}

export function ollamaName(registry: string, namespace: string, model: string, tag: string): string {
  if (registry !== DEFAULT_REGISTRY) return `${registry}/${namespace}/${model}:${tag}`;
  if (namespace !== DEFAULT_NAMESPACE) return `${namespace}/${model}:${tag}`;
  return `${model}:${tag}`;
}

/** The model blob of one manifest; an entry with an error when the manifest or blob is wrong; null when it has no model layer. */
async function resolveManifest(
  store: string,
  manifestPath: string,
  name: string,
  warnings: string[],
): Promise<{ paths: string[]; error?: ModelFileError } | null> {
  const broken = (code: ModelFileError['code'], message: string) => ({ paths: [manifestPath], error: { code, message: `${manifestPath}: ${message}` } });
  let text: string;
  try {
    const info = await stat(manifestPath);
    if (info.size > MAX_MANIFEST_BYTES) return broken('bad_format', `${info.size} bytes, too large for an Ollama manifest of ${name}`);
    text = await readFile(manifestPath, 'utf8');
  } catch (err) {
    return broken('io_error', `cannot read the manifest of ${name}: ${reason(err)}`);
  }
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch (err) {
    return broken('bad_format', `the manifest of ${name} is not JSON: ${(err as Error).message}`);
  }
  const layers = (manifest as { layers?: unknown })?.layers;
  if (!Array.isArray(layers)) return broken('bad_format', `the manifest of ${name} has no layers array`);
  const index = layers.findIndex((l) => (l as { mediaType?: unknown })?.mediaType === MODEL_LAYER);
  if (index < 0) {
    warnings.push(`${manifestPath}: ${name} has no layer of type ${MODEL_LAYER}; not a model, skipped`);
    return null;
  }
  const digest = (layers[index] as { digest?: unknown }).digest;
  const hex = typeof digest === 'string' ? DIGEST.exec(digest)?.[1] : undefined;
  if (!hex) return broken('bad_format', `layers[${index}].digest of ${name} is ${JSON.stringify(digest)}, not sha256:<64 hex digits>`);
  const blob = join(store, 'blobs', `sha256-${hex}`);
  try {
    await stat(blob);
  } catch (err) {
    return { paths: [blob], error: { code: 'io_error', message: `${blob}: the model blob of ${name} (manifest ${manifestPath}) is missing or unreadable: ${reason(err)}` } };
  }
  return { paths: [blob] };
}
