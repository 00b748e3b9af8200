/**
 * The shell calls as main does them: native dialogs, the file manager, the system browser.
 * Only folders and files of Hone's data folder are shown; links only for allow-listed hosts
 * (validateShellCall has checked the arguments already).
 */
import { existsSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { BrowserWindow, Dialog, OpenDialogOptions, Shell } from 'electron';
import { HoneError } from '../common/errors.ts';
import { runsRoot } from '../services/runs/run-folder.ts';
import type { ShellHandlers } from './ipc.ts';

/** File types the dataset importer reads (services/dataset), for the open dialog's filter. */
export const DATASET_EXTENSIONS = ['jsonl', 'json', 'csv', 'tsv', 'txt', 'md'];

export interface ShellDeps {
  dialog: Pick<Dialog, 'showOpenDialog'>;
  shell: Pick<Shell, 'openPath' | 'showItemInFolder' | 'openExternal'>;
  /** The window dialogs belong to (null: none open). */
  window(): BrowserWindow | null;
  dataDir: string;
}

function inside(root: string, p: string): boolean {
  const rel = relative(resolve(root), resolve(p));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

async function openFolder(shell: ShellDeps['shell'], folder: string): Promise<void> {
  if (!existsSync(folder)) throw new HoneError('not_found', `${folder} does not exist`, { path: folder });
  // openPath answers an error message, or '' when it worked
  const err = await shell.openPath(folder);
  if (err) throw new HoneError('io_error', `${folder} cannot be opened: ${err}`, { path: folder });
}

export function shellHandlers(deps: ShellDeps): ShellHandlers {
  const open = async (options: OpenDialogOptions) => {
    const win = deps.window();
    return win ? deps.dialog.showOpenDialog(win, options) : deps.dialog.showOpenDialog(options);
  };
  return {
    pickModel: async () => {
      const r = await open({ title: 'Open a model', properties: ['openFile'], filters: [{ name: 'GGUF models', extensions: ['gguf'] }] });
      return r.canceled || r.filePaths.length === 0 ? null : r.filePaths[0];
    },
    pickDatasets: async (kind) => {
      const r = kind === 'folder'
        ? await open({ title: 'Add a dataset folder', properties: ['openDirectory'] })
        : await open({ title: 'Add dataset files', properties: ['openFile', 'multiSelections'], filters: [{ name: 'Datasets', extensions: DATASET_EXTENSIONS }] });
      return r.canceled ? [] : r.filePaths;
    },
    showRunFolder: (id) => openFolder(deps.shell, join(runsRoot(deps.dataDir), id)),
    openRunsFolder: () => openFolder(deps.shell, runsRoot(deps.dataDir)),
    showItem: async (path) => {
      if (!inside(deps.dataDir, path)) throw new HoneError('invalid_argument', `shell.showItem: ${path} is not inside Hone's data folder (${deps.dataDir})`);
      if (!existsSync(path)) throw new HoneError('not_found', `${path} does not exist`, { path });
      deps.shell.showItemInFolder(path);
    },
    openExternal: (url) => deps.shell.openExternal(url),
  };
}
