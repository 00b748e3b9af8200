/**
 * Reads one data file as a stream of record outcomes: each record's example
 * (null when it has errors) and its problems, plus file-level problems.
 * Nothing here keeps more than one record in memory.
 */
import { createReadStream } from 'node:fs';
import { parseCsv } from './csv.ts';
import type { Example } from './example.ts';
import { normaliseAlpaca } from './formats/alpaca.ts';
import { csvRowToExample, resolveCsvMapping, type CsvMapping } from './formats/csv-rows.ts';
import { normaliseOpenAiChat } from './formats/openai-chat.ts';
import { segmentText } from './formats/plain-text.ts';
import { normalisePromptCompletion } from './formats/prompt-completion.ts';
import { normaliseShareGpt } from './formats/sharegpt.ts';
import { normaliseText } from './formats/text.ts';
import type { FormatContext, Normaliser } from './formats/types.ts';
import { readJsonArray } from './json-array.ts';
import { nestedDeeperThan, tooDeepMessage } from './json-depth.ts';
import { readLines } from './line-reader.ts';
import type { ResolvedOptions } from './options.ts';
import { RecordIssues } from './problems.ts';
import type { Container, FormatName, Problem } from '../../common/dataset-report.ts';

/** A file ready to read: found, sniffed, sized. */
export interface PlannedFile {
  path: string;
  role: 'train' | 'eval';
  format: FormatName;
  container: Container;
  overridden: boolean;
  bytes: number;
  mtimeMs: number;
}

export interface Outcome {
  /** False for a file-level problem that belongs to no record. */
  record: boolean;
  /** The example, or null when the record has errors (or for file-level outcomes). */
  example: Example | null;
  problems: Problem[];
}

const NORMALISERS: Partial<Record<FormatName, Normaliser>> = {
  'openai-chat': normaliseOpenAiChat,
  sharegpt: normaliseShareGpt,
  alpaca: normaliseAlpaca,
  'prompt-completion': normalisePromptCompletion,
  text: normaliseText,
};

const CHUNK_BYTES = 1024 * 1024;

export async function* readRecords(
  file: PlannedFile,
  options: ResolvedOptions,
  onBytes: (bytesRead: number) => void,
): AsyncGenerator<Outcome> {
  const chunks = countBytes(createReadStream(file.path, { highWaterMark: CHUNK_BYTES }), onBytes);
  try {
    if (file.container === 'jsonl') yield* jsonLines(file, options, chunks);
    else if (file.container === 'json-array') yield* jsonArray(file, options, chunks);
    else if (file.container === 'csv' || file.container === 'tsv') yield* csvRows(file, options, chunks);
    else yield* plainText(file, options, chunks);
  } catch (err) {
    const issues = new RecordIssues(file.path, null);
    issues.error('read_error', '', `cannot read ${file.path}: ${(err as Error).message}`);
    yield { record: false, example: null, problems: issues.list };
  }
}

async function* countBytes(stream: AsyncIterable<Uint8Array>, onBytes: (n: number) => void): AsyncGenerator<Uint8Array> {
  let total = 0;
  for await (const chunk of stream) {
    total += chunk.length;
    onBytes(total);
    yield chunk;
  }
}

function normaliserFor(format: FormatName): Normaliser {
  const normalise = NORMALISERS[format];
  if (!normalise) throw new Error(`no JSON normaliser for ${format}`);
  return normalise;
}

/** Parses and normalises one JSON record's text. */
function jsonRecord(text: string, invalidUtf8: boolean, normalise: Normaliser, issues: RecordIssues, ctx: FormatContext): Outcome {
  if (invalidUtf8) issues.error('invalid_utf8', '', 'record contains bytes that are not valid UTF-8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    issues.error('bad_json', '', `not valid JSON: ${(err as Error).message}`);
    return { record: true, example: null, problems: issues.list };
  }
  if (nestedDeeperThan(value)) {
    issues.error('bad_json', '', tooDeepMessage('the record'));
    return { record: true, example: null, problems: issues.list };
  }
  const example = normalise(value, issues, ctx);
  return { record: true, example: issues.hasErrors ? null : example, problems: issues.list };
}

function tooLarge(issues: RecordIssues, limit: number): Outcome {
  issues.error('too_large', '', `record is larger than ${limit} bytes (maxRecordBytes); skipped`);
  return { record: true, example: null, problems: issues.list };
}

async function* jsonLines(file: PlannedFile, options: ResolvedOptions, chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Outcome> {
  const normalise = normaliserFor(file.format);
  for await (const line of readLines(chunks, { maxLineBytes: options.maxRecordBytes })) {
    const issues = new RecordIssues(file.path, line.number);
    if (line.tooLong) {
      yield tooLarge(issues, options.maxRecordBytes);
      continue;
    }
    if (line.text.trim() === '') continue;
    const ctx = { file: file.path, line: line.number, longMessageChars: options.longMessageChars };
    yield jsonRecord(line.text, line.invalidUtf8, normalise, issues, ctx);
  }
}

async function* jsonArray(file: PlannedFile, options: ResolvedOptions, chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Outcome> {
  const normalise = normaliserFor(file.format);
  for await (const event of readJsonArray(chunks, { maxElementBytes: options.maxRecordBytes })) {
    if (event.kind === 'error') {
      const issues = new RecordIssues(file.path, event.index);
      issues.error('bad_json', '', event.message);
      yield { record: false, example: null, problems: issues.list };
      continue;
    }
    const issues = new RecordIssues(file.path, event.index);
    if (event.tooLarge) {
      yield tooLarge(issues, options.maxRecordBytes);
      continue;
    }
    const ctx = { file: file.path, line: event.index, longMessageChars: options.longMessageChars };
    yield jsonRecord(event.text, event.invalidUtf8, normalise, issues, ctx);
  }
}

async function* csvRows(file: PlannedFile, options: ResolvedOptions, chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Outcome> {
  const delimiter = options.csv.delimiter ?? (file.container === 'tsv' ? '\t' : ',');
  const wantHeader = options.csv.header ?? true;
  const lines = readLines(chunks, { maxLineBytes: options.maxRecordBytes });
  let mapping: CsvMapping | null = null;
  let dataRows = 0;
  for await (const row of parseCsv(lines, { delimiter, maxRecordChars: options.maxRecordBytes })) {
    if (!mapping) {
      const resolved = resolveCsvMapping(wantHeader ? row.fields : null, options.csv);
      if (typeof resolved === 'string') {
        const issues = new RecordIssues(file.path, null);
        issues.error('missing_field', 'columns', resolved);
        yield { record: false, example: null, problems: issues.list };
        return;
      }
      mapping = resolved;
      if (wantHeader) continue;
    }
    dataRows++;
    const issues = new RecordIssues(file.path, row.line);
    if (row.tooLarge) {
      yield tooLarge(issues, options.maxRecordBytes);
      continue;
    }
    if (row.invalidUtf8Line !== undefined) {
      issues.error('invalid_utf8', '', `line ${row.invalidUtf8Line} contains bytes that are not valid UTF-8`);
    }
    if (row.error) {
      issues.error('bad_csv', '', row.error);
      yield { record: true, example: null, problems: issues.list };
      continue;
    }
    const ctx = { file: file.path, line: row.line, longMessageChars: options.longMessageChars };
    const example = csvRowToExample(row.fields, mapping, issues, ctx);
    yield { record: true, example: issues.hasErrors ? null : example, problems: issues.list };
  }
  if (dataRows === 0) yield emptyFile(file);
}

async function* plainText(file: PlannedFile, options: ResolvedOptions, chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Outcome> {
  const lines = readLines(chunks, { maxLineBytes: options.maxRecordBytes });
  let any = false;
  for await (const segment of segmentText(lines, options.textSegmentChars)) {
    // Whitespace is not a record (only a pathological file has a blank segment).
    if (segment.text.trim() === '' && segment.invalidUtf8Lines.length === 0 && segment.tooLongLines.length === 0) continue;
    any = true;
    const problems: Problem[] = [
      ...segment.invalidUtf8Lines.map((line) => lineProblem(file.path, line, 'invalid_utf8', 'line contains bytes that are not valid UTF-8')),
      ...segment.tooLongLines.map((line) => lineProblem(file.path, line, 'too_large', `line is longer than ${options.maxRecordBytes} bytes (maxRecordBytes); left out`)),
    ];
    const example: Example = {
      kind: 'text',
      text: segment.text,
      source: { file: file.path, line: segment.line },
      document: { id: file.path, part: segment.part },
    };
    yield { record: true, example: problems.length > 0 ? null : example, problems };
  }
  if (!any) yield emptyFile(file);
}

function lineProblem(file: string, line: number, code: 'invalid_utf8' | 'too_large', message: string): Problem {
  const issues = new RecordIssues(file, line);
  issues.error(code, '', message);
  return issues.list[0];
}

function emptyFile(file: PlannedFile): Outcome {
  const issues = new RecordIssues(file.path, null);
  issues.error('empty_content', '', 'the file holds no records (it is empty or blank)');
  return { record: false, example: null, problems: issues.list };
}
