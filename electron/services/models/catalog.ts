/**
 * The list of models already on the machine (docs/models.md). `list()` searches every root,
 * reads each model's header (a few at a time) and keeps what it read per file, keyed by real
 * path, size and modification time, so a second list reads only files that changed.
 * `inspect(path)` describes one file the user picked or dropped.
 */
import { constants } from 'node:fs';
import { access, readdir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { HoneError, toPlain } from '../../common/errors.ts';
import type { ListedModel, ModelFileError, ModelList, ModelRoot } from '../../common/models.ts';
import { groupSplitFiles, parseSplitName, type Candidate } from './candidates.ts';
import { reason } from './fs-errors.ts';
import { readGgufHeader, type GgufHeader } from './gguf-header.ts';
import { resolveDiscovery, type DiscoveryOptions, type ResolvedDiscovery } from './options.ts';
import { mapLimit } from './pool.ts';
import { modelRoots, type Root } from './roots.ts';
import { ggufFolderCandidates } from './sources/gguf-folder.ts';
import { huggingFaceCandidates } from './sources/huggingface.ts';
import { ollamaCandidates } from './sources/ollama.ts';
import { splitKeysProblem } from './split-keys.ts';
import { summarize, type ModelFacts } from './summary.ts';
import { decideTrainable } from './trainable.ts';

/** Folder levels searched below LM Studio's folder (publisher/repo/file is 2) and below an added folder. */
const LMSTUDIO_DEPTH = 4;
const FOLDER_DEPTH = 8;

interface PartRead {
  size: number;
  mtimeMs: number;
  header?: GgufHeader;
  error?: ModelFileError;
}

export class ModelCatalog {
  private cache = new Map<string, PartRead>();

  /** `defaults` apply to every call; a call's own options override them. */
  constructor(private defaults: DiscoveryOptions = {}) {}

  async list(options: DiscoveryOptions = {}): Promise<ModelList> {
    const opts = resolveDiscovery({ ...this.defaults, ...options });
    const warnings: string[] = [];
    const roots: ModelRoot[] = [];
    const found: Candidate[] = [];
    for (const [index, root] of modelRoots(opts.home, opts.env, opts.folders).entries()) {
      const exists = await isFolder(root, warnings);
      roots.push({ source: root.source, path: root.path, exists, found: 0 });
      if (exists) found.push(...(await candidatesIn(root, index, warnings)));
    }

    // One entry per real file: the first root to reach it names it, later names are aliases.
    const byId = new Map<string, { candidate: Candidate; aliases: string[] }>();
    for (const candidate of found) {
      const id = await realpath(candidate.paths[0]).catch(() => candidate.paths[0]);
      const prior = byId.get(id);
      if (!prior) byId.set(id, { candidate, aliases: [] });
      else if (candidate.displayName !== prior.candidate.displayName && !prior.aliases.includes(candidate.displayName)) {
        prior.aliases.push(candidate.displayName);
      }
    }
    const entries = [...byId.entries()];
    const models = await mapLimit(entries, opts.concurrency, ([id, { candidate, aliases }]) => this.describe(id, candidate, aliases, opts));
    for (const [, { candidate }] of entries) roots[candidate.root].found++;
    models.sort((a, b) => compare(a.displayName.toLowerCase(), b.displayName.toLowerCase()) || compare(a.id, b.id));
    return { models, warnings, roots };
  }

  /** One file, with its other parts when it is part of a split model; throws `io_error` when the path is not a readable file. */
  async inspect(path: string, options: DiscoveryOptions = {}): Promise<ListedModel> {
    const opts = resolveDiscovery({ ...this.defaults, ...options });
    if (typeof path !== 'string' || !isAbsolute(path)) {
      throw new HoneError('invalid_argument', `model inspect: the path must be an absolute path, got ${JSON.stringify(path)}`);
    }
    let info;
    try {
      info = await stat(path);
    } catch (err) {
      throw new HoneError('io_error', `${path}: ${reason(err)}`);
    }
    if (!info.isFile()) throw new HoneError('io_error', `${path}: not a file${info.isDirectory() ? ' (a folder)' : ''}`);
    try {
      await access(path, constants.R_OK);
    } catch (err) {
      throw new HoneError('io_error', `${path}: cannot be read: ${reason(err)}`);
    }
    const group = await splitSiblings(path);
    const candidate: Candidate = { source: 'folder', root: -1, displayName: basename(group.paths[0]), ...group };
    const id = await realpath(candidate.paths[0]).catch(() => candidate.paths[0]);
    return this.describe(id, candidate, [], opts);
  }

  private async describe(id: string, candidate: Candidate, aliases: string[], opts: ResolvedDiscovery): Promise<ListedModel> {
    const parts: PartRead[] = [];
    for (const path of candidate.paths) parts.push(await this.readPart(path, opts));
    const firstError = candidate.error ?? parts.find((p) => p.error)?.error;
    let facts: ModelFacts | null = null;
    let error = firstError;
    if (!error) {
      const headers = parts.map((p) => p.header!);
      error = splitKeysProblem(candidate.paths, headers) ?? undefined;
      if (!error) facts = summarize(headers);
    }
    const model: ListedModel = {
      id,
      displayName: candidate.displayName,
      source: candidate.source,
      path: candidate.paths[0],
      paths: candidate.paths,
      fileSize: parts.reduce((n, p) => n + p.size, 0),
      modifiedMs: parts[0]?.mtimeMs ?? 0,
      aliases,
      architecture: facts?.architecture ?? null,
      name: facts?.name ?? null,
      fileKind: facts?.fileKind ?? null,
      parameters: facts?.parameters ?? null,
      tensorCount: facts?.tensorCount ?? null,
      quantization: facts?.quantization ?? null,
      contextLength: facts?.contextLength ?? null,
      layers: facts?.layers ?? null,
      embeddingSize: facts?.embeddingSize ?? null,
      hasChatTemplate: facts?.hasChatTemplate ?? false,
      ...decideTrainable(facts, error, opts.trainable),
    };
    if (error) model.error = error;
    return model;
  }

  /** The header of one file, from the cache when its size and modification time are unchanged. */
  private async readPart(path: string, opts: ResolvedDiscovery): Promise<PartRead> {
    let info;
    try {
      info = await stat(path);
    } catch (err) {
      return { size: 0, mtimeMs: 0, error: { code: 'io_error', message: `${path}: ${reason(err)}` } };
    }
    const key = await realpath(path).catch(() => path);
    const cached = this.cache.get(key);
    if (cached && cached.size === info.size && cached.mtimeMs === info.mtimeMs) return cached;
    let read: PartRead;
    try {
      read = { size: info.size, mtimeMs: info.mtimeMs, header: await readGgufHeader(path, { maxHeaderBytes: opts.maxHeaderBytes }) };
    } catch (err) {
      const plain = toPlain(err);
      const code = plain.code === 'bad_format' ? 'bad_format' : 'io_error';
      read = { size: info.size, mtimeMs: info.mtimeMs, error: { code, message: plain.message } };
    }
    this.cache.set(key, read);
    return read;
  }
}

/** The models on this machine (see ModelCatalog.list); a catalog of its own, so nothing is cached between calls. */
export async function listModels(options: DiscoveryOptions = {}): Promise<ModelList> {
  return new ModelCatalog().list(options);
}

async function candidatesIn(root: Root, index: number, warnings: string[]): Promise<Candidate[]> {
  switch (root.source) {
    case 'lmstudio':
      return ggufFolderCandidates('lmstudio', index, root.path, LMSTUDIO_DEPTH, warnings);
    case 'ollama':
      return ollamaCandidates(index, root.path, warnings);
    case 'huggingface':
      return huggingFaceCandidates(index, root.path, warnings);
    case 'folder':
      return ggufFolderCandidates('folder', index, root.path, FOLDER_DEPTH, warnings);
  }
}

/** Whether a root is a folder; an added folder that is missing or not a folder is a warning, a standard place is simply absent. */
async function isFolder(root: Root, warnings: string[]): Promise<boolean> {
  try {
    const info = await stat(root.path);
    if (info.isDirectory()) return true;
    warnings.push(`${root.path}: not a folder; skipped`);
  } catch (err) {
    if (root.source === 'folder' || (err as NodeJS.ErrnoException).code !== 'ENOENT') {
      warnings.push(`cannot read folder ${root.path}: ${reason(err)}; skipped`);
    }
  }
  return false;
}

/** The split model `path` belongs to (its sibling parts), or the file alone. */
async function splitSiblings(path: string): Promise<{ paths: string[]; error?: ModelFileError }> {
  const split = parseSplitName(basename(path));
  if (!split || split.count === 1) return { paths: [path] };
  const dir = dirname(path);
  const names = await readdir(dir).catch(() => [basename(path)]);
  const parts = names
    .map((n) => ({ n, s: parseSplitName(n) }))
    .filter(({ s }) => s && s.prefix === split.prefix && s.count === split.count)
    .map(({ n }) => join(dir, n));
  return groupSplitFiles(parts)[0];
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
