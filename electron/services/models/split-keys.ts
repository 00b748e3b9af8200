/**
 * Checks a model's parts against their `split.*` keys (llama.cpp's gguf-split writes
 * `split.no`, 0-based, and `split.count` into every part): the count must match the file
 * names, and a file that declares parts must be named so they can be found.
 */
import { basename } from 'node:path';
import type { ModelFileError } from '../../common/models.ts';
import { parseSplitName, splitPartName } from './candidates.ts';
import type { GgufHeader } from './gguf-header.ts';

export function splitKeysProblem(paths: string[], headers: GgufHeader[]): ModelFileError | null {
  const bad = (path: string, message: string): ModelFileError => ({ code: 'bad_format', message: `${path}: ${message}` });
  const declared = headers[0].kv.get('split.count');
  const named = parseSplitName(basename(paths[0]));
  if (named && named.count > 1) {
    if (declared !== named.count) {
      return bad(paths[0], `split.count is ${declared === undefined ? 'absent' : JSON.stringify(declared)}, but the file name says ${named.count} parts`);
    }
  } else if (typeof declared === 'number' && declared > 1) {
    const stem = basename(paths[0]).replace(/\.gguf$/i, '');
    return bad(paths[0], `split.count is ${declared}, but the file is not named as part 1 (${splitPartName(stem, 1, declared)}), so its other parts cannot be found`);
  }
  for (let i = 1; i < headers.length; i++) {
    const no = headers[i].kv.get('split.no');
    if (no !== undefined && no !== i) return bad(paths[i], `split.no is ${JSON.stringify(no)}, but the file name says part ${i + 1} (split.no ${i})`);
  }
  return null;
}
