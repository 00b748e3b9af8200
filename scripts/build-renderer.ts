/**
 * The renderer's bundle (Vite, scripts/vite.renderer.config.ts): renderer/ to out/renderer, the
 * folder `hone serve` serves and the window loads. `npm run build` runs it after the Node
 * bundles; `npm run build:renderer` runs Vite alone.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export const RENDERER_OUT = join(root, 'out', 'renderer');

export async function buildRenderer(outDir: string = RENDERER_OUT): Promise<string> {
  const { build } = await import('vite');
  await build({ configFile: join(root, 'scripts', 'vite.renderer.config.ts'), logLevel: 'warn', build: { outDir, emptyOutDir: true } });
  return outDir;
}
