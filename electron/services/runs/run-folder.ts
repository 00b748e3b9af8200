/**
 * Where a run's files are: `<dataDir>/runs/<id>/` (docs/run-folder.md). Every path to a run
 * folder is made here, from an id that is checked to name exactly one folder directly inside
 * the runs folder, so nothing the registry writes or removes can land outside it.
 */
import { lstatSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { HoneError } from '../../common/errors.ts';
import { reason } from '../models/fs-errors.ts';
import { makeRunId } from './run-id.ts';

/** The files of a run folder, by what they hold. */
export const RUN_FILES = {
  /** The TrainConfig the run uses (written by the service, again by the engine host). */
  config: 'config.json',
  /** One RunEventRecord per line, append-only. */
  events: 'events.jsonl',
  /** The service's record of the run (status, error, segments, times). */
  status: 'status.json',
  /** Written by the engine host when the run finished. */
  adapter: 'adapter.gguf',
  runJson: 'run.json',
  ops: 'ops.json',
} as const;

export function runsRoot(dataDir: string): string {
  return join(resolve(dataDir), 'runs');
}

/**
 * The folder of run `id` under `root`: resolved, and refused unless it is one folder name
 * directly inside `root` (no `..`, no separator, not absolute).
 */
export function runFolder(root: string, id: string): string {
  const base = resolve(root);
  const folder = resolve(base, id);
  if (!id || isAbsolute(id) || relative(base, folder) !== id || dirname(folder) !== base) {
    throw new HoneError('invalid_argument', `${JSON.stringify(id)} is not a run id (it must name a folder directly inside ${base})`);
  }
  return folder;
}

/** Makes a new, empty run folder with a fresh id (another id when the name is taken). */
export function createRunFolder(root: string, now: Date = new Date()): { id: string; folder: string } {
  try {
    mkdirSync(root, { recursive: true });
  } catch (err) {
    throw new HoneError('io_error', `${root}: cannot make the runs folder: ${reason(err)}`);
  }
  for (let attempt = 0; attempt < 32; attempt++) {
    const id = makeRunId(now);
    const folder = runFolder(root, id);
    try {
      mkdirSync(folder); // not recursive: fails when another run took the name
      return { id, folder };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new HoneError('io_error', `${folder}: cannot make the run folder: ${reason(err)}`);
    }
  }
  throw new HoneError('internal', `no free run id under ${root} for ${now.toISOString()} after 32 tries`);
}

/** True when run `id` has a real folder (not a link) under `root`. */
export function runFolderExists(root: string, id: string): boolean {
  try {
    return lstatSync(runFolder(root, id)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Removes run `id`'s folder and nothing else: the path is checked to be directly inside
 * `root`, and must be a real folder (a symbolic link planted there is refused, not followed).
 * Links inside the folder are removed as links; their targets (a model, a data file) stay.
 */
export function removeRunFolder(root: string, id: string): void {
  const folder = runFolder(root, id);
  let info;
  try {
    info = lstatSync(folder);
  } catch {
    throw new HoneError('not_found', `no run ${id} (no folder ${folder})`);
  }
  if (!info.isDirectory()) throw new HoneError('invalid_argument', `${folder} is not a run folder (${info.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}); not removed`);
  try {
    rmSync(folder, { recursive: true });
  } catch (err) {
    throw new HoneError('io_error', `${folder}: cannot be removed: ${reason(err)}`);
  }
}
