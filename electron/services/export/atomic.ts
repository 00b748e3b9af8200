/**
 * Where an export is written: a temporary name beside the final one (same folder, so the last
 * step is a rename), renamed into place once every file is complete. A failure at any point
 * removes the temporary files, and the final name holds either the previous export or nothing;
 * what a killed export left beside it is removed by the next export to that name.
 *
 * A folder export's final name may already hold an earlier export (its `hone-export.json`
 * says so): it is moved aside, replaced and then removed. Anything else there, and any file at
 * a single-file export's name, is refused: an export never deletes what it did not write.
 */
import { randomBytes } from 'node:crypto';
import { constants, existsSync, lstatSync } from 'node:fs';
import { access, mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { HoneError } from '../../common/errors.ts';
import { reason } from '../models/fs-errors.ts';

/** The file every export folder holds: what it is and where it came from. */
export const MANIFEST = 'hone-export.json';

export class ExportTarget {
  private committed = false;

  private constructor(
    /** The final path: a folder, or a file for a single-file export. */
    readonly final: string,
    /** Where the files are written meanwhile. */
    readonly temp: string,
    readonly isFile: boolean,
  ) {}

  /**
   * Prepares an export to `final`: its parent folder is made (it must be writable), and what is
   * there now must be nothing or, for a folder, an earlier export.
   */
  static async begin(final: string, isFile: boolean): Promise<ExportTarget> {
    const parent = dirname(final);
    try {
      await mkdir(parent, { recursive: true });
      await access(parent, constants.W_OK);
    } catch (err) {
      throw new HoneError('io_error', `${parent}: the output folder cannot be written: ${reason(err)}`, { path: parent });
    }
    await checkReplaceable(final, isFile);
    await removeStale(parent, basename(final));
    const temp = join(parent, `.${basename(final)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
    if (!isFile) {
      try {
        await mkdir(temp);
      } catch (err) {
        throw new HoneError('io_error', `${temp}: cannot be made: ${reason(err)}`, { path: temp });
      }
    }
    return new ExportTarget(final, temp, isFile);
  }

  /** A file of a folder export, in the temporary folder; `finalPath` is where it will end up. */
  file(name: string): { temp: string; finalPath: string } {
    if (this.isFile) throw new HoneError('internal', `${this.final} is a single-file export; it has no file '${name}'`);
    return { temp: join(this.temp, name), finalPath: join(this.final, name) };
  }

  /** Writes the manifest and moves the export into place (replacing an earlier export there). */
  async commit(manifest: Record<string, unknown>): Promise<void> {
    if (!this.isFile) await writeFile(join(this.temp, MANIFEST), JSON.stringify(manifest, null, 2) + '\n');
    await checkReplaceable(this.final, this.isFile);
    const aside = !this.isFile && existsSync(this.final) ? `${this.temp}.old` : null;
    try {
      if (aside) await rename(this.final, aside);
      try {
        await rename(this.temp, this.final);
      } catch (err) {
        if (aside) await rename(aside, this.final).catch(() => undefined);
        throw err;
      }
    } catch (err) {
      throw new HoneError('io_error', `${this.final}: the export cannot be moved into place: ${reason(err)}`, { path: this.final });
    }
    this.committed = true;
    if (aside) await rm(aside, { recursive: true, force: true }).catch(() => undefined);
  }

  /** Removes the temporary files (nothing when committed). Safe to call twice. */
  async abort(): Promise<void> {
    if (this.committed) return;
    await rm(this.temp, { recursive: true, force: true }).catch(() => undefined);
    // the engine's merge writes `<temp>.tmp` and renames it to `temp`: an engine host killed
    // mid-merge leaves that file, which no later export of this process would remove
    if (this.isFile) await rm(`${this.temp}.tmp`, { force: true }).catch(() => undefined);
  }
}

/** Removes what an export to `name` killed midway left (`.name.tmp-<pid>-*` of a process that is gone). */
async function removeStale(parent: string, name: string): Promise<void> {
  const prefix = `.${name}.tmp-`;
  let entries: string[];
  try {
    entries = await readdir(parent);
  } catch {
    return;
  }
  for (const e of entries) {
    const pid = e.startsWith(prefix) ? Number(e.slice(prefix.length).split('-')[0]) : NaN;
    if (!Number.isInteger(pid) || pid <= 0 || alive(pid)) continue;
    await rm(join(parent, e), { recursive: true, force: true }).catch(() => undefined);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Nothing is at `final`, or (a folder export) an earlier export is. */
async function checkReplaceable(final: string, isFile: boolean): Promise<void> {
  let info;
  try {
    info = lstatSync(final);
  } catch {
    return;
  }
  if (isFile) throw new HoneError('io_error', `${final}: already exists; choose another output or remove it`, { path: final });
  const isExport = info.isDirectory() && (await stat(join(final, MANIFEST)).then((s) => s.isFile(), () => false));
  if (!isExport) {
    throw new HoneError('io_error', `${final}: exists and is not an earlier Hone export (no ${MANIFEST}); choose another output or remove it`, { path: final });
  }
}
