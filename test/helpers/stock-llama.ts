/**
 * An independent llama.cpp for tests: node-llama-cpp's prebuilt binary package for this
 * platform (its own build of the llama.cpp release, shared libraries, none of our patches), not
 * the one native/ builds. Fetched once through npm (`npm pack`, integrity-pinned) into the
 * build's cache folder and unpacked there; nothing is added to the project's dependencies.
 * Generation runs in a child process (stock-generate.mjs), apart from our own addon.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The prebuilt package of the node-llama-cpp release whose llama.cpp source native/ builds. */
const PACKAGES: Record<string, { spec: string; tarball: string; integrity: string; dir: string }> = {
  'linux-x64': {
    spec: '@node-llama-cpp/linux-x64@3.21.1',
    tarball: 'node-llama-cpp-linux-x64-3.21.1.tgz',
    integrity: 'sha512-Totj6RTDMGo3FoK2yNUaz/oGmZD0olAqTrRluFUWmu0kW2i9TOzHSW0OWCAiGkzRCVX0WsU2CyUQo/W2NYtdPA==',
    dir: 'linux-x64',
  },
};

const cacheDir = () => process.env.HONE_CACHE_DIR || join(homedir(), '.cache', 'hone');

/** Why no stock runtime is available here, or null when there is one. */
export function stockUnavailable(): string | null {
  const key = `${process.platform}-${process.arch}`;
  return PACKAGES[key] ? null : `no node-llama-cpp prebuilt package is pinned for ${key}`;
}

/** The stock addon's path (llama-addon.node), fetching and unpacking its package on first use. */
export function stockAddon(): string {
  const pkg = PACKAGES[`${process.platform}-${process.arch}`];
  if (!pkg) throw new Error(stockUnavailable()!);
  const root = join(cacheDir(), 'stock-llama', pkg.tarball.replace(/\.tgz$/, ''));
  const addon = join(root, 'package', 'bins', pkg.dir, 'llama-addon.node');
  if (existsSync(addon)) return addon;
  mkdirSync(cacheDir(), { recursive: true });
  const file = join(cacheDir(), pkg.tarball);
  const sha512 = () => 'sha512-' + createHash('sha512').update(readFileSync(file)).digest('base64');
  if (!existsSync(file) || sha512() !== pkg.integrity) {
    execFileSync('npm', ['pack', pkg.spec, '--pack-destination', cacheDir(), '--silent'], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  if (sha512() !== pkg.integrity) throw new Error(`${file}: integrity mismatch (expected ${pkg.integrity})`);
  const tmp = `${root}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  execFileSync('tar', ['-xzf', file, '-C', tmp]);
  rmSync(root, { recursive: true, force: true });
  mkdirSync(dirname(root), { recursive: true });
  renameSync(tmp, root);
  return addon;
}

/** Greedy decoding by the stock runtime: `n` tokens after `prompt` (BOS first), with the LoRA `adapter` applied when given. */
export function stockGenerate(model: string, adapter: string | null, prompt: string, n: number): { text: string; tokens: number[] } {
  const script = join(dirname(fileURLToPath(import.meta.url)), 'stock-generate.mjs');
  const r = spawnSync(process.execPath, [script, stockAddon(), model, adapter ?? '', prompt, String(n)], { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) throw new Error(`the stock runtime failed (${r.status ?? r.signal}): ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!);
}
