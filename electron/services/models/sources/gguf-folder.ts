/**
 * A folder of GGUF files, searched recursively: LM Studio's model folders
 * (`publisher/repo/file.gguf`) and the folders the user added. Each model is named by its path
 * inside the folder.
 */
import { relative, sep } from 'node:path';
import type { ModelSource } from '../../../common/models.ts';
import { groupSplitFiles, type Candidate } from '../candidates.ts';
import { walkFiles } from '../walk.ts';

export const isGgufName = (name: string): boolean => name.toLowerCase().endsWith('.gguf');

export async function ggufFolderCandidates(
  source: ModelSource,
  rootIndex: number,
  folder: string,
  maxDepth: number,
  warnings: string[],
): Promise<Candidate[]> {
  const files = await walkFiles(folder, { maxDepth, accept: isGgufName, warnings });
  return groupSplitFiles(files).map((group) => ({
    source,
    root: rootIndex,
    displayName: relative(folder, group.paths[0]).split(sep).join('/'),
    ...group,
  }));
}
