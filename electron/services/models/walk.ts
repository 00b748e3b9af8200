/**
 * Walks a folder for files, to a maximum depth, following symbolic links (Hugging Face
 * snapshots are links) but never into a folder it has already entered, so a link loop ends.
 * Hidden entries (name starts with `.`) are skipped. A folder that cannot be read is a warning
 * and the walk goes on. Names are visited in code-point order, so results do not depend on the
 * OS or locale.
 */
import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { reason } from './fs-errors.ts';

export interface WalkOptions {
  /** Folder levels below the root to enter (0: the root's own files only). */
  maxDepth: number;
  /** Which file names to return. */
  accept: (name: string) => boolean;
  warnings: string[];
}

/** Paths (as reached, links not resolved) of accepted files under `root`. */
export async function walkFiles(root: string, options: WalkOptions): Promise<string[]> {
  const found: string[] = [];
  const entered = new Set<string>();
  let warnedDepth = false;

  const visit = async (dir: string, depth: number): Promise<void> => {
    const real = await realpath(dir).catch(() => dir);
    if (entered.has(real)) return;
    entered.add(real);
    const entries = await readFolder(dir, options.warnings);
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      const kind = await kindOf(entry, path);
      if (kind === 'file' || kind === 'broken-link') {
        // A broken link with a model's name is listed, so its read error tells the user.
        if (options.accept(entry.name)) found.push(path);
      } else if (kind === 'folder') {
        if (depth < options.maxDepth) await visit(path, depth + 1);
        else if (!warnedDepth) {
          warnedDepth = true;
          options.warnings.push(`${path}: more than ${options.maxDepth} folders below ${root}; deeper folders are not searched`);
        }
      }
    }
  };

  await visit(root, 0);
  return found;
}

/**
 * The entries of `dir` in code-point order; [] with a warning when it cannot be read (without
 * one when `missingOk` and it does not exist).
 */
export async function readFolder(dir: string, warnings: string[], missingOk = false): Promise<Dirent[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (err) {
    if (missingOk && (err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    warnings.push(`cannot read folder ${dir}: ${reason(err)}; skipped`);
    return [];
  }
}

async function kindOf(entry: Dirent, path: string): Promise<'file' | 'folder' | 'broken-link' | 'other'> {
  if (entry.isFile()) return 'file';
  if (entry.isDirectory()) return 'folder';
  if (!entry.isSymbolicLink()) return 'other';
  try {
    const target = await stat(path);
    return target.isFile() ? 'file' : target.isDirectory() ? 'folder' : 'other';
  } catch {
    return 'broken-link';
  }
}
