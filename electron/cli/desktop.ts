/**
 * `hone start` opens the desktop app where it can: Electron's binary installed (a download that
 * ELECTRON_SKIP_BINARY_DOWNLOAD=1 skips) and a display to show it on. Elsewhere it says why and
 * the app opens in web mode instead.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { HoneError } from '../common/errors.ts';
import { findUp } from '../services/locate.ts';

/**
 * Electron's executable from its npm package, or why there is none. Read from the package's
 * path.txt, not through require('electron'), which would try to download a missing binary.
 */
export function electronExecutable(from: string = import.meta.url): { path: string } | { missing: string } {
  let pkg: string;
  try {
    pkg = dirname(createRequire(from).resolve('electron/package.json'));
  } catch {
    return { missing: 'the electron package is not installed' };
  }
  const pathFile = join(pkg, 'path.txt');
  if (!existsSync(pathFile)) return { missing: "Electron's binary was not downloaded (ELECTRON_SKIP_BINARY_DOWNLOAD=1 at install)" };
  const path = join(pkg, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(path) ? { path } : { missing: `${path} does not exist` };
}

/** Why the window cannot be shown here, or null when it can. */
export function noDisplay(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string | null {
  if (platform !== 'linux' && platform !== 'freebsd' && platform !== 'openbsd') return null;
  return env.DISPLAY || env.WAYLAND_DISPLAY ? null : 'no display (neither DISPLAY nor WAYLAND_DISPLAY is set)';
}

/** Compiles main, preload, host and renderer (npm run build) so Electron runs what the sources say. */
export function buildApp(): string {
  const root = findUp('package.json', import.meta.url);
  if (!root) throw new HoneError('internal', 'cannot find the checkout to build the app in');
  process.stderr.write('building the app (main, preload, engine host, renderer)...\n');
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'build.ts')], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new HoneError('internal', 'building the app failed (npm run build shows why)');
  return join(root, 'out', 'build', 'main', 'main.js');
}

/** Runs the desktop app on a data folder until its window is closed; resolves with its exit code. */
export function runDesktop(electron: string, main: string, dataDir: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(electron, [main], { stdio: 'inherit', env: { ...process.env, HONE_DATA_DIR: dataDir } });
    child.on('error', (e) => {
      process.stderr.write(`hone: error: Electron did not start: ${e.message}\n`);
      resolve(1);
    });
    child.on('exit', (code, signal) => resolve(signal ? 1 : code ?? 0));
  });
}
