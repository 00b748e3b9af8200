/** Every fuzz target by name; each is made on demand (they read fixtures and make temp folders). */
import type { FuzzTarget } from './target.ts';

export const TARGETS: Record<string, () => Promise<FuzzTarget<any>>> = {
  'dataset-readers': async () => (await import('./dataset-target.ts')).datasetTarget(),
  'gguf-header': async () => (await import('./gguf-target.ts')).ggufTarget(),
  'run-folder': async () => (await import('./run-folder-target.ts')).runFolderTarget(),
  'web-requests': async () => (await import('./web-request-target.ts')).webRequestTarget(),
  'upload-names': async () => (await import('./web-request-target.ts')).uploadNameTarget(),
};

export type TargetName = keyof typeof TARGETS;
