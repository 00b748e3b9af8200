/**
 * What a folder holds, to tell whether anything was written where it should not be: every path
 * under it with its size and modification time, leaving out the folders the run may change.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export type Listing = Map<string, string>;

/** `relative path -> "size mtime"` for everything under `root` except inside `skip` (absolute paths). */
export function listTree(root: string, skip: string[]): Listing {
  const out: Listing = new Map();
  const inside = (p: string) => skip.some((s) => p === s || p.startsWith(s + sep));
  for (const name of readdirSync(root, { recursive: true, encoding: 'utf8' })) {
    const path = join(root, name);
    if (inside(path)) continue;
    try {
      const s = statSync(path);
      out.set(relative(root, path), s.isDirectory() ? 'dir' : `${s.size} ${s.mtimeMs}`);
    } catch {
      // gone between the listing and the stat: it still differs below
    }
  }
  return out;
}

/** Paths added, removed or changed between two listings. */
export function changedPaths(before: Listing, after: Listing): string[] {
  const keys = new Set([...before.keys(), ...after.keys()]);
  return [...keys].filter((k) => before.get(k) !== after.get(k)).sort();
}
