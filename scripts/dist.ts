/**
 * `npm run dist [-- <electron-builder options>]`: everything the package needs, then the package.
 *   1. the native engine as distributed (HONE_DIST=1: no GGML_NATIVE; shared ggml with every CPU
 *      variant loaded at run time on x86-64; CUDA with HONE_CUDA=1; Metal on Apple silicon)
 *   2. the compiled main, preload, engine host, CLI and the renderer (scripts/build.ts)
 *   3. electron-builder for this platform (electron-builder.yml), with the options given
 */
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function step(what: string, cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): void {
  console.log(`[dist] ${what}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env });
  if (r.status !== 0) {
    console.error(`[dist] ${what} failed (${r.error?.message ?? `exit ${r.status}`})`);
    process.exit(1);
  }
}

step('native engine (distributable build)', process.execPath, [join(root, 'native', 'scripts', 'build-native.mjs')], { ...process.env, HONE_DIST: '1' });
step('main, preload, engine host, CLI, renderer', process.execPath, ['--import', 'tsx', join(root, 'scripts', 'build.ts')]);
step('package', process.execPath, [join(root, 'node_modules', 'electron-builder', 'cli.js'), ...process.argv.slice(2)]);
