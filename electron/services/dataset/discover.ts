/**
 * Expands the paths a user gave into data files. Folders are walked
 * recursively in code-point order of names (so the result does not depend on
 * the OS or locale). Inside folders, hidden entries (name starts with `.`)
 * and files with unsupported extensions are listed as skipped. A file given
 * directly is always read when the caller overrides its format; otherwise it
 * needs a supported extension too. The same file reached twice is read once.
 */
import { readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { RecordIssues } from './problems.ts';
import type { Problem, SkippedFile } from '../../common/dataset-report.ts';
import { familyOf } from './sniff.ts';

export interface FoundFile {
  path: string;
  role: 'train' | 'eval';
}

export interface Discovery {
  files: FoundFile[];
  skipped: SkippedFile[];
  problems: Problem[];
}

export async function discover(
  inputs: { path: string; role: 'train' | 'eval' }[],
  hasOverride: (path: string) => boolean,
): Promise<Discovery> {
  const result: Discovery = { files: [], skipped: [], problems: [] };
  const seen = new Set<string>();

  const addFile = async (path: string, role: 'train' | 'eval'): Promise<void> => {
    const real = await realpath(path).catch(() => path);
    if (seen.has(real)) return;
    seen.add(real);
    result.files.push({ path, role });
  };

  const fail = (path: string, err: unknown): void => {
    const code = (err as NodeJS.ErrnoException).code;
    const issues = new RecordIssues(path, null);
    if (code === 'ENOENT') issues.error('not_found', '', `no such file or folder: ${path}`);
    else issues.error('read_error', '', `cannot read ${path}: ${(err as Error).message}`);
    result.problems.push(...issues.list);
  };

  const walk = async (dir: string, role: 'train' | 'eval'): Promise<void> => {
    let names: string[];
    try {
      names = (await readdir(dir)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    } catch (err) {
      fail(dir, err);
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      if (name.startsWith('.')) {
        result.skipped.push({ path, reason: 'hidden' });
        continue;
      }
      let info;
      try {
        info = await stat(path);
      } catch (err) {
        fail(path, err);
        continue;
      }
      if (info.isDirectory()) await walk(path, role);
      else if (!info.isFile()) result.skipped.push({ path, reason: 'unsupported' });
      else if (familyOf(path) === undefined) result.skipped.push({ path, reason: 'unsupported' });
      else await addFile(path, role);
    }
  };

  for (const input of inputs) {
    let info;
    try {
      info = await stat(input.path);
    } catch (err) {
      fail(input.path, err);
      continue;
    }
    if (info.isDirectory()) await walk(input.path, input.role);
    else if (familyOf(input.path) === undefined && !hasOverride(input.path)) {
      result.skipped.push({ path: input.path, reason: 'unsupported' });
    } else await addFile(input.path, input.role);
  }
  return result;
}
