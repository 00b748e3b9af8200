/**
 * The app menu as a template (Electron builds it): File (open a model, add datasets, the runs
 * folder), Edit, View, Window, Help (the docs and the version). Pure: the actions are passed in.
 */
import type { MenuItemConstructorOptions } from 'electron';

export interface MenuActions {
  openModel(): void;
  addDatasets(kind: 'files' | 'folder'): void;
  openRunsFolder(): void;
  openDocs(): void;
  about(): void;
}

export interface MenuContext {
  platform: NodeJS.Platform;
  /** Developer tools only in a development build. */
  packaged: boolean;
}

export function menuTemplate(actions: MenuActions, ctx: MenuContext): MenuItemConstructorOptions[] {
  const mac = ctx.platform === 'darwin';
  const file: MenuItemConstructorOptions = {
    label: '&File',
    submenu: [
      { label: 'Open Model…', accelerator: 'CmdOrCtrl+O', click: () => actions.openModel() },
      { label: 'Add Dataset Files…', accelerator: 'CmdOrCtrl+Shift+O', click: () => actions.addDatasets('files') },
      { label: 'Add Dataset Folder…', click: () => actions.addDatasets('folder') },
      { type: 'separator' },
      { label: 'Open Runs Folder', click: () => actions.openRunsFolder() },
      { type: 'separator' },
      mac ? { role: 'close' } : { role: 'quit', label: 'E&xit' },
    ],
  };
  const view: MenuItemConstructorOptions = {
    label: '&View',
    submenu: [
      { role: 'reload' },
      ...(ctx.packaged ? [] : [{ role: 'toggleDevTools' } as MenuItemConstructorOptions]),
      { type: 'separator' },
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      { type: 'separator' },
      { role: 'togglefullscreen' },
    ],
  };
  const help: MenuItemConstructorOptions = {
    role: 'help',
    label: '&Help',
    submenu: [
      { label: 'Hone Documentation', click: () => actions.openDocs() },
      ...(mac ? [] : [{ type: 'separator' } as MenuItemConstructorOptions, { label: 'About Hone', click: () => actions.about() }]),
    ],
  };
  return [
    ...(mac
      ? [{
          label: 'Hone',
          submenu: [
            { label: 'About Hone', click: () => actions.about() },
            { type: 'separator' },
            { role: 'services' },
            { type: 'separator' },
            { role: 'hide' },
            { role: 'hideOthers' },
            { role: 'unhide' },
            { type: 'separator' },
            { role: 'quit' },
          ],
        } as MenuItemConstructorOptions]
      : []),
    file,
    { role: 'editMenu', label: '&Edit' },
    view,
    { role: 'windowMenu', label: '&Window' },
    help,
  ];
}
