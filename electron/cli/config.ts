/**
 * Training options: the engine's defaults < config file (hone.config.json / .yaml / .yml, or
 * --config) < command-line flags. Every option has one camelCase key in files (kebab-case
 * accepted) and one --kebab-case flag; its kind is OPTION_KINDS' (electron/common), its default
 * the engine's (the host's `capabilities`). Unknown keys and wrong types are errors naming the
 * key and the file.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { TrainConfig } from '../common/engine-api.ts';
import { HoneError } from '../common/errors.ts';
import { isOptionKey, OPTION_KINDS } from '../common/settings-schema.ts';

/** Options holding paths: relative paths in a config file are relative to the file. */
const PATHS: ReadonlyArray<keyof TrainConfig> = ['model', 'data', 'out', 'evalData', 'chatTemplate'];

export const CONFIG_FILES = ['hone.config.json', 'hone.config.yaml', 'hone.config.yml'];

export const camel = (k: string) => k.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
export const kebab = (k: string) => k.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase());

export const isOption = isOptionKey;

/** Checks and converts one value; `where` names the file or flag in errors. */
export function coerce(key: keyof TrainConfig, value: unknown, where: string): unknown {
  const kind = OPTION_KINDS[key];
  const bad = (what: string) => new HoneError('bad_config', `${where}: '${key}' ${what} (got ${JSON.stringify(value)})`);
  if (key === 'ctx' && value === 'auto') return 0; // proposed from the data's lengths
  if (kind === 'paths') {
    const arr = Array.isArray(value) ? value : [value];
    if (!arr.every((v) => typeof v === 'string' && v.length > 0)) throw bad('must be a path or a list of paths');
    return arr;
  }
  if (kind === 'number' || kind === 'integer') {
    const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof n !== 'number' || !Number.isFinite(n)) throw bad('must be a number');
    if (kind === 'integer' && !Number.isInteger(n)) throw bad('must be a whole number');
    return n;
  }
  if (kind === 'boolean') {
    if (value === 'true' || value === true) return true;
    if (value === 'false' || value === false) return false;
    throw bad('must be true or false');
  }
  if (typeof value !== 'string') throw bad('must be a string');
  if (Array.isArray(kind) && !kind.includes(value)) throw bad(`must be one of ${kind.join(', ')}`);
  return value;
}

/** Reads a config file into partial options (paths made absolute against the file's folder). */
export function readConfigFile(path: string): Partial<TrainConfig> {
  let raw: unknown;
  try {
    const text = readFileSync(path, 'utf8');
    raw = /\.ya?ml$/i.test(path) ? parseYaml(text) : JSON.parse(text);
  } catch (e) {
    throw new HoneError('bad_config', `${path}: cannot read the config file (${(e as Error).message})`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new HoneError('bad_config', `${path}: expected an object of options`);
  const out: Record<string, unknown> = {};
  const base = resolve(path, '..');
  for (const [k0, v] of Object.entries(raw as Record<string, unknown>)) {
    const k = camel(k0);
    if (!isOption(k)) throw new HoneError('bad_config', `${path}: unknown option '${k0}' (known: ${Object.keys(OPTION_KINDS).map(kebab).join(', ')})`);
    let val = coerce(k, v, path);
    if (PATHS.includes(k)) val = Array.isArray(val) ? val.map((p: string) => (isAbsolute(p) ? p : resolve(base, p))) : val ? resolve(base, val as string) : val;
    out[k] = val;
  }
  return out as Partial<TrainConfig>;
}

/** The config file to use: --config, else the first hone.config.* in `cwd`, else none. */
export function findConfigFile(explicit: string | undefined, cwd = process.cwd()): string | null {
  if (explicit) {
    if (!existsSync(explicit)) throw new HoneError('bad_config', `${explicit}: config file not found`);
    return explicit;
  }
  for (const f of CONFIG_FILES) if (existsSync(resolve(cwd, f))) return resolve(cwd, f);
  return null;
}

/** The engine's defaults < file < flags. Flag paths are relative to the working folder. */
export function resolveConfig(defaults: TrainConfig, file: Partial<TrainConfig>, flags: Partial<TrainConfig>): TrainConfig {
  const cfg = { ...defaults, ...file, ...flags } as TrainConfig;
  for (const k of PATHS) {
    const v = flags[k];
    if (v === undefined) continue;
    (cfg as unknown as Record<string, unknown>)[k] = Array.isArray(v) ? v.map((p) => resolve(p)) : v ? resolve(v as string) : v;
  }
  return cfg;
}

/** The missing required options of a training run, as flag names. */
export function missingForTrain(cfg: Partial<TrainConfig>): string[] {
  const miss: string[] = [];
  if (!cfg.model) miss.push('--model');
  if (!cfg.data?.length) miss.push('--data');
  if (!cfg.out) miss.push('--out');
  return miss;
}
