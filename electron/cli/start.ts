/**
 * `hone start` (`npm start`): the main job on an embedded default. Trains the headless demo
 * (a tiny model the project makes, a small dataset about Hone), then opens the app on the same
 * data folder with the demo's folder among its models: the desktop app where Electron's binary
 * and a display are (desktop.ts), else web mode (it prints the address to open).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { HoneError } from '../common/errors.ts';
import { findUp } from '../services/locate.ts';
import { demoDir } from './demo.ts';
import type { ServiceFactory } from './serve.ts';

/** Builds the renderer when a checkout has not yet (a packaged app ships it built). */
export function ensureRenderer(): void {
  const root = findUp('package.json', import.meta.url);
  if (!root || existsSync(join(root, 'out', 'renderer', 'index.html'))) return;
  process.stderr.write('building the app (the renderer) once...\n');
  const r = spawnSync(process.execPath, [join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', join(root, 'scripts', 'vite.renderer.config.ts')], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (r.status !== 0) throw new HoneError('internal', `building the renderer failed (npm run build:renderer shows why)`);
}

/** The chat dataset the demo trained on. */
export const demoDataset = () => join(demoDir(), 'hone-qa.jsonl');

/** The service factory of `hone serve`, with the demo's models folder added. */
export function withDemoModels(base: ServiceFactory): ServiceFactory {
  return async (dataDir) => {
    const service = await base(dataDir);
    await service.models.addFolder(demoDir());
    return service;
  };
}

