/**
 * A model found on disk before its header is read: where it came from, what to call it, its
 * files. Split GGUFs (`name-00001-of-00003.gguf`, llama.cpp's `%s-%05d-of-%05d.gguf`) become one
 * candidate holding every part; a missing part is that candidate's error.
 */
import { basename, dirname, join } from 'node:path';
import type { ModelFileError, ModelSource } from '../../common/models.ts';

export interface Candidate {
  source: ModelSource;
  /** Index of the root it was found under. */
  root: number;
  displayName: string;
  /** The files, as found; the first holds the metadata. */
  paths: string[];
  /** A problem found before reading (a missing part, a missing Ollama blob, a bad manifest). */
  error?: ModelFileError;
}

const SPLIT_NAME = /^(.*)-(\d{5})-of-(\d{5})\.gguf$/i;

export interface SplitName {
  prefix: string;
  /** 1-based part number. */
  part: number;
  count: number;
}

/** The split part a file name says it is, or null for an ordinary name. */
export function parseSplitName(name: string): SplitName | null {
  const m = SPLIT_NAME.exec(name);
  if (!m) return null;
  const part = Number(m[2]);
  const count = Number(m[3]);
  if (part < 1 || count < 1 || part > count) return null;
  return { prefix: m[1], part, count };
}

/** llama.cpp's name of part `part` (1-based) of `count`. */
export function splitPartName(prefix: string, part: number, count: number): string {
  const pad = (n: number) => String(n).padStart(5, '0');
  return `${prefix}-${pad(part)}-of-${pad(count)}.gguf`;
}

export interface FileGroup {
  paths: string[];
  error?: ModelFileError;
}

/** Groups found files into models: ordinary files alone, split parts by folder, prefix and count. */
export function groupSplitFiles(paths: string[]): FileGroup[] {
  const groups: FileGroup[] = [];
  const splits = new Map<string, { dir: string; prefix: string; count: number; parts: Map<number, string>; at: number }>();
  for (const path of paths) {
    const split = parseSplitName(basename(path));
    if (!split || split.count === 1) {
      groups.push({ paths: [path] });
      continue;
    }
    const key = JSON.stringify([dirname(path), split.prefix, split.count]);
    let group = splits.get(key);
    if (!group) {
      group = { dir: dirname(path), prefix: split.prefix, count: split.count, parts: new Map(), at: groups.length };
      splits.set(key, group);
      groups.push({ paths: [] }); // a place holder, so the model keeps its position
    }
    group.parts.set(split.part, path);
  }
  for (const g of splits.values()) {
    const found = [...g.parts.keys()].sort((a, b) => a - b);
    const missing: number[] = [];
    for (let p = 1; p <= g.count; p++) if (!g.parts.has(p)) missing.push(p);
    const group: FileGroup = { paths: found.map((p) => g.parts.get(p)!) };
    if (missing.length > 0) {
      const first = join(g.dir, splitPartName(g.prefix, missing[0], g.count));
      const which = missing.length === 1 ? `part ${missing[0]}` : `parts ${missing.join(', ')}`;
      group.error = {
        code: 'io_error',
        message: `${first}: ${which} of ${g.count} of split model ${g.prefix} ${missing.length === 1 ? 'is' : 'are'} missing (found ${found.join(', ')})`,
      };
    }
    groups[g.at] = group;
  }
  return groups;
}
