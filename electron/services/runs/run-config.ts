/**
 * From what a caller sets for a run to the full TrainConfig the engine gets: defaults, then
 * the settings; the run folder is the service's choice. Input files are checked before any
 * run folder exists, so a typo in a path never leaves an empty run behind.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import type { TrainConfig } from '../../common/engine-api.ts';
import { HoneError } from '../../common/errors.ts';
import type { RunSettings } from '../../common/service.ts';
import { reason } from '../models/fs-errors.ts';

/** defaults < settings; `out` is the run folder the service picked. */
export function trainConfigFor(settings: RunSettings, defaults: TrainConfig, out: string): TrainConfig {
  if (settings.out !== undefined && settings.out !== '') {
    throw new HoneError('invalid_argument', `settings.out: the service places every run in its own folder; leave 'out' unset (got ${JSON.stringify(settings.out)})`);
  }
  const given = Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined)) as Partial<TrainConfig>;
  const config: TrainConfig = { ...defaults, ...given, out };
  config.data = [...config.data];
  config.evalData = [...config.evalData];
  return config;
}

/** The input paths of a config, each with the setting it came from. */
function inputsOf(config: TrainConfig): Array<{ field: string; path: string; kind: 'file' | 'file or folder' }> {
  return [
    { field: 'model', path: config.model, kind: 'file' as const },
    ...config.data.map((path, i) => ({ field: `data[${i}]`, path, kind: 'file or folder' as const })),
    ...config.evalData.map((path, i) => ({ field: `evalData[${i}]`, path, kind: 'file or folder' as const })),
    ...(config.chatTemplate ? [{ field: 'chatTemplate', path: config.chatTemplate, kind: 'file' as const }] : []),
  ];
}

/** Every input is an absolute path to something readable; `io_error` naming the setting and the path otherwise. */
export async function checkInputs(config: TrainConfig): Promise<void> {
  for (const { field, path, kind } of inputsOf(config)) {
    if (!isAbsolute(path)) throw new HoneError('invalid_argument', `settings.${field}: must be an absolute path (got ${JSON.stringify(path)})`);
    let info;
    try {
      info = await stat(path);
      await access(path, constants.R_OK);
    } catch (err) {
      throw new HoneError('io_error', `settings.${field}: ${path}: ${reason(err)}`, { field, path, errno: (err as NodeJS.ErrnoException).code });
    }
    if (kind === 'file' && !info.isFile()) throw new HoneError('io_error', `settings.${field}: ${path}: not a file`, { field, path });
    if (!info.isFile() && !info.isDirectory()) throw new HoneError('io_error', `settings.${field}: ${path}: neither a file nor a folder`, { field, path });
  }
}
