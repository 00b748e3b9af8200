/**
 * A stand-in for the parts of Electron main uses, recording what main does with them (Electron's
 * binary cannot run on every machine the tests run on). Event emitters where Electron has events;
 * every call main makes is kept in `calls` so tests can assert order and arguments.
 */
import { EventEmitter } from 'node:events';

export interface Recorded {
  what: string;
  args: unknown[];
}

export class FakeWebContents extends EventEmitter {
  sent: Array<{ channel: string; value: unknown }> = [];
  openHandler: ((d: { url: string }) => { action: string }) | null = null;
  destroyed = false;
  setWindowOpenHandler(h: (d: { url: string }) => { action: string }) {
    this.openHandler = h;
  }
  send(channel: string, value: unknown) {
    this.sent.push({ channel, value });
  }
  isDestroyed() {
    return this.destroyed;
  }
}

export class FakeWindow extends EventEmitter {
  static created: FakeWindow[] = [];
  webContents = new FakeWebContents();
  loaded: string[] = [];
  shown = false;
  focused = 0;
  minimized = false;
  maximized = false;
  bounds: { x: number; y: number; width: number; height: number };
  constructor(public options: Record<string, unknown>) {
    super();
    this.bounds = { x: Number(options.x ?? 0), y: Number(options.y ?? 0), width: Number(options.width), height: Number(options.height) };
    FakeWindow.created.push(this);
  }
  loadURL(url: string) {
    this.loaded.push(url);
    return Promise.resolve();
  }
  show() {
    this.shown = true;
  }
  focus() {
    this.focused++;
  }
  isMinimized() {
    return this.minimized;
  }
  restore() {
    this.minimized = false;
  }
  maximize() {
    this.maximized = true;
  }
  isMaximized() {
    return this.maximized;
  }
  getNormalBounds() {
    return this.bounds;
  }
  /** What a user's click on the close button does: 'close' (may be prevented), then 'closed'. */
  tryClose(): boolean {
    let prevented = false;
    this.emit('close', { preventDefault: () => (prevented = true) });
    if (!prevented) this.emit('closed');
    return !prevented;
  }
}

export class FakeSession {
  permissionRequest: ((wc: unknown, permission: string, cb: (ok: boolean) => void) => void) | null = null;
  permissionCheck: (() => boolean) | null = null;
  beforeRequest: ((d: { url: string }, cb: (r: { cancel: boolean }) => void) => void) | null = null;
  beforeRequestFilter: unknown = null;
  setPermissionRequestHandler(h: FakeSession['permissionRequest']) {
    this.permissionRequest = h;
  }
  setPermissionCheckHandler(h: FakeSession['permissionCheck']) {
    this.permissionCheck = h;
  }
  setDevicePermissionHandler() {}
  webRequest = {
    onBeforeRequest: (filter: unknown, h: FakeSession['beforeRequest']) => {
      this.beforeRequestFilter = filter;
      this.beforeRequest = h;
    },
  };
  /** What the handler decides for a request to `url`: true when it is cancelled. */
  cancels(url: string): boolean {
    let cancel: boolean | null = null;
    this.beforeRequest!({ url }, (r) => (cancel = r.cancel));
    return cancel!;
  }
}

export function fakeElectron(options: { lock?: boolean; packaged?: boolean; openDialog?: { canceled: boolean; filePaths: string[] }; messageBoxResponse?: number } = {}) {
  const calls: Recorded[] = [];
  const record = (what: string, ...args: unknown[]) => calls.push({ what, args });
  let resolveReady!: () => void;
  const ready = new Promise<void>((r) => (resolveReady = r));
  const app = Object.assign(new EventEmitter(), {
    isPackaged: options.packaged ?? false,
    requestSingleInstanceLock: () => (record('requestSingleInstanceLock'), options.lock ?? true),
    whenReady: () => (record('whenReady'), ready),
    quit: () => {
      record('quit');
      // Electron asks before-quit listeners first; a prevented quit does nothing
      let prevented = false;
      app.emit('before-quit', { preventDefault: () => (prevented = true) });
      if (!prevented) record('quit-went-ahead');
    },
    exit: (code: number) => record('exit', code),
    getVersion: () => '0.0.0-test',
  });
  const handlers = new Map<string, (event: unknown, ...args: unknown[]) => unknown>();
  const ipcMain = {
    handle: (channel: string, h: (event: unknown, ...args: unknown[]) => unknown) => (record('ipcMain.handle', channel), handlers.set(channel, h)),
    removeHandler: (channel: string) => handlers.delete(channel),
  };
  const schemes: unknown[] = [];
  const protocolHandlers = new Map<string, (req: { url: string; method?: string }) => Promise<Response>>();
  const protocol = {
    registerSchemesAsPrivileged: (s: unknown[]) => (record('protocol.registerSchemesAsPrivileged'), schemes.push(...s)),
    handle: (scheme: string, h: (req: { url: string }) => Promise<Response>) => (record('protocol.handle', scheme), protocolHandlers.set(scheme, h)),
  };
  const session = { defaultSession: new FakeSession() };
  let menuTemplate: unknown = null;
  const Menu = {
    buildFromTemplate: (t: unknown) => ({ template: t }),
    setApplicationMenu: (m: { template: unknown }) => (menuTemplate = m.template),
  };
  const dialog = {
    showOpenDialog: async (...args: unknown[]) => (record('dialog.showOpenDialog', ...args), options.openDialog ?? { canceled: true, filePaths: [] }),
    showMessageBox: async (...args: unknown[]) => (record('dialog.showMessageBox', ...args), { response: options.messageBoxResponse ?? 0, checkboxChecked: false }),
    showErrorBox: (...args: unknown[]) => record('dialog.showErrorBox', ...args),
  };
  const shell = {
    openPath: async (p: string) => (record('shell.openPath', p), ''),
    showItemInFolder: (p: string) => record('shell.showItemInFolder', p),
    openExternal: async (u: string) => void record('shell.openExternal', u),
  };
  const screen = { getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }] };
  // a utility process that takes messages and never answers; kill() ends it
  const utilityProcess = {
    fork: (...args: unknown[]) => {
      record('utilityProcess.fork', ...args);
      const proc = Object.assign(new EventEmitter(), { pid: 1, postMessage: (m: unknown) => record('utility.postMessage', m), kill: () => (setImmediate(() => proc.emit('exit', 0)), true) });
      return proc;
    },
  };
  FakeWindow.created = [];
  const electron = { app, BrowserWindow: FakeWindow, ipcMain, protocol, session, Menu, dialog, shell, screen, utilityProcess };
  return {
    electron,
    calls,
    handlers,
    schemes,
    protocolHandlers,
    session: session.defaultSession,
    menu: () => menuTemplate,
    ready: () => resolveReady(),
    windows: () => FakeWindow.created,
  };
}

/** An IPC invoke event from a frame at `url`. */
export function invokeEvent(url: string) {
  return { senderFrame: { url } };
}
