/**
 * Finding the project's own files (the addon, the demo text, the engine host's entry) from
 * wherever this code runs: electron/… through tsx, out/build/… compiled, or inside a packaged
 * app. Paths are found by walking up from the running file, never by a fixed depth (a bundle
 * sits at another depth than its sources).
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** True when this code runs compiled (out/build/…/*.js) rather than as TypeScript. */
export function runsCompiled(moduleUrl: string = import.meta.url): boolean {
  return moduleUrl.endsWith('.js');
}

/** The nearest folder above the running file that holds `relative`, or null. */
export function findUp(relative: string, moduleUrl: string = import.meta.url): string | null {
  let dir = dirname(fileURLToPath(moduleUrl));
  for (;;) {
    if (existsSync(join(dir, relative))) return dir;
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}
