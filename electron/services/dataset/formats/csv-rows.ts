/**
 * CSV/TSV rows to examples through a column mapping: a `text` column gives
 * text examples; `prompt` + `completion` (+ optional `system`) columns give a
 * one-turn chat, like prompt/completion JSONL. Problem fields are the column
 * names (or `column N`, 1-based, without a header).
 */
import type { Example } from '../example.ts';
import type { CsvColumns, CsvOptions } from '../options.ts';
import type { RecordIssues } from '../problems.ts';
import { promptCompletionExample } from './prompt-completion.ts';
import type { FormatContext } from './types.ts';

type Role = keyof CsvColumns;

export interface CsvMapping {
  /** Column index per role. */
  columns: Partial<Record<Role, number>>;
  /** Display names of all columns, for problem fields. */
  names: string[];
  /** Number of columns each row should have (0: unknown, no header). */
  width: number;
}

const GUESSES: Record<Role, string[]> = {
  text: ['text'],
  prompt: ['prompt', 'instruction', 'question', 'input', 'user'],
  completion: ['completion', 'response', 'output', 'answer', 'assistant'],
  system: ['system', 'system_prompt'],
};

const ROLES: Role[] = ['prompt', 'completion', 'system', 'text'];

/** Resolves the mapping against the header row; returns a message when it cannot. */
export function resolveCsvMapping(header: string[] | null, options: CsvOptions): CsvMapping | string {
  const names = header ? header.map((h) => h.trim()) : [];
  const lower = names.map((n) => n.toLowerCase());
  const columns: Partial<Record<Role, number>> = {};
  const explicit = options.columns;
  if (explicit) {
    for (const role of ROLES) {
      const want = explicit[role];
      if (want === undefined) continue;
      let index: number;
      if (typeof want === 'number') {
        index = want;
        if (!Number.isInteger(want) || want < 0 || (header && want >= names.length)) {
          return `csv.columns.${role} is column ${want}, which does not exist (${names.length} columns)`;
        }
      } else {
        index = names.indexOf(want);
        if (index === -1) index = lower.indexOf(want.toLowerCase());
        if (index === -1) {
          return header
            ? `csv.columns.${role} names column "${want}", which is not in the header (${names.join(', ')})`
            : `csv.columns.${role} names column "${want}", but the file has no header row: use a column number`;
        }
      }
      columns[role] = index;
    }
  } else if (header) {
    for (const role of ROLES) {
      const found = GUESSES[role].map((g) => lower.indexOf(g)).find((i) => i !== -1);
      if (found !== undefined) columns[role] = found;
    }
    // Prefer a prompt/completion pair when the header has both.
    if (columns.prompt !== undefined && columns.completion !== undefined) delete columns.text;
  }
  const usable = columns.text !== undefined || (columns.prompt !== undefined && columns.completion !== undefined);
  if (!usable) {
    const list = header ? `columns: ${names.join(', ')}` : 'no header row';
    return `cannot tell which column is the text, or which are the prompt and completion (${list}); pass csv.columns`;
  }
  if (columns.text !== undefined) {
    delete columns.prompt;
    delete columns.completion;
    delete columns.system;
  }
  return { columns, names, width: header ? names.length : 0 };
}

export function csvRowToExample(fields: string[], mapping: CsvMapping, issues: RecordIssues, ctx: FormatContext): Example | null {
  if (mapping.width > 0 && fields.length !== mapping.width) {
    issues.error('bad_csv', '', `expected ${mapping.width} fields, found ${fields.length}`);
    return null;
  }
  const nameOf = (index: number): string => mapping.names[index] ?? `column ${index + 1}`;
  const get = (role: Role): string | undefined => {
    const index = mapping.columns[role];
    if (index === undefined) return undefined;
    if (index >= fields.length) {
      issues.error('missing_field', nameOf(index), `row has no ${nameOf(index)} (only ${fields.length} fields)`);
      return undefined;
    }
    return fields[index];
  };

  if (mapping.columns.text !== undefined) {
    const text = get('text');
    if (text === undefined) return null;
    if (text.trim() === '') {
      issues.error('empty_content', nameOf(mapping.columns.text), 'text is empty');
      return null;
    }
    return { kind: 'text', text, source: { file: ctx.file, line: ctx.line } };
  }
  const prompt = get('prompt');
  const completion = get('completion');
  const system = get('system');
  if (prompt === undefined || completion === undefined) return null;
  const col = (role: Role): string => {
    const index = mapping.columns[role];
    return index === undefined ? role : nameOf(index);
  };
  return promptCompletionExample(
    { system, prompt, completion },
    { system: col('system'), prompt: col('prompt'), completion: col('completion') },
    issues,
    ctx,
  );
}
