/**
 * The dataset report: one plain JSON object that describes what an import
 * found. The CLI prints it for `--json` and the app's Datasets view renders
 * it, so every field here is JSON-safe (no Maps, no class instances).
 * docs/dataset-report.md documents the same object for people. It lives in
 * common/ because it crosses every boundary (engine host, CLI, window).
 */

/** Names of the record formats the importer understands. */
export type FormatName =
  | 'openai-chat'
  | 'sharegpt'
  | 'alpaca'
  | 'prompt-completion'
  | 'text'
  | 'csv'
  | 'plain-text';

export const FORMAT_NAMES: readonly FormatName[] = [
  'openai-chat',
  'sharegpt',
  'alpaca',
  'prompt-completion',
  'text',
  'csv',
  'plain-text',
];

/** How records are laid out inside a file. */
export type Container = 'jsonl' | 'json-array' | 'csv' | 'tsv' | 'text';

/**
 * Every kind of problem the importer can report (`Problem.code`), with its meaning. Codes are
 * snake_case like every other code (docs/errors.md); docs/dataset-report.md has the table.
 */
export const PROBLEM_CODES = {
  not_found: 'A path given by the user does not exist.',
  read_error: 'A file or folder exists but could not be read.',
  unknown_format: 'A data file whose format could not be sniffed.',
  bad_json: 'A line or array element that is not valid JSON.',
  bad_csv: 'A malformed CSV/TSV record (unterminated quote, wrong column count...).',
  invalid_utf8: 'Bytes that are not valid UTF-8.',
  missing_field: 'A required field is absent.',
  wrong_type: 'A field holds a value of the wrong type (or a value outside its range).',
  missing_role: 'A message has no role.',
  unknown_role: 'A message role the format does not define.',
  empty_content: 'A message or text that is empty or only whitespace.',
  no_assistant: 'A conversation without any assistant turn: nothing to learn from.',
  no_user: 'A conversation without any user turn.',
  orphan_tool: 'A tool message without a matching assistant tool call before it.',
  role_order: 'Roles in an order a chat template cannot render (see docs).',
  too_large: 'A record larger than `maxRecordBytes`; it is skipped unread.',
  long_message: 'A message longer than `longMessageChars` (a warning: it will be truncated).',
} as const satisfies Record<string, string>;

export type ProblemCode = keyof typeof PROBLEM_CODES;

export type Severity = 'error' | 'warning';

/** One problem found in the data. Problems never stop a scan. */
export interface Problem {
  /** Path of the file (as listed in `files`), or the path the user gave. */
  file: string;
  /**
   * Where in the file: the 1-based line for JSONL, CSV/TSV (the line a
   * record starts on) and plain text; the 0-based element index for JSON
   * arrays; `null` for problems about the whole file.
   */
  line: number | null;
  /** Path of the offending field, e.g. `messages[2].role`; `''` for the whole record. */
  field: string;
  /** Human-readable explanation. */
  message: string;
  /** Machine-readable kind. */
  code: ProblemCode;
  /** `error` makes the record invalid; `warning` keeps it. */
  severity: Severity;
}

/** Record counts. `valid + invalid === total`. */
export interface RecordCounts {
  /** Every record seen (blank lines are not records). */
  total: number;
  /** Records with no error (warnings allowed). */
  valid: number;
  /** Records with at least one error; they are never imported. */
  invalid: number;
  /** Valid records whose normalised content equals an earlier valid record. */
  duplicates: number;
}

/** One file that was read as data. */
export interface FileReport {
  /** Path as the importer opened it (a given path, or given folder + relative name). */
  path: string;
  /** The format used: sniffed, or the caller's override. */
  format: FormatName;
  /** How records are laid out in the file. */
  container: Container;
  /** True when the format came from an override rather than sniffing. */
  overridden: boolean;
  /** `train` for the main inputs, `eval` for files given as a separate eval set. */
  role: 'train' | 'eval';
  /** File size in bytes. */
  bytes: number;
  /** Counts for this file alone. */
  records: RecordCounts;
}

/** A file found under a given folder (or given directly) that was not read. */
export interface SkippedFile {
  path: string;
  /** `hidden` (name starts with a dot) or `unsupported` (extension not handled). */
  reason: 'hidden' | 'unsupported';
}

/** How records were divided between training and evaluation. */
export interface SplitReport {
  /** Records that go to training. */
  train: number;
  /** Records that go to evaluation. */
  eval: number;
  /** `ratio`: chosen per record by a seeded hash; `eval-file`: eval came from separate files. */
  rule: 'ratio' | 'eval-file';
  /** The eval ratio asked for (0 with `eval-file`). */
  ratio: number;
  /** The seed mixed into the hash. */
  seed: string;
}

/** The report object (see docs/dataset-report.md). */
export interface DatasetReport {
  /** Files read as data, in the order they were read. */
  files: FileReport[];
  /** The format of all files, `mixed` when they differ (see `files`), `null` when none were read. */
  format: FormatName | 'mixed' | null;
  /** Counts over all files. */
  records: RecordCounts;
  /** Up to `maxProblems` problems, in the order found. */
  problems: Problem[];
  /** Number of problems of each code, including those left out of `problems`. */
  problemCounts: Partial<Record<ProblemCode, number>>;
  /** Problems found but not listed because `maxProblems` was reached. */
  problemsOmitted: number;
  /** Whether duplicates were dropped (they are always counted). */
  duplicatesDropped: boolean;
  /** The train/eval split of the records that will be imported. */
  split: SplitReport;
  /** Files that were seen but not read, with the reason. */
  skipped: SkippedFile[];
}

/** Progress of a scan or read; sent at most every `progressEveryBytes` and at each file's end. */
export interface ProgressEvent {
  /** `scan` while building the report, `read` while streaming examples out. */
  phase: 'scan' | 'read';
  /** The file being read. */
  file: string;
  /** 0-based index of that file among the files to read. */
  fileIndex: number;
  fileCount: number;
  /** Bytes of this file read so far, and its size. */
  fileBytesRead: number;
  fileBytes: number;
  /** Bytes read so far over all files, and their total size. */
  bytesRead: number;
  bytesTotal: number;
  /** Records seen so far over all files. */
  records: number;
}

export type ProgressCallback = (event: ProgressEvent) => void;
