/**
 * The files the app runs from, found by walking up from the compiled main (out/build/main/…),
 * the same way in a checkout and inside the packaged app's asar: the preload and the engine host
 * beside it, the renderer's build, the docs; the addon in the package's resources.
 */
import { join } from 'node:path';
import { HoneError } from '../common/errors.ts';
import { hostEntry } from '../services/engine/client.ts';
import { findUp } from '../services/locate.ts';

export interface AppPaths {
  preload: string;
  renderer: string;
  hostEntry: string;
  docs: string;
  /** The addon in a packaged app (`<resources>/native/hone.node`); null in a checkout (the host finds native/bin). */
  addon: string | null;
}

function above(relative: string, moduleUrl: string): string {
  const dir = findUp(relative, moduleUrl);
  if (!dir) throw new HoneError('internal', `cannot find ${relative} in any folder above ${moduleUrl}: run \`npm run build\` first`);
  return join(dir, relative);
}

export function appPaths(moduleUrl: string, resourcesPath: string | null): AppPaths {
  return {
    preload: above(join('preload', 'preload.cjs'), moduleUrl),
    renderer: join(above(join('out', 'renderer', 'index.html'), moduleUrl), '..'),
    hostEntry: hostEntry(moduleUrl),
    docs: resourcesPath ? join(resourcesPath, 'docs') : above('docs', moduleUrl),
    addon: resourcesPath ? join(resourcesPath, 'native', 'hone.node') : null,
  };
}
