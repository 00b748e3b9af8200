/**
 * The desktop app: one window over the one service. Main never loads the addon — the engine host
 * runs as a utilityProcess, so a ggml abort ends only that process and the window shows it.
 * Everything Electron-specific comes in through `electron` (tests pass a stand-in).
 */
import { mkdirSync } from 'node:fs';
import type * as ElectronModule from 'electron';
import type { BrowserWindow } from 'electron';
import { IPC } from '../common/ipc.ts';
import type { HoneService } from '../common/service.ts';
import type { ShellCommand } from '../common/shell.ts';
import { resolveDataDir } from '../services/data-dir.ts';
import type { EngineHost } from '../services/engine/client.ts';
import { NodeHoneService } from '../services/hone-service.ts';
import { APP_SCHEME, APP_SCHEME_PRIVILEGES, APP_URL, appResponse } from './app-protocol.ts';
import type { AppPaths } from './app-paths.ts';
import { confirmQuit, showAbout } from './dialogs.ts';
import { guardContents, guardSession } from './guards.ts';
import { forwardEvents, serveIpc } from './ipc.ts';
import { menuTemplate } from './menu.ts';
import { QuitGuard } from './quit-guard.ts';
import { shellHandlers } from './shell-handlers.ts';
import { startUtilityHost } from './utility-port.ts';
import { windowOptions } from './window-options.ts';
import { loadWindowState, placeWindow, saveWindowState } from './window-state.ts';

export type ElectronMain = Pick<
  typeof ElectronModule,
  'app' | 'BrowserWindow' | 'ipcMain' | 'protocol' | 'session' | 'Menu' | 'dialog' | 'shell' | 'screen' | 'utilityProcess'
>;

export type AppService = HoneService & { dispose(): Promise<void> };

export interface AppOptions {
  paths: AppPaths;
  /** Hone's data folder (default: resolveDataDir, the same as the CLI and web mode). */
  dataDir?: string;
  /** Makes the service (default: NodeHoneService with the engine host as a utility process). */
  createService?(dataDir: string, hostFactory: () => EngineHost): AppService;
  platform?: NodeJS.Platform;
  env?: NodeJS.ProcessEnv;
}

export interface AppHandle {
  window(): BrowserWindow | null;
  service: AppService;
  guard: QuitGuard;
  dataDir: string;
}

/** Call before the app is ready (the scheme must be privileged first). Null when another instance runs. */
export async function startApp(electron: ElectronMain, options: AppOptions): Promise<AppHandle | null> {
  const { app, BrowserWindow: Window, ipcMain, protocol, session, Menu, dialog, shell, screen, utilityProcess } = electron;
  const platform = options.platform ?? process.platform;
  const env = options.env ?? process.env;
  protocol.registerSchemesAsPrivileged([APP_SCHEME_PRIVILEGES]);
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return null;
  }
  const dataDir = resolveDataDir(options.dataDir ?? null, env);
  mkdirSync(dataDir, { recursive: true });
  const { paths } = options;
  const hostEnv = paths.addon ? { ...env, HONE_ADDON: paths.addon } : { ...env };
  const hostFactory = () => startUtilityHost(utilityProcess, paths.hostEntry, hostEnv);
  const service = options.createService ? options.createService(dataDir, hostFactory) : new NodeHoneService({ dataDir, hostFactory });

  let win: BrowserWindow | null = null;
  const openExternal = (url: string) => void shell.openExternal(url);
  app.on('second-instance', () => {
    if (!win) return;
    if (win.isMinimized()) win.restore();
    win.focus();
  });
  app.on('web-contents-created', (_e, contents) => guardContents(contents, openExternal));

  await app.whenReady();
  guardSession(session.defaultSession);
  protocol.handle(APP_SCHEME, (request) => appResponse(paths.renderer, request));
  const shellApi = shellHandlers({ dialog, shell, window: () => win, dataDir });
  serveIpc(ipcMain, service, shellApi);
  forwardEvents(service, () => (win ? [win.webContents] : []));

  const command = (c: ShellCommand) => win?.webContents.send(IPC.command, c);
  const report = (e: unknown) => void dialog.showErrorBox('Hone', (e as Error).message ?? String(e));
  const menu = menuTemplate(
    {
      openModel: () => void shellApi.pickModel().then((path) => path && command({ type: 'open-model', path }), report),
      addDatasets: (kind) => void shellApi.pickDatasets(kind).then((paths) => paths.length > 0 && command({ type: 'add-datasets', paths }), report),
      openRunsFolder: () => void shellApi.openRunsFolder().catch(report),
      openDocs: () => void shell.openPath(paths.docs),
      about: () =>
        void service.info().then(
          (i) => showAbout(dialog, win, { version: i.version, dataDir: i.dataDir, backends: i.engine.backends.map((b) => b.name) }),
          () => showAbout(dialog, win, { version: app.getVersion(), dataDir, backends: [] }),
        ),
    },
    { platform, packaged: app.isPackaged },
  );
  Menu.setApplicationMenu(Menu.buildFromTemplate(menu));

  const guard = new QuitGuard({ service, confirm: (run) => confirmQuit(dialog, win, run), quit: () => app.quit(), log: (l) => console.error(l) });
  app.on('before-quit', (e) => {
    if (!guard.request()) e.preventDefault();
  });

  const createWindow = () => {
    const placed = placeWindow(loadWindowState(dataDir), screen.getAllDisplays().map((d) => d.workArea));
    const w = new Window(windowOptions(placed.bounds, paths.preload));
    if (placed.maximized) w.maximize();
    w.once('ready-to-show', () => w.show());
    w.on('close', (e) => {
      saveWindowState(dataDir, { bounds: w.getNormalBounds(), maximized: w.isMaximized() });
      // elsewhere than macOS closing the window quits: through the guard, so a run is asked about
      if (platform !== 'darwin' && !guard.request()) e.preventDefault();
    });
    w.on('closed', () => {
      if (win === w) win = null;
    });
    win = w;
    void w.loadURL(APP_URL);
  };
  createWindow();
  app.on('activate', () => {
    if (!win) createWindow();
  });
  app.on('window-all-closed', () => {
    if (platform !== 'darwin') app.quit();
  });
  return { window: () => win, service, guard, dataDir };
}
