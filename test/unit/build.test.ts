// `npm run build`: the compiled CLI and engine host run with plain node, from a folder with no
// node_modules (so no tsx), and the CLI starts the compiled host, not the TypeScript one.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { hostEntry, hostExecArgv } from '../../electron/services/engine/client.ts';
import { build } from '../../scripts/build.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Plain node, no loader flags inherited from this test process. */
function runNode(args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, args, { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '', ...env }, timeout: 15_000 });
}

test('the compiled CLI runs with plain node and starts the compiled engine host', async (t) => {
  const out = mkdtempSync(join(tmpdir(), 'hone-build-'));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  const files = await build({ outdir: out });
  assert.deepEqual(files.sort(), [join(out, 'cli', 'hone.js'), join(out, 'engine-host', 'host-main.js'), join(out, 'main', 'main.js'), join(out, 'preload', 'preload.cjs')]);

  // A sandboxed preload can require nothing but 'electron': everything else must be bundled in.
  const preload = readFileSync(join(out, 'preload', 'preload.cjs'), 'utf8');
  assert.deepEqual([...new Set([...preload.matchAll(/\brequire\(["']([^"']+)["']\)/g)].map((m) => m[1]))], ['electron']);
  assert.ok(preload.includes('exposeInMainWorld'), 'the preload bundle exposes the API');
  // Main loads no addon and no module outside the bundle but Node's and Electron's own.
  const main = readFileSync(join(out, 'main', 'main.js'), 'utf8');
  const imported = [...main.matchAll(/^import .* from ["']([^"']+)["'];?$/gm)].map((m) => m[1]);
  assert.ok(imported.includes('electron'), imported.join(', '));
  for (const spec of imported) assert.ok(spec === 'electron' || spec.startsWith('node:') || builtinModules.includes(spec), `main imports ${spec}`);
  // …and never loads the addon: the engine host's loader is not part of it
  assert.ok(!main.includes('function loadAddon') && !main.includes('process.dlopen'), 'main contains the addon loader');

  const help = runNode([join(out, 'cli', 'hone.js'), '--help']);
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /^usage:\n {2}hone data inspect/);

  // The host loads the addon on its first request: an addon path that does not exist makes the
  // compiled host answer with that error, which shows it was started and spoke over IPC.
  const missing = join(out, 'no-such-addon.node');
  const r = runNode([join(out, 'cli', 'hone.js'), 'data', 'inspect', '--model', join(out, 'm.gguf'), '--data', join(out, 'd.jsonl'), '--json'], { HONE_ADDON: missing });
  assert.equal(r.status, 1, r.stderr);
  const reply = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
  assert.equal(reply.type, 'error');
  assert.equal(reply.code, 'internal');
  assert.ok(reply.message.includes(`HONE_ADDON=${missing}`), reply.message);
});

test('the host entry is the .js beside a bundle and the .ts (through tsx) from the sources', () => {
  const bundle = pathToFileURL(join(root, 'out', 'some-build', 'cli', 'hone.js')).href;
  // Without a build there, nothing is found; the error names what is missing.
  assert.throws(() => hostEntry(bundle), (e: Error & { code?: string }) => e.code === 'internal' && /engine-host[\\/]host-main\.js/.test(e.message));
  assert.deepEqual(hostExecArgv(bundle), []);

  const source = pathToFileURL(join(root, 'electron', 'services', 'engine', 'client.ts')).href;
  assert.equal(hostEntry(source), join(root, 'electron', 'engine-host', 'host-main.ts'));
  assert.ok(existsSync(hostEntry(source)));
  assert.deepEqual(hostExecArgv(source).slice(0, 1), ['--import']);
});
