/**
 * What an export reads: the adapter, its base model and (from a run) the run's config.json.
 * A run is a run id of the data folder or a run folder's path (the app's or hone-train's
 * `--out`: config.json, adapter.gguf, checkpoints/). A run that has not finished exports the
 * adapter of its newest checkpoint, and the result says so.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import type { TrainConfig } from '../../common/engine-api.ts';
import { HoneError } from '../../common/errors.ts';
import { defaultExportName, type ExportRequest } from '../../common/export.ts';
import { readJsonFile } from '../json-file.ts';
import { reason } from '../models/fs-errors.ts';
import { checkpointsDir, latestCheckpoint } from '../runs/checkpoints.ts';
import { RUN_FILES } from '../runs/run-folder.ts';

export interface ExportSource {
  adapter: string;
  model: string;
  /** The run folder, when the export is of a run. */
  runFolder: string | null;
  /** The run's config.json as saved (hone-train's may lack keys the app writes). */
  config: Partial<TrainConfig> | null;
  /** Where the export goes (resolved). */
  out: string;
  notes: string[];
}

/** Finds the folder of a run id (throws `not_found` for an unknown one). */
export type RunLookup = (id: string) => string;

export async function mustBeFile(path: string, what: string): Promise<void> {
  let info;
  try {
    info = await stat(path);
    await access(path, constants.R_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'not_found' : 'io_error';
    throw new HoneError(code, `${path}: the ${what} cannot be read: ${reason(err)}`, { path });
  }
  if (!info.isFile()) throw new HoneError('io_error', `${path}: the ${what} is not a file`, { path });
}

export function absolute(field: string, path: string, method = 'exports.create'): string {
  if (!isAbsolute(path)) throw new HoneError('invalid_argument', `${method}: request.${field} must be an absolute path (got ${JSON.stringify(path)})`);
  return resolve(path);
}

/**
 * A run's adapter (adapter.gguf, or the newest checkpoint's before it finished, said in `notes`)
 * and its base model (config.json: model), both checked readable. `run` is a run id or the
 * absolute path of a run folder; `method` names the caller in errors.
 */
export async function runAdapter(run: string, lookup: RunLookup, notes: string[], method: string): Promise<{ adapter: string; model: string; runFolder: string; config: Partial<TrainConfig> }> {
  const runFolder = /[\\/]/.test(run) ? absolute('run', run, method) : lookup(run);
  const configPath = join(runFolder, RUN_FILES.config);
  let config: Partial<TrainConfig>;
  try {
    config = readJsonFile(configPath) as Partial<TrainConfig>;
  } catch (err) {
    const e = err as HoneError;
    if (e.code === 'not_found') throw new HoneError('not_found', `${runFolder}: not a run folder (no ${RUN_FILES.config})`, { path: runFolder });
    throw err;
  }
  if (!config || typeof config !== 'object' || typeof config.model !== 'string') {
    throw new HoneError('bad_format', `${configPath}: not a training config (it names no model)`, { path: configPath });
  }
  let adapter = join(runFolder, RUN_FILES.adapter);
  if (!(await stat(adapter).then((s) => s.isFile(), () => false))) {
    const checkpoint = latestCheckpoint(checkpointsDir(runFolder));
    const inCheckpoint = checkpoint ? join(checkpoint, RUN_FILES.adapter) : null;
    if (!inCheckpoint || !(await stat(inCheckpoint).then((s) => s.isFile(), () => false))) {
      throw new HoneError('not_found', `${runFolder}: the run has no adapter yet (no ${RUN_FILES.adapter}: it is written when the run finishes, and no checkpoint holds one)`, { path: runFolder });
    }
    adapter = inCheckpoint;
    notes.push(`the run has not finished: this is the adapter of its newest checkpoint (step ${checkpoint!.split(/[\\/]/).pop()})`);
  }
  const model = config.model;
  await mustBeFile(model, 'base model of the run (config.json: model)');
  return { adapter, model, runFolder, config };
}

export async function resolveSource(request: ExportRequest, lookup: RunLookup): Promise<ExportSource> {
  const notes: string[] = [];
  if (request.run === undefined) {
    const adapter = absolute('adapter', request.adapter!);
    const model = absolute('model', request.model!);
    await mustBeFile(adapter, 'adapter');
    await mustBeFile(model, 'base model');
    return { adapter, model, runFolder: null, config: null, out: absolute('out', request.out!), notes };
  }
  const { adapter, model, runFolder, config } = await runAdapter(request.run, lookup, notes, 'exports.create');
  const out = request.out !== undefined ? absolute('out', request.out) : join(runFolder, 'exports', defaultExportName(request));
  return { adapter, model, runFolder, config, out, notes };
}
