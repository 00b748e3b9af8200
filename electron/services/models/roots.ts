/**
 * Where Hone looks for models: LM Studio's two model folders, Ollama's store, the Hugging Face
 * hub cache, and the folders the user added, in that order. Home and environment come from the
 * caller, so tests point them at fake trees.
 */
import { join } from 'node:path';
import type { ModelSource } from '../../common/models.ts';

export interface Root {
  source: ModelSource;
  path: string;
}

export function modelRoots(home: string, env: Record<string, string | undefined>, folders: string[]): Root[] {
  return [
    { source: 'lmstudio', path: join(home, '.lmstudio', 'models') },
    { source: 'lmstudio', path: join(home, '.cache', 'lm-studio', 'models') },
    { source: 'ollama', path: env.OLLAMA_MODELS || join(home, '.ollama', 'models') },
    { source: 'huggingface', path: huggingFaceHub(home, env) },
    ...folders.map((path) => ({ source: 'folder' as const, path })),
  ];
}

/** huggingface_hub's order: $HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub. */
function huggingFaceHub(home: string, env: Record<string, string | undefined>): string {
  if (env.HF_HUB_CACHE) return env.HF_HUB_CACHE;
  if (env.HF_HOME) return join(env.HF_HOME, 'hub');
  return join(home, '.cache', 'huggingface', 'hub');
}
