/**
 * `<dataDir>/settings.json`: what the service remembers between starts (the model folders the
 * user added). Written atomically. A file that is not valid JSON or not the expected shape is
 * never dropped silently: it is moved aside to `settings.json.bad` and a warning says so.
 */
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { writeJsonAtomic } from './json-file.ts';
import { reason } from './models/fs-errors.ts';

export interface AppSettings {
  /** Folders added with models.addFolder, absolute paths, in the order added. */
  modelFolders: string[];
  /** Keys this version does not know are kept as they are. */
  [key: string]: unknown;
}

export interface LoadedSettings {
  settings: AppSettings;
  /** Problems with the file, in words naming it. */
  warnings: string[];
}

export function settingsPath(dataDir: string): string {
  return join(dataDir, 'settings.json');
}

/** What is wrong with a parsed settings.json, or null. */
function shapeProblem(v: unknown): string | null {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return 'not a JSON object';
  const folders = (v as Record<string, unknown>).modelFolders;
  if (folders === undefined) return null;
  if (!Array.isArray(folders)) return "'modelFolders' is not a list";
  const i = folders.findIndex((f) => typeof f !== 'string' || !isAbsolute(f));
  return i >= 0 ? `'modelFolders[${i}]' is not an absolute path (${JSON.stringify(folders[i])})` : null;
}

export function loadSettings(dataDir: string): LoadedSettings {
  const path = settingsPath(dataDir);
  const empty = (): AppSettings => ({ modelFolders: [] });
  if (!existsSync(path)) return { settings: empty(), warnings: [] };
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    // unreadable is not corrupt: leave it where it is
    return { settings: empty(), warnings: [`${path}: cannot be read (${reason(err)}); using empty settings`] };
  }
  let value: unknown;
  let problem: string | null;
  try {
    value = JSON.parse(text);
    problem = shapeProblem(value);
  } catch (err) {
    problem = `not valid JSON (${(err as Error).message})`;
  }
  if (!problem) {
    const v = value as Record<string, unknown>;
    return { settings: { ...v, modelFolders: [...((v.modelFolders as string[] | undefined) ?? [])] }, warnings: [] };
  }
  const bad = `${path}.bad`;
  try {
    renameSync(path, bad);
    return { settings: empty(), warnings: [`${path}: ${problem}; moved to ${bad} and started from empty settings (added model folders must be added again)`] };
  } catch (err) {
    return { settings: empty(), warnings: [`${path}: ${problem}; could not move it to ${bad} (${reason(err)}); using empty settings`] };
  }
}

export function saveSettings(dataDir: string, settings: AppSettings): void {
  mkdirSync(dataDir, { recursive: true });
  writeJsonAtomic(settingsPath(dataDir), settings);
}
