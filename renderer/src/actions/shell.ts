/**
 * The desktop shell's actions (Electron only; `env.shell` is absent in web mode): the app menu's
 * commands, native pickers, and showing a run's folder in the file manager.
 */
import type { ShellCommand } from '../../../electron/common/shell.ts';
import type { AppEnv } from '../app/env.ts';
import { go } from '../app/route.ts';
import { addSources } from './datasets.ts';
import { openModelPath } from './models.ts';

export function handleShellCommand(env: AppEnv, c: ShellCommand): void {
  if (c.type === 'open-model') {
    go('models');
    void openModelPath(env, c.path);
  } else if (c.type === 'add-datasets') {
    go('datasets');
    void addSources(env, c.paths);
  } else go(c.view);
}

/** The native open dialog for a model; the chosen file is opened as if typed. */
export async function pickModelFile(env: AppEnv): Promise<void> {
  const path = await env.shell?.pickModel();
  if (path) await openModelPath(env, path);
}
