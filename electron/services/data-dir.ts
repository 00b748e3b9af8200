/**
 * Where Hone keeps its own files (runs, uploads, remembered model folders): `--data-dir`, else
 * `$HONE_DATA_DIR`, else the platform's place for application data. The one place that says so.
 */
import { homedir } from 'node:os';
import { join, resolve, win32 } from 'node:path';

/**
 * The platform default: Linux (and other Unix) `$XDG_DATA_HOME/hone` or `~/.local/share/hone`,
 * macOS `~/Library/Application Support/Hone`, Windows `%APPDATA%\Hone`.
 */
export function defaultDataDir(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
  home: string = homedir(),
): string {
  if (platform === 'win32') return win32.join(env.APPDATA || win32.join(home, 'AppData', 'Roaming'), 'Hone');
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'Hone');
  // XDG: a relative XDG_DATA_HOME is invalid and is ignored
  const xdg = env.XDG_DATA_HOME;
  return join(xdg && xdg.startsWith('/') ? xdg : join(home, '.local', 'share'), 'hone');
}

/** The data folder to use: an explicit one (a flag), else `$HONE_DATA_DIR`, else the default; absolute. */
export function resolveDataDir(explicit?: string | null, env: NodeJS.ProcessEnv = process.env): string {
  if (explicit) return resolve(explicit);
  if (env.HONE_DATA_DIR) return resolve(env.HONE_DATA_DIR);
  return defaultDataDir(process.platform, env);
}
