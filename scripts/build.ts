/**
 * `npm run build [-- --outdir DIR]`: compiles the Node entry points of scripts/build-entries.ts
 * to JavaScript (one bundle each, Node 20, ES modules) so the packaged app needs no tsx, then
 * the renderer (scripts/build-renderer.ts). The native addon stays outside the bundles: it is
 * found at run time (engine-host/binding.ts).
 */
import { build as esbuild, type BuildOptions } from 'esbuild';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ENTRIES, type BuildEntry } from './build-entries.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

// Bundled CommonJS packages (ws) call require() for Node builtins; an ES module has none.
const REQUIRE_SHIM = "import { createRequire as __honeCreateRequire } from 'node:module'; const require = __honeCreateRequire(import.meta.url);";

export async function build(options: { outdir?: string; entries?: BuildEntry[] } = {}): Promise<string[]> {
  const outdir = resolve(options.outdir ?? join(root, 'out', 'build'));
  const entries = options.entries ?? ENTRIES;
  const missing = entries.filter((e) => !existsSync(join(root, e.in)));
  if (missing.length) throw new Error(`scripts/build-entries.ts lists entries that do not exist: ${missing.map((e) => e.in).join(', ')}`);
  const written: string[] = [];
  for (const format of ['esm', 'cjs'] as const) {
    const group = entries.filter((e) => (e.format ?? 'esm') === format);
    if (group.length === 0) continue;
    const opts: BuildOptions = {
      entryPoints: group.map((e) => ({ in: join(root, e.in), out: e.out })),
      outdir,
      bundle: true,
      platform: 'node',
      target: 'node20',
      format,
      external: ['*.node', 'electron'],
      banner: format === 'esm' ? { js: REQUIRE_SHIM } : undefined,
      // package.json says "type": "module": a CommonJS bundle needs its own extension
      outExtension: format === 'cjs' ? { '.js': '.cjs' } : undefined,
      sourcemap: true,
      logLevel: 'warning',
    };
    await esbuild(opts);
    written.push(...group.map((e) => join(outdir, `${e.out}.${format === 'cjs' ? 'cjs' : 'js'}`)));
  }
  return written;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const i = process.argv.indexOf('--outdir');
  const outdir = i > 0 ? process.argv[i + 1] : undefined;
  const files = await build({ outdir });
  for (const f of files) console.log(`built ${f}`);
  // the renderer (Vite): out/renderer, or <outdir>/renderer beside the bundles
  const { buildRenderer } = await import('./build-renderer.ts');
  console.log(`built ${await buildRenderer(outdir ? join(resolve(outdir), 'renderer') : undefined)}`);
}
