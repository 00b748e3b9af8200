/**
 * Streaming CSV/TSV record parser (RFC 4180 quoting) on top of the line
 * reader. A quoted field may hold the delimiter, `""` for a quote, and line
 * breaks (kept as `\n`), so one record can span several lines; each record
 * reports the line it starts on. Blank lines between records are skipped.
 */
import type { Line } from './line-reader.ts';

export interface CsvRecord {
  /** 1-based line the record starts on. */
  line: number;
  fields: string[];
  /** A description of malformed quoting, if any. */
  error?: string;
  /** 1-based line holding bytes that are not valid UTF-8, if any. */
  invalidUtf8Line?: number;
  /** True when the record was larger than `maxRecordChars`; `fields` is then empty. */
  tooLarge: boolean;
}

export interface ParseCsvOptions {
  delimiter: string;
  maxRecordChars?: number;
}

export async function* parseCsv(lines: AsyncIterable<Line>, options: ParseCsvOptions): AsyncGenerator<CsvRecord> {
  const { delimiter } = options;
  const maxRecordChars = options.maxRecordChars ?? Infinity;
  let record: CsvRecord | null = null;
  let field = '';
  let chars = 0;
  let inQuotes = false;
  let quotedLine = 0;
  let fieldStart = true;
  let afterClosingQuote = false;

  const flag = (message: string): void => {
    if (record && !record.error) record.error = message;
  };

  for await (const line of lines) {
    if (!record) {
      if (line.text === '' && !line.invalidUtf8 && !line.tooLong) continue;
      record = { line: line.number, fields: [], tooLarge: false };
      field = '';
      chars = 0;
      fieldStart = true;
      afterClosingQuote = false;
    } else {
      // Still inside a quoted field: the line break belongs to it.
      field += '\n';
    }
    if (line.invalidUtf8 && record.invalidUtf8Line === undefined) record.invalidUtf8Line = line.number;
    if (line.tooLong) record.tooLarge = true;

    const text = line.text;
    chars += text.length;
    if (chars > maxRecordChars) record.tooLarge = true;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (inQuotes) {
        if (c === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i++;
          } else {
            inQuotes = false;
            afterClosingQuote = true;
          }
        } else {
          field += c;
        }
      } else if (c === delimiter) {
        record.fields.push(field);
        field = '';
        fieldStart = true;
        afterClosingQuote = false;
      } else if (c === '"' && fieldStart) {
        inQuotes = true;
        quotedLine = line.number;
        fieldStart = false;
      } else {
        if (afterClosingQuote) flag(`unexpected text after a closing quote on line ${line.number}`);
        field += c;
        fieldStart = false;
      }
      // Past the size cap: keep parsing for the record's end, stop keeping text.
      if (record.tooLarge && field.length > 0) field = '';
    }
    if (inQuotes) continue;
    record.fields.push(field);
    yield finish(record);
    record = null;
  }
  if (record) {
    flag(`unterminated quoted field starting on line ${quotedLine}`);
    record.fields.push(field);
    yield finish(record);
  }
  function finish(done: CsvRecord): CsvRecord {
    if (done.tooLarge) done.fields = [];
    inQuotes = false;
    return done;
  }
}
