// Main's IPC: every call validated in main by the validators web mode uses, plus main's check
// that paths exist; only the app's own page is answered; shell calls validated the same way.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { BrowserWindow, Dialog, IpcMain, Shell } from 'electron';
import { IPC, type CallReply } from '../../electron/common/ipc.ts';
import { answerServiceCall, forwardEvents, serveIpc } from '../../electron/main/ipc.ts';
import { shellHandlers } from '../../electron/main/shell-handlers.ts';
import type { EngineHost } from '../../electron/services/engine/client.ts';
import { NodeHoneService } from '../../electron/services/hone-service.ts';
import { fakeElectron, FakeWebContents, invokeEvent } from '../helpers/fake-electron.ts';
import { tempFiles } from '../helpers/temp-files.ts';

/** A service over a fresh data folder whose engine host must never be needed by these calls. */
function service(t: object) {
  const dataDir = tempFiles(t);
  const s = new NodeHoneService({ dataDir, hostFactory: () => { throw new Error('these calls need no engine host'); }, home: dataDir, env: {} });
  (t as { after(f: () => unknown): void }).after(() => s.dispose());
  return { s, dataDir };
}

function error(r: CallReply) {
  assert.equal(r.ok, false, JSON.stringify(r));
  return (r as Extract<CallReply, { ok: false }>).error;
}

test('a valid call reaches the service; bad methods and arguments are refused in main, naming what is wrong', async (t) => {
  const { s, dataDir } = service(t);
  assert.deepEqual(await answerServiceCall(s, 'runs.list', []), { ok: true, result: [] });

  const unknown = error(await answerServiceCall(s, 'runs.format', []));
  assert.equal(unknown.code, 'unknown_request');
  assert.match(unknown.message, /runs\.format/);
  assert.equal(error(await answerServiceCall(s, 'runs.get', ['../../etc'])).code, 'invalid_argument');
  assert.equal(error(await answerServiceCall(s, 'runs.get', [42])).code, 'invalid_argument');
  assert.equal(error(await answerServiceCall(s, 'datasets.import', ['one.jsonl'])).code, 'invalid_argument');
  assert.equal(error(await answerServiceCall(s, 'plan', [{ model: join(dataDir, 'm.gguf'), data: [], rank: 8 }])).code, 'invalid_argument');
  assert.match(error(await answerServiceCall(s, 'plan', [{ model: 'x', data: ['y'], rank: 'eight' }])).message, /settings\.rank/);
  assert.equal(error(await answerServiceCall(s, '__proto__', [])).code, 'unknown_request');
  assert.equal(error(await answerServiceCall(s, 'runs.list', 'not a list')).code, 'invalid_argument');
});

test('a path that does not exist is refused before the service sees it', async (t) => {
  const { s, dataDir } = service(t);
  const data = join(dataDir, 'train.jsonl');
  writeFileSync(data, '{"text":"hello"}\n');
  const gone = join(dataDir, 'gone.jsonl');
  const e = error(await answerServiceCall(s, 'datasets.import', [[data, gone]]));
  assert.equal(e.code, 'not_found');
  assert.ok(e.message.includes(gone) && !e.message.includes(`"${data}"`), e.message);
  assert.deepEqual(e.detail, { paths: [gone] });
  const model = join(dataDir, 'missing.gguf');
  const p = error(await answerServiceCall(s, 'plan', [{ model, data: [data] }]));
  assert.equal(p.code, 'not_found');
  assert.ok(p.message.includes(model));
  const adapter = join(dataDir, 'adapter.gguf');
  const exp = error(await answerServiceCall(s, 'exports.create', [{ adapter, model, format: 'peft', out: join(dataDir, 'not-yet-there') }]));
  assert.equal(exp.code, 'not_found');
  assert.deepEqual(exp.detail, { paths: [adapter, model] }, 'what is read must exist; the output need not');
  const chat = error(await answerServiceCall(s, 'chat.generate', [{ adapter, model, messages: [{ role: 'user', content: 'hi' }] }]));
  assert.equal(chat.code, 'not_found');
  assert.deepEqual(chat.detail, { paths: [adapter, model] }, "a chat's model and adapter must exist");
  // the real file gets through to the service, which reads it
  const ok = await answerServiceCall(s, 'datasets.import', [[data]]);
  assert.equal(ok.ok, true, JSON.stringify(ok));
});

test("only the app's own page is answered", async (t) => {
  const { s, dataDir } = service(t);
  const fake = fakeElectron();
  serveIpc(fake.electron.ipcMain as unknown as IpcMain, s, shellHandlers({ dialog: fake.electron.dialog as unknown as Dialog, shell: fake.electron.shell as unknown as Shell, window: () => null, dataDir }));
  const call = fake.handlers.get(IPC.call)!;
  assert.equal(((await call(invokeEvent('hone-app://app/index.html'), 'runs.list', [])) as CallReply).ok, true);
  for (const url of ['https://evil.example/', 'file:///tmp/x.html', 'hone-app://elsewhere/index.html', '']) {
    assert.equal(error((await call(invokeEvent(url), 'runs.list', [])) as CallReply).code, 'invalid_argument', url);
  }
  assert.equal(error((await fake.handlers.get(IPC.shell)!(invokeEvent('https://evil.example/'), 'openRunsFolder', [])) as CallReply).code, 'invalid_argument');
});

test('shell calls: dialogs answer paths or nothing, folders only inside the data folder, links only allow-listed', async (t) => {
  const { s, dataDir } = service(t);
  const picked = fakeElectron({ openDialog: { canceled: false, filePaths: ['/models/qwen3-4b.Q4_K_M.gguf'] } });
  const shellOf = (fake: ReturnType<typeof fakeElectron>) => shellHandlers({ dialog: fake.electron.dialog as unknown as Dialog, shell: fake.electron.shell as unknown as Shell, window: () => null as BrowserWindow | null, dataDir });
  serveIpc(picked.electron.ipcMain as unknown as IpcMain, s, shellOf(picked));
  const shellCall = (fake: ReturnType<typeof fakeElectron>, method: string, args: unknown[]) => fake.handlers.get(IPC.shell)!(invokeEvent('hone-app://app/index.html'), method, args) as Promise<CallReply>;

  assert.deepEqual(await shellCall(picked, 'pickModel', []), { ok: true, result: '/models/qwen3-4b.Q4_K_M.gguf' });
  const dialogOptions = picked.calls.find((c) => c.what === 'dialog.showOpenDialog')!.args[0] as { filters: Array<{ extensions: string[] }> };
  assert.deepEqual(dialogOptions.filters[0].extensions, ['gguf']);
  assert.deepEqual(await shellCall(picked, 'pickDatasets', ['files']), { ok: true, result: ['/models/qwen3-4b.Q4_K_M.gguf'] });
  assert.equal(error(await shellCall(picked, 'pickDatasets', ['everything'])).code, 'invalid_argument');

  const cancelled = fakeElectron();
  serveIpc(cancelled.electron.ipcMain as unknown as IpcMain, s, shellOf(cancelled));
  assert.deepEqual(await shellCall(cancelled, 'pickModel', []), { ok: true, result: null });
  assert.deepEqual(await shellCall(cancelled, 'pickDatasets', ['folder']), { ok: true, result: [] });

  // a run folder that exists opens; one that does not is not_found; ids cannot climb out
  mkdirSync(join(dataDir, 'runs', 'r1'), { recursive: true });
  assert.deepEqual(await shellCall(cancelled, 'showRunFolder', ['r1']), { ok: true, result: null });
  assert.deepEqual(cancelled.calls.filter((c) => c.what === 'shell.openPath').map((c) => c.args[0]), [join(dataDir, 'runs', 'r1')]);
  assert.equal(error(await shellCall(cancelled, 'showRunFolder', ['r2'])).code, 'not_found');
  assert.equal(error(await shellCall(cancelled, 'showRunFolder', ['../..'])).code, 'invalid_argument');

  const exported = join(dataDir, 'runs', 'r1', 'adapter.gguf');
  writeFileSync(exported, 'x');
  assert.equal((await shellCall(cancelled, 'showItem', [exported])).ok, true);
  assert.deepEqual(cancelled.calls.filter((c) => c.what === 'shell.showItemInFolder').map((c) => c.args[0]), [exported]);
  assert.equal(error(await shellCall(cancelled, 'showItem', ['/etc/passwd'])).code, 'invalid_argument');
  assert.equal(error(await shellCall(cancelled, 'showItem', [join(dataDir, '..', 'elsewhere')])).code, 'invalid_argument');

  assert.equal((await shellCall(cancelled, 'openExternal', ['https://huggingface.co/docs'])).ok, true);
  assert.equal(error(await shellCall(cancelled, 'openExternal', ['https://evil.example/'])).code, 'invalid_argument');
  assert.equal(error(await shellCall(cancelled, 'openExternal', ['javascript:alert(1)'])).code, 'invalid_argument');
  assert.deepEqual(cancelled.calls.filter((c) => c.what === 'shell.openExternal').map((c) => c.args[0]), ['https://huggingface.co/docs']);
  assert.equal(error(await shellCall(cancelled, 'rm', ['-rf'])).code, 'unknown_request');
});

test('service events reach every open page, never a destroyed one', async (t) => {
  const { s } = service(t);
  const a = new FakeWebContents();
  const b = new FakeWebContents();
  b.destroyed = true;
  const off = forwardEvents(s, () => [a, b]);
  // an event the service emits: a run's status, through its subscribe
  const listeners = (s as unknown as { listeners: Set<(e: unknown) => void> }).listeners;
  for (const l of listeners) l({ type: 'host-exited', reason: 'test', runId: null, error: { code: 'host_exited', message: 'x' } });
  assert.deepEqual(a.sent.map((m) => m.channel), [IPC.event]);
  assert.equal(b.sent.length, 0);
  off();
  assert.equal(listeners.size, 0);
});
