/**
 * The run registry: every run is a folder `<dataDir>/runs/<id>/` (docs/run-folder.md). This
 * class reads and writes those folders; it knows nothing of engine hosts. A folder whose
 * status.json is missing or broken is still listed (as `failed`, the error naming the file)
 * so it can be seen and deleted, and its file is left as it is.
 */
import { readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { TrainConfig } from '../../common/engine-api.ts';
import { HoneError, toPlain } from '../../common/errors.ts';
import type { RunEventRecord } from '../../common/runs.ts';
import { readJsonFile, writeJsonAtomic } from '../json-file.ts';
import { reason } from '../models/fs-errors.ts';
import { checkpointsDir, latestCheckpoint } from './checkpoints.ts';
import { EventsLog, readEventsLog } from './events-log.ts';
import { RUN_ID_PATTERN } from './run-id.ts';
import { createRunFolder, removeRunFolder, RUN_FILES, runFolder, runFolderExists } from './run-folder.ts';
import { afterRestart, checkStatusFile, newStatusFile, STATUS_FILE_VERSION, type RunStatusFile } from './run-status.ts';

export class RunRegistry {
  constructor(readonly root: string) {}

  folder(id: string): string {
    return runFolder(this.root, id);
  }

  file(id: string, name: keyof typeof RUN_FILES): string {
    return join(this.folder(id), RUN_FILES[name]);
  }

  /** Run ids with a folder, in no particular order (other names in the runs folder are not runs). */
  ids(): string[] {
    let names: string[];
    try {
      names = readdirSync(this.root);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new HoneError('io_error', `${this.root}: cannot list the runs folder: ${reason(err)}`);
    }
    return names.filter((n) => RUN_ID_PATTERN.test(n) && runFolderExists(this.root, n));
  }

  /** Throws `not_found` unless run `id` has a folder. */
  mustExist(id: string): void {
    if (!runFolderExists(this.root, id)) throw new HoneError('not_found', `no run ${id} (no folder ${this.folder(id)})`, { id });
  }

  /** A new run folder with config.json (`out` = the folder) and status.json at `starting`. */
  create(configFor: (folder: string) => TrainConfig, now: Date = new Date()): { status: RunStatusFile; config: TrainConfig; folder: string } {
    const { id, folder } = createRunFolder(this.root, now);
    const config = configFor(folder);
    writeJsonAtomic(join(folder, RUN_FILES.config), config);
    const status = newStatusFile(id, config, now);
    this.writeStatus(status);
    return { status, config, folder };
  }

  writeStatus(st: RunStatusFile): void {
    writeJsonAtomic(this.file(st.id, 'status'), st);
  }

  /** status.json of run `id`; `not_found` without a folder, `bad_format` when the file is broken. */
  readStatus(id: string): RunStatusFile {
    this.mustExist(id);
    const file = this.file(id, 'status');
    return checkStatusFile(readJsonFile(file), file, id);
  }

  /** As readStatus, but a broken or missing status.json gives a `failed` record naming the problem (not written). */
  statusOrBroken(id: string): RunStatusFile {
    try {
      return this.readStatus(id);
    } catch (err) {
      const e = toPlain(err);
      if (e.code === 'not_found' && !runFolderExists(this.root, id)) throw err;
      let when = new Date(0).toISOString();
      try {
        when = statSync(this.folder(id)).mtime.toISOString();
      } catch {
        // the folder went away meanwhile: the time stays unknown
      }
      return {
        version: STATUS_FILE_VERSION, id, title: id, status: 'failed', error: { code: 'bad_format', message: e.message },
        segments: 1, createdAt: when, updatedAt: when, model: '', data: [], step: 0, nSteps: 0, lastLoss: null, lastEvalLoss: null, adapter: null,
      };
    }
  }

  /**
   * Brings a run cut off by a restart up to date (see afterRestart): status.json and a
   * `status` record in events.jsonl. Returns the record to show; a broken events log does not
   * stop it (the status file is still corrected).
   */
  settle(st: RunStatusFile, liveHere: boolean, now: Date = new Date()): RunStatusFile {
    if (liveHere) return st;
    let records: RunEventRecord[] = [];
    try {
      records = readEventsLog(this.file(st.id, 'events'));
    } catch {
      // counters stay as status.json had them
    }
    const next = afterRestart(st, liveHere, records, now);
    if (!next) return st;
    this.writeStatus(next);
    try {
      const log = EventsLog.open(this.file(st.id, 'events'));
      try {
        log.append(Math.max(0, next.segments - 1), { type: 'status', status: next.status, error: next.error ?? undefined }, now);
      } finally {
        log.close();
      }
    } catch {
      // the log cannot take the record (broken, unwritable); status.json already says it
    }
    return next;
  }

  /** The run's config.json (`out` set to where the folder is now, in case the data folder moved). */
  readConfig(id: string): TrainConfig {
    const file = this.file(id, 'config');
    const v = readJsonFile(file) as Record<string, unknown>;
    if (!v || typeof v !== 'object' || Array.isArray(v) || typeof v.model !== 'string' || !Array.isArray(v.data)) {
      throw new HoneError('bad_format', `${file}: not a training config (needs 'model' and 'data')`, { file });
    }
    return { ...(v as unknown as TrainConfig), out: this.folder(id) };
  }

  /** The newest checkpoint folder of run `id`, or null. */
  latestCheckpoint(id: string): string | null {
    return latestCheckpoint(checkpointsDir(this.folder(id)));
  }

  /** The step the newest checkpoint holds (checkpoint folders are named by step), or null. */
  resumableStep(id: string): number | null {
    const ck = this.latestCheckpoint(id);
    return ck ? Number(basename(ck)) : null;
  }

  events(id: string, since = 0): RunEventRecord[] {
    this.mustExist(id);
    return readEventsLog(this.file(id, 'events'), since);
  }

  remove(id: string): void {
    removeRunFolder(this.root, id);
  }
}
