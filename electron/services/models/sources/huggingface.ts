/**
 * The Hugging Face hub cache: `models--<org>--<name>/snapshots/<revision>/**.gguf`, each file a
 * link into the repository's `blobs/`. Models are named `org/name/<path in the snapshot>`. The
 * revision that `refs/main` points to is searched first, so when two revisions share a blob
 * (the catalog lists a file once, by its real path) the current revision's name is kept.
 */
import { readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { groupSplitFiles, type Candidate } from '../candidates.ts';
import { readFolder, walkFiles } from '../walk.ts';
import { isGgufName } from './gguf-folder.ts';

/** Folder levels inside a snapshot (repositories keep quantizations in subfolders). */
const SNAPSHOT_DEPTH = 6;

export async function huggingFaceCandidates(rootIndex: number, hub: string, warnings: string[]): Promise<Candidate[]> {
  const out: Candidate[] = [];
  for (const entry of await readFolder(hub, warnings)) {
    if (!entry.name.startsWith('models--')) continue;
    const repo = entry.name.slice('models--'.length).split('--').join('/');
    const repoDir = join(hub, entry.name);
    const snapshots = join(repoDir, 'snapshots');
    const revisions = (await readFolder(snapshots, warnings, true)).map((e) => e.name).filter((n) => !n.startsWith('.'));
    const main = (await readFile(join(repoDir, 'refs', 'main'), 'utf8').catch(() => '')).trim();
    revisions.sort((a, b) => Number(b === main) - Number(a === main));
    for (const revision of revisions) {
      const dir = join(snapshots, revision);
      const files = await walkFiles(dir, { maxDepth: SNAPSHOT_DEPTH, accept: isGgufName, warnings });
      for (const group of groupSplitFiles(files)) {
        const inSnapshot = relative(dir, group.paths[0]).split(sep).join('/');
        out.push({ source: 'huggingface', root: rootIndex, displayName: `${repo}/${inSnapshot}`, ...group });
      }
    }
  }
  return out;
}
