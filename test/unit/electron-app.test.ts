// The app's main process wired with a stand-in electron: single instance, the privileged scheme
// before ready, one secure window loading the app protocol, IPC and the menu installed, the
// window's bounds remembered, quitting during a run asks and stops it with a checkpoint first.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { MenuItemConstructorOptions } from 'electron';
import { IPC } from '../../electron/common/ipc.ts';
import type { RunSummary } from '../../electron/common/runs.ts';
import { APP_URL } from '../../electron/main/app-protocol.ts';
import { startApp, type AppService, type ElectronMain } from '../../electron/main/app.ts';
import type { AppPaths } from '../../electron/main/app-paths.ts';
import { menuTemplate } from '../../electron/main/menu.ts';
import { QuitGuard } from '../../electron/main/quit-guard.ts';
import { loadWindowState, placeWindow } from '../../electron/main/window-state.ts';
import { NodeHoneService } from '../../electron/services/hone-service.ts';
import { fakeElectron, FakeWebContents, type FakeWindow } from '../helpers/fake-electron.ts';
import { tempFiles } from '../helpers/temp-files.ts';

const PATHS: AppPaths = { preload: '/app/out/build/preload/preload.cjs', renderer: '/app/out/renderer', hostEntry: '/app/out/build/engine-host/host-main.js', docs: '/app/docs', addon: '/app/resources/native/hone.node' };

function run(status: RunSummary['status']): RunSummary {
  return { id: 'r1', title: 'stories260K · chat.jsonl', status, createdAt: '', updatedAt: '', model: 'm.gguf', data: ['d.jsonl'], step: 12, nSteps: 40, resumableStep: 10, lastLoss: 2.5, lastEvalLoss: null, tokensPerS: null, rowFill: null, adapter: null, error: null, segments: 1 };
}

/** A service whose runs are `runs` and whose dispose is recorded. */
function fakeService(runs: RunSummary[], log: string[]): AppService {
  return {
    runs: { list: async () => runs },
    dispose: async () => void log.push('dispose'),
    subscribe: () => () => {},
  } as unknown as AppService;
}

async function started(t: object, options: Parameters<typeof fakeElectron>[0] = {}, service?: (dataDir: string) => AppService) {
  const dataDir = tempFiles(t);
  const fake = fakeElectron(options);
  const pending = startApp(fake.electron as unknown as ElectronMain, {
    paths: PATHS,
    dataDir,
    platform: 'linux',
    env: {},
    createService: (dir, hostFactory) => (service ? service(dir) : new NodeHoneService({ dataDir: dir, hostFactory, home: dir, env: {} })),
  });
  fake.ready();
  const app = await pending;
  (t as { after(f: () => unknown): void }).after(() => app?.service.dispose());
  return { fake, app: app!, dataDir, win: fake.windows()[0] as FakeWindow };
}

test('a second instance quits at once and focuses the first', async (t) => {
  const second = fakeElectron({ lock: false });
  const app = await startApp(second.electron as unknown as ElectronMain, { paths: PATHS, dataDir: tempFiles(t), env: {} });
  assert.equal(app, null);
  assert.deepEqual(second.calls.map((c) => c.what).filter((w) => w !== 'quit-went-ahead').slice(-2), ['requestSingleInstanceLock', 'quit']);
  assert.equal(second.windows().length, 0);

  const { fake, win } = await started(t);
  win.minimized = true;
  fake.electron.app.emit('second-instance');
  assert.equal(win.minimized, false);
  assert.equal(win.focused, 1);
});

test('the scheme is privileged before ready; one secure window loads the app protocol; IPC and the menu are installed', async (t) => {
  const { fake, win } = await started(t);
  const order = fake.calls.map((c) => c.what);
  assert.ok(order.indexOf('protocol.registerSchemesAsPrivileged') < order.indexOf('whenReady'), order.join(', '));
  assert.deepEqual(fake.schemes, [{ scheme: 'hone-app', privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
  assert.deepEqual([...fake.protocolHandlers.keys()], ['hone-app']);
  assert.deepEqual([...fake.handlers.keys()].sort(), [IPC.call, IPC.shell].sort());
  assert.equal(fake.windows().length, 1);
  const prefs = win.options.webPreferences as Record<string, unknown>;
  assert.equal(prefs.preload, PATHS.preload);
  assert.equal(prefs.contextIsolation, true);
  assert.equal(prefs.sandbox, true);
  assert.equal(prefs.nodeIntegration, false);
  assert.deepEqual(win.loaded, [APP_URL]);
  assert.equal(win.shown, false, 'shown only once painted');
  win.emit('ready-to-show');
  assert.equal(win.shown, true);
  // the session's guards are on (a remote request is cancelled) and new contents get theirs
  assert.equal(fake.session.cancels('https://example.com/x.js'), true);
  const contents = new FakeWebContents();
  fake.electron.app.emit('web-contents-created', {}, contents);
  assert.deepEqual(contents.openHandler!({ url: 'https://evil.example' }), { action: 'deny' });
  assert.ok(Array.isArray(fake.menu()));
});

test('the engine host runs as a utility process with the packaged addon named', async (t) => {
  const { fake, app } = await started(t);
  // asking for what the engine can do starts the host (its answer never comes from this stand-in)
  void app.service.info().catch(() => {});
  await new Promise((r) => setImmediate(r));
  const fork = fake.calls.find((c) => c.what === 'utilityProcess.fork');
  assert.ok(fork, 'the host was started as a utility process');
  assert.equal(fork.args[0], PATHS.hostEntry);
  assert.equal((fork.args[2] as { env: Record<string, string> }).env.HONE_ADDON, PATHS.addon);
  assert.equal((fork.args[2] as { serviceName: string }).serviceName, 'Hone engine');
});

test('the window opens where it was, on a display that still exists, and its bounds are saved on close', async (t) => {
  const { win, dataDir, fake } = await started(t);
  assert.deepEqual({ w: win.options.width, h: win.options.height }, { w: 1280, h: 800 });
  win.bounds = { x: 100, y: 80, width: 1400, height: 900 };
  win.maximized = true;
  win.tryClose();
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(loadWindowState(dataDir), { bounds: { x: 100, y: 80, width: 1400, height: 900 }, maximized: true });
  assert.ok(fake.calls.some((c) => c.what === 'quit-went-ahead'), 'closing the last window quits (no run)');

  // an unplugged monitor: the saved window would be off every display → centred on the primary
  const placed = placeWindow({ bounds: { x: 4000, y: 100, width: 1400, height: 900 }, maximized: false }, [{ x: 0, y: 0, width: 1920, height: 1080 }]);
  assert.deepEqual(placed.bounds, { x: 260, y: 90, width: 1400, height: 900 });
  // too large for the display it is on: shrunk to fit
  assert.deepEqual(placeWindow({ bounds: { x: 0, y: 0, width: 3000, height: 2000 }, maximized: false }, [{ x: 0, y: 0, width: 1920, height: 1080 }]).bounds, { x: 0, y: 0, width: 1920, height: 1080 });
  // a broken window.json is ignored, not an error
  writeFileSync(join(dataDir, 'window.json'), '{"bounds": {"width": "wide"');
  assert.equal(loadWindowState(dataDir), null);
});

test('quitting during a run asks; "keep training" keeps the window, "stop and quit" checkpoints first', async (t) => {
  const log: string[] = [];
  const runs = [run('running')];
  const keep = await started(t, { messageBoxResponse: 1 }, () => fakeService(runs, log));
  assert.equal(keep.win.tryClose(), false, 'the close waits for the answer');
  await new Promise((r) => setTimeout(r, 20));
  const box = keep.fake.calls.find((c) => c.what === 'dialog.showMessageBox')!;
  const options = box.args.at(-1) as { message: string; buttons: string[] };
  assert.match(options.message, /step 12 of 40/);
  assert.deepEqual(options.buttons, ['Stop and Quit', 'Keep Training']);
  assert.deepEqual(log, [], 'nothing stopped');
  assert.ok(!keep.fake.calls.some((c) => c.what === 'quit-went-ahead'));

  const stop = await started(t, { messageBoxResponse: 0 }, () => fakeService(runs, log));
  assert.equal(stop.win.tryClose(), false);
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(log, ['dispose']);
  assert.ok(stop.fake.calls.some((c) => c.what === 'quit-went-ahead'), 'then the app quits');
  assert.equal(stop.win.tryClose(), true, 'and the window closes');
});

test('the quit guard: no active run quits after stopping the host; a failing stop still quits', async () => {
  const log: string[] = [];
  const quits: number[] = [];
  const idle = new QuitGuard({ service: fakeService([run('finished'), run('stopped')], log), confirm: async () => assert.fail('nothing to ask about'), quit: () => quits.push(1) });
  assert.equal(idle.request(), false);
  await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual([log, quits.length, idle.done, idle.request()], [['dispose'], 1, true, true]);

  const broken = { runs: { list: async () => [run('running')] }, dispose: async () => { throw new Error('host gone'); } } as unknown as AppService;
  const lines: string[] = [];
  const g = new QuitGuard({ service: broken, confirm: async () => 'stop-and-quit', quit: () => quits.push(2), log: (l) => lines.push(l) });
  g.request();
  g.request(); // a second quit while asking does not ask twice
  await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(quits, [1, 2]);
  assert.match(lines[0], /host gone/);
});

test('the menu: File opens a model, adds datasets, opens the runs folder; Help has the docs and the version; no devtools when packaged', () => {
  const did: string[] = [];
  const actions = { openModel: () => did.push('model'), addDatasets: (k: string) => did.push(`data-${k}`), openRunsFolder: () => did.push('runs'), openDocs: () => did.push('docs'), about: () => did.push('about') };
  const items = (t: MenuItemConstructorOptions[]) => t.flatMap((m) => (Array.isArray(m.submenu) ? m.submenu : []));
  const linux = menuTemplate(actions, { platform: 'linux', packaged: true });
  assert.deepEqual(linux.map((m) => m.label), ['&File', '&Edit', '&View', '&Window', '&Help']);
  const file = linux[0].submenu as MenuItemConstructorOptions[];
  const byLabel = (label: string) => items(linux).find((i) => i.label === label)!;
  assert.equal(byLabel('Open Model…').accelerator, 'CmdOrCtrl+O');
  for (const l of ['Open Model…', 'Add Dataset Files…', 'Add Dataset Folder…', 'Open Runs Folder', 'Hone Documentation', 'About Hone']) (byLabel(l).click as () => void)();
  assert.deepEqual(did, ['model', 'data-files', 'data-folder', 'runs', 'docs', 'about']);
  assert.equal(file.at(-1)!.role, 'quit');
  assert.ok(!items(linux).some((i) => i.role === 'toggleDevTools'));
  assert.ok(items(menuTemplate(actions, { platform: 'linux', packaged: false })).some((i) => i.role === 'toggleDevTools'));
  const mac = menuTemplate(actions, { platform: 'darwin', packaged: true });
  assert.equal(mac[0].label, 'Hone');
  assert.ok((mac[0].submenu as MenuItemConstructorOptions[]).some((i) => i.label === 'About Hone'));
  assert.equal((mac[1].submenu as MenuItemConstructorOptions[]).at(-1)!.role, 'close');
  assert.ok(existsSync(join(process.cwd(), 'docs')), 'the docs folder Help opens is part of the checkout');
  assert.ok(readFileSync(join(process.cwd(), 'electron-builder.yml'), 'utf8').includes('docs'), 'and of the package');
});
