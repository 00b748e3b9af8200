import { DatasetError } from './errors.ts';
import { FORMAT_NAMES, type FormatName } from '../../common/dataset-report.ts';

/** Which CSV/TSV column holds what: a header name, or a 0-based column index. */
export interface CsvColumns {
  prompt?: string | number;
  completion?: string | number;
  system?: string | number;
  text?: string | number;
}

export interface CsvOptions {
  /** Field separator; default `,` for .csv and a tab for .tsv. */
  delimiter?: string;
  /** Whether the first record is a header row (default true). */
  header?: boolean;
  /**
   * Column mapping. Without it, header names are matched (case-insensitive):
   * text: text; prompt: prompt, instruction, question, input, user;
   * completion: completion, response, output, answer, assistant;
   * system: system, system_prompt.
   */
  columns?: CsvColumns;
}

export interface ImportOptions {
  /** Read every file as this format instead of sniffing. */
  format?: FormatName;
  /** Per-file override, keyed by the path as it appears in the report. Wins over `format`. */
  formatByFile?: Record<string, FormatName>;
  csv?: CsvOptions;
  /** Files whose records all go to eval; when given, `evalRatio` is not used. */
  evalPaths?: string[];
  /** Share of records sent to eval, in [0, 1). Default 0. */
  evalRatio?: number;
  /** Seed mixed into the split hash. Default `0`. */
  seed?: number | string;
  /** Leave duplicates out of the import (they are counted either way). Default false. */
  dropDuplicates?: boolean;
  /** A message longer than this many characters gets a `long_message` warning. Default 32768. */
  longMessageChars?: number;
  /** A line / element / CSV record larger than this is skipped as `too_large`. Default 64 MiB. */
  maxRecordBytes?: number;
  /** Plain text is cut at the first paragraph break after this many characters. Default 65536. */
  textSegmentChars?: number;
  /** At most this many problems are listed in the report (all are counted). Default 1000. */
  maxProblems?: number;
  /** Progress is reported each time this many more bytes of a file are read. Default 4 MiB. */
  progressEveryBytes?: number;
}

export type ResolvedOptions = Required<Omit<ImportOptions, 'format' | 'csv' | 'evalPaths'>> & {
  format: FormatName | undefined;
  csv: CsvOptions;
  evalPaths: string[];
  seed: string;
};

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) {
    throw new DatasetError('bad_option', `${name} must be a positive number, got ${value}`);
  }
  return value;
}

function checkFormat(name: string, value: unknown): void {
  if (!FORMAT_NAMES.includes(value as FormatName)) {
    throw new DatasetError('bad_option', `${name}: unknown format ${JSON.stringify(value)}; expected one of ${FORMAT_NAMES.join(', ')}`);
  }
}

/** Fills defaults and rejects nonsense early, before any file is read. */
export function resolveOptions(options: ImportOptions = {}): ResolvedOptions {
  const evalRatio = options.evalRatio ?? 0;
  if (!(evalRatio >= 0 && evalRatio < 1)) {
    throw new DatasetError('bad_option', `evalRatio must be in [0, 1), got ${options.evalRatio}`);
  }
  if (options.format !== undefined) checkFormat('format', options.format);
  for (const [file, format] of Object.entries(options.formatByFile ?? {})) checkFormat(`formatByFile[${file}]`, format);
  const delimiter = options.csv?.delimiter;
  if (delimiter !== undefined && (delimiter.length !== 1 || delimiter === '"' || delimiter === '\n' || delimiter === '\r')) {
    throw new DatasetError('bad_option', `csv.delimiter must be one character other than a quote or newline, got ${JSON.stringify(delimiter)}`);
  }
  return {
    format: options.format,
    formatByFile: options.formatByFile ?? {},
    csv: options.csv ?? {},
    evalPaths: options.evalPaths ?? [],
    evalRatio,
    seed: String(options.seed ?? 0),
    dropDuplicates: options.dropDuplicates ?? false,
    longMessageChars: positive('longMessageChars', options.longMessageChars, 32768),
    maxRecordBytes: positive('maxRecordBytes', options.maxRecordBytes, 64 * 1024 * 1024),
    textSegmentChars: positive('textSegmentChars', options.textSegmentChars, 65536),
    maxProblems: options.maxProblems === undefined ? 1000 : Math.max(0, Math.floor(options.maxProblems)),
    progressEveryBytes: positive('progressEveryBytes', options.progressEveryBytes, 4 * 1024 * 1024),
  };
}
