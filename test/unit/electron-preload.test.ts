// The preload puts exactly the service, the shell and dropped files' paths on the page — run
// as its real compiled bundle with a stand-in `electron` — and nothing raw crosses: no
// ipcRenderer, no Electron event object, errors as {code, message} data.
import assert from 'node:assert/strict';
import { readFileSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import vm from 'node:vm';
import { IPC } from '../../electron/common/ipc.ts';
import { SERVICE_METHODS } from '../../electron/common/service.ts';
import { SHELL_METHODS } from '../../electron/common/shell.ts';
import { build } from '../../scripts/build.ts';

const plain = (v: unknown) => JSON.parse(JSON.stringify(v));

class FakeIpcRenderer {
  invoked: unknown[][] = [];
  listeners = new Map<string, Set<(event: unknown, ...a: unknown[]) => void>>();
  reply: (channel: string, method: string, args: unknown[]) => unknown = () => ({ ok: true, result: null });
  async invoke(channel: string, method: string, args: unknown[]) {
    this.invoked.push([channel, method, args]);
    return this.reply(channel, method, args);
  }
  on(channel: string, l: (event: unknown, ...a: unknown[]) => void) {
    if (!this.listeners.has(channel)) this.listeners.set(channel, new Set());
    this.listeners.get(channel)!.add(l);
  }
  removeListener(channel: string, l: (event: unknown, ...a: unknown[]) => void) {
    this.listeners.get(channel)?.delete(l);
  }
  emit(channel: string, value: unknown) {
    for (const l of this.listeners.get(channel) ?? []) l({ sender: 'the raw IpcRendererEvent', ports: [] }, value);
  }
}

/** Runs the compiled preload with a stand-in electron; returns what it exposed. */
async function runPreload(t: { after(f: () => void): void }) {
  const out = mkdtempSync(join(tmpdir(), 'hone-preload-'));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  await build({ outdir: out, entries: [{ in: 'electron/preload/preload.ts', out: 'preload/preload', format: 'cjs' }] });
  const code = readFileSync(join(out, 'preload', 'preload.cjs'), 'utf8');
  const exposed: Record<string, unknown> = {};
  const ipc = new FakeIpcRenderer();
  const required: string[] = [];
  const electron = {
    contextBridge: { exposeInMainWorld: (key: string, api: unknown) => (exposed[key] = api) },
    ipcRenderer: ipc,
    webUtils: { getPathForFile: (f: { name: string; dropped?: boolean }) => (f.dropped ? `/home/u/data/${f.name}` : '') },
  };
  const module = { exports: {} };
  vm.runInNewContext(code, { require: (m: string) => (required.push(m), m === 'electron' ? electron : undefined), module, exports: module.exports, console });
  return { exposed, ipc, required };
}

test('the compiled preload exposes exactly hone, honeShell and honeFiles, requiring only electron', async (t) => {
  const { exposed, required } = await runPreload(t);
  assert.deepEqual(Object.keys(exposed).sort(), ['hone', 'honeFiles', 'honeShell']);
  assert.deepEqual([...new Set(required)], ['electron']);

  // hone: the groups and methods of SERVICE_METHODS, plus subscribe; every value a function
  const hone = exposed.hone as Record<string, unknown>;
  const expected: Record<string, string[]> = {};
  for (const m of Object.keys(SERVICE_METHODS)) {
    const [g, n] = m.includes('.') ? m.split('.') : ['', m];
    (expected[g] ??= []).push(n);
  }
  assert.deepEqual(Object.keys(hone).sort(), [...(expected[''] ?? []), ...Object.keys(expected).filter((g) => g), 'subscribe'].sort());
  for (const [g, names] of Object.entries(expected)) {
    const owner = (g ? hone[g] : hone) as Record<string, unknown>;
    if (g) assert.deepEqual(Object.keys(owner).sort(), [...names].sort(), g);
    for (const n of names) assert.equal(typeof owner[n], 'function', `${g}.${n}`);
  }
  assert.deepEqual(Object.keys(exposed.honeShell as object).sort(), [...Object.keys(SHELL_METHODS), 'onCommand'].sort());
  assert.deepEqual(Object.keys(exposed.honeFiles as object), ['pathForFile']);

  // nothing raw: no ipcRenderer or its methods anywhere in what is exposed
  const seen = new Set<unknown>();
  const walk = (v: unknown, path: string) => {
    if (!v || typeof v !== 'object' || seen.has(v)) return;
    seen.add(v);
    for (const [k, x] of Object.entries(v)) {
      assert.ok(!['invoke', 'send', 'sendSync', 'on', 'ipcRenderer', 'postMessage'].includes(k), `${path}.${k} is exposed`);
      walk(x, `${path}.${k}`);
    }
  };
  walk(exposed, 'window');
});

test('calls go over invoke with their wire name; errors reject as {code, message}; listeners get the value only', async (t) => {
  const { exposed, ipc } = await runPreload(t);
  const hone = exposed.hone as { runs: { get(id: string): Promise<unknown>; list(): Promise<unknown> }; info(): Promise<unknown>; subscribe(l: (e: unknown) => void): () => void };
  ipc.reply = (_c, method) => (method === 'runs.get' ? { ok: false, error: { code: 'not_found', message: 'no run r9', detail: { id: 'r9' } } } : { ok: true, result: [method] });
  assert.deepEqual(await hone.runs.list(), ['runs.list']);
  assert.deepEqual(await hone.info(), ['info']);
  await assert.rejects(hone.runs.get('r9'), (e: unknown) => {
    assert.deepEqual(e, { code: 'not_found', message: 'no run r9', detail: { id: 'r9' } });
    return true;
  });
  // values made inside the preload's context have its prototypes: compare them as data
  assert.deepEqual(plain(ipc.invoked), [[IPC.call, 'runs.list', []], [IPC.call, 'info', []], [IPC.call, 'runs.get', ['r9']]]);

  const got: unknown[] = [];
  const off = hone.subscribe((e) => got.push(e));
  ipc.emit(IPC.event, { type: 'run', runId: 'r1', record: { seq: 1 } });
  off();
  ipc.emit(IPC.event, { type: 'run', runId: 'r1', record: { seq: 2 } });
  assert.deepEqual(got, [{ type: 'run', runId: 'r1', record: { seq: 1 } }]);

  const shell = exposed.honeShell as { pickModel(): Promise<unknown>; onCommand(l: (c: unknown) => void): () => void };
  ipc.reply = () => ({ ok: true, result: '/models/m.gguf' });
  assert.equal(await shell.pickModel(), '/models/m.gguf');
  assert.deepEqual(plain(ipc.invoked.at(-1)), [IPC.shell, 'pickModel', []]);
  const commands: unknown[] = [];
  shell.onCommand((c) => commands.push(c));
  ipc.emit(IPC.command, { type: 'open-model', path: '/models/m.gguf' });
  assert.deepEqual(commands, [{ type: 'open-model', path: '/models/m.gguf' }]);

  const files = exposed.honeFiles as { pathForFile(f: unknown): string };
  assert.equal(files.pathForFile({ name: 'chat.jsonl', dropped: true }), '/home/u/data/chat.jsonl');
  assert.throws(() => files.pathForFile({ name: 'made-in-page.jsonl' }), (e: { code?: string; message?: string }) => e.code === 'invalid_argument' && /made-in-page\.jsonl/.test(e.message!));
});
