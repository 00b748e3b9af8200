/**
 * Entry points. `openDataset` scans every file once, in bounded memory, to
 * build the report; its `examples()` then streams the accepted examples by
 * reading the files again (the split needs the whole scan before it can
 * place the first record, see split.ts). `scanDataset` is the report alone;
 * `importDataset` collects the examples into arrays for datasets that fit
 * in memory.
 */
import { stat } from 'node:fs/promises';
import { discover } from './discover.ts';
import { contentKey, KeySet } from './dedup.ts';
import { DatasetError } from './errors.ts';
import type { Example, SplitExample } from './example.ts';
import { resolveOptions, type ImportOptions, type ResolvedOptions } from './options.ts';
import { RecordIssues } from './problems.ts';
import { readRecords, type Outcome, type PlannedFile } from './records.ts';
import type { DatasetReport, FileReport, Problem, ProblemCode, ProgressCallback, RecordCounts, SkippedFile } from '../../common/dataset-report.ts';
import { sideOf, SplitTracker } from './split.ts';
import { sniffFile } from './sniff.ts';

export interface OpenedDataset {
  report: DatasetReport;
  /**
   * Streams the accepted examples (valid, and not dropped as duplicates) in
   * file order, each with its split side. Every call reads the files again;
   * it throws a DatasetError `file_changed` if a file changed since the scan.
   */
  examples(onProgress?: ProgressCallback): AsyncGenerator<SplitExample>;
}

export interface ImportedDataset {
  report: DatasetReport;
  train: Example[];
  eval: Example[];
}

/** Scans `paths` (files and folders) and returns the report and a way to stream examples. */
export async function openDataset(
  paths: string | string[],
  options: ImportOptions = {},
  onProgress?: ProgressCallback,
): Promise<OpenedDataset> {
  const opts = resolveOptions(options);
  const planned = await plan(typeof paths === 'string' ? [paths] : paths, opts);
  const { report, forcedEvalKey } = await scan(planned, opts, onProgress);
  return {
    report,
    examples: (progress?: ProgressCallback) => readAccepted(planned.files, opts, forcedEvalKey, progress),
  };
}

/** The report alone (one pass, bounded memory). */
export async function scanDataset(
  paths: string | string[],
  options: ImportOptions = {},
  onProgress?: ProgressCallback,
): Promise<DatasetReport> {
  return (await openDataset(paths, options, onProgress)).report;
}

/** The report plus all accepted examples in arrays; for data that fits in memory. */
export async function importDataset(
  paths: string | string[],
  options: ImportOptions = {},
  onProgress?: ProgressCallback,
): Promise<ImportedDataset> {
  const opened = await openDataset(paths, options, onProgress);
  const result: ImportedDataset = { report: opened.report, train: [], eval: [] };
  for await (const { split, example } of opened.examples(onProgress)) result[split].push(example);
  return result;
}

interface Plan {
  files: PlannedFile[];
  skipped: SkippedFile[];
  problems: Problem[];
}

async function plan(paths: string[], opts: ResolvedOptions): Promise<Plan> {
  const overrideFor = (path: string) => opts.formatByFile[path] ?? opts.format;
  const inputs = [
    ...paths.map((path) => ({ path, role: 'train' as const })),
    ...opts.evalPaths.map((path) => ({ path, role: 'eval' as const })),
  ];
  const found = await discover(inputs, (path) => overrideFor(path) !== undefined);
  const result: Plan = { files: [], skipped: found.skipped, problems: found.problems };
  for (const { path, role } of found.files) {
    const override = overrideFor(path);
    try {
      const info = await stat(path);
      const sniffed = await sniffFile(path, override);
      if ('problem' in sniffed) {
        const issues = new RecordIssues(path, null);
        issues.error(sniffed.code, '', sniffed.problem);
        result.problems.push(...issues.list);
        continue;
      }
      result.files.push({ path, role, ...sniffed, overridden: override !== undefined, bytes: info.size, mtimeMs: info.mtimeMs });
    } catch (err) {
      const issues = new RecordIssues(path, null);
      issues.error('read_error', '', `cannot read ${path}: ${(err as Error).message}`);
      result.problems.push(...issues.list);
    }
  }
  return result;
}

interface Visit {
  file: PlannedFile;
  outcome: Outcome;
  /** Content key of a valid record. */
  key: string | null;
  duplicate: boolean;
}

/** Reads all files in order, tagging valid records with their key and duplicate status. */
async function* walk(
  files: PlannedFile[],
  opts: ResolvedOptions,
  phase: 'scan' | 'read',
  onProgress: ProgressCallback | undefined,
): AsyncGenerator<Visit> {
  const seen = new KeySet();
  const bytesTotal = files.reduce((sum, f) => sum + f.bytes, 0);
  let bytesBefore = 0;
  let records = 0;
  for (const [fileIndex, file] of files.entries()) {
    if (phase === 'read') await checkUnchanged(file);
    let nextReport = opts.progressEveryBytes;
    let fileBytesRead = 0;
    const emit = () =>
      onProgress?.({
        phase,
        file: file.path,
        fileIndex,
        fileCount: files.length,
        fileBytesRead,
        fileBytes: file.bytes,
        bytesRead: bytesBefore + fileBytesRead,
        bytesTotal,
        records,
      });
    const onBytes = (n: number) => {
      fileBytesRead = n;
      if (n >= nextReport && n < file.bytes) {
        nextReport = n + opts.progressEveryBytes;
        emit();
      }
    };
    for await (const outcome of readRecords(file, opts, onBytes)) {
      if (outcome.record) records++;
      let key: string | null = null;
      let duplicate = false;
      if (outcome.example) {
        key = contentKey(outcome.example);
        duplicate = !seen.add(key);
      }
      yield { file, outcome, key, duplicate };
    }
    emit();
    bytesBefore += file.bytes;
  }
}

async function checkUnchanged(file: PlannedFile): Promise<void> {
  const info = await stat(file.path).catch(() => null);
  if (!info || info.size !== file.bytes || info.mtimeMs !== file.mtimeMs) {
    throw new DatasetError('file_changed', `${file.path} changed since it was scanned; scan it again`);
  }
}

function emptyCounts(): RecordCounts {
  return { total: 0, valid: 0, invalid: 0, duplicates: 0 };
}

async function scan(
  planned: Plan,
  opts: ResolvedOptions,
  onProgress: ProgressCallback | undefined,
): Promise<{ report: DatasetReport; forcedEvalKey: string | null }> {
  const useEvalFiles = opts.evalPaths.length > 0;
  const tracker = new SplitTracker(useEvalFiles ? 0 : opts.evalRatio, opts.seed);
  const records = emptyCounts();
  const problems: Problem[] = [];
  const problemCounts: Partial<Record<ProblemCode, number>> = {};
  let problemsOmitted = 0;
  const addProblems = (list: Problem[]) => {
    for (const p of list) {
      problemCounts[p.code] = (problemCounts[p.code] ?? 0) + 1;
      if (problems.length < opts.maxProblems) problems.push(p);
      else problemsOmitted++;
    }
  };
  addProblems(planned.problems);

  const fileReports = new Map<string, FileReport>();
  for (const f of planned.files) {
    fileReports.set(f.path, {
      path: f.path,
      format: f.format,
      container: f.container,
      overridden: f.overridden,
      role: f.role,
      bytes: f.bytes,
      records: emptyCounts(),
    });
  }
  let evalFromFiles = 0;
  for await (const { file, outcome, key, duplicate } of walk(planned.files, opts, 'scan', onProgress)) {
    addProblems(outcome.problems);
    if (!outcome.record) continue;
    const counts = fileReports.get(file.path)!.records;
    for (const c of [records, counts]) {
      c.total++;
      if (!key) c.invalid++;
      else c.valid++;
      if (duplicate) c.duplicates++;
    }
    if (!key || (duplicate && opts.dropDuplicates)) continue;
    if (file.role === 'eval') evalFromFiles++;
    else if (useEvalFiles) tracker.train++;
    else tracker.place(key);
  }
  const forcedEvalKey = tracker.finish();
  const formats = new Set(planned.files.map((f) => f.format));
  const report: DatasetReport = {
    files: [...fileReports.values()],
    format: formats.size === 0 ? null : formats.size === 1 ? [...formats][0] : 'mixed',
    records,
    problems,
    problemCounts,
    problemsOmitted,
    duplicatesDropped: opts.dropDuplicates,
    split: {
      train: tracker.train,
      eval: tracker.eval + evalFromFiles,
      rule: useEvalFiles ? 'eval-file' : 'ratio',
      ratio: useEvalFiles ? 0 : opts.evalRatio,
      seed: opts.seed,
    },
    skipped: planned.skipped,
  };
  return { report, forcedEvalKey };
}

async function* readAccepted(
  files: PlannedFile[],
  opts: ResolvedOptions,
  forcedEvalKey: string | null,
  onProgress: ProgressCallback | undefined,
): AsyncGenerator<SplitExample> {
  const useEvalFiles = opts.evalPaths.length > 0;
  for await (const { file, outcome, key, duplicate } of walk(files, opts, 'read', onProgress)) {
    if (!key || !outcome.example || (duplicate && opts.dropDuplicates)) continue;
    const split =
      file.role === 'eval' ? 'eval' : useEvalFiles ? 'train' : sideOf(key, opts.evalRatio, opts.seed, forcedEvalKey);
    yield { split, example: outcome.example };
  }
}
