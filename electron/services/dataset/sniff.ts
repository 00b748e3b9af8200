/**
 * Format sniffing. The extension says which family a file belongs to; for
 * JSON files the first non-blank byte says array (`[`) or JSON lines, and the
 * keys of the first records that parse say which format:
 *
 *   messages -> openai-chat, conversations -> sharegpt,
 *   instruction -> alpaca, prompt + completion -> prompt-completion,
 *   text -> text (checked in this order).
 */
import { createReadStream } from 'node:fs';
import { extname } from 'node:path';
import { concatBytes } from './bytes.ts';
import { readJsonArray } from './json-array.ts';
import { readLines } from './line-reader.ts';
import { isPlainObject } from './problems.ts';
import type { Container, FormatName, ProblemCode } from '../../common/dataset-report.ts';

export type Family = 'json' | 'csv' | 'tsv' | 'text';

const FAMILIES: Record<string, Family> = {
  '.jsonl': 'json',
  '.ndjson': 'json',
  '.json': 'json',
  '.csv': 'csv',
  '.tsv': 'tsv',
  '.txt': 'text',
  '.text': 'text',
  '.md': 'text',
  '.markdown': 'text',
};

/** The family for a file name, or undefined when the extension is not supported. */
export function familyOf(path: string): Family | undefined {
  return FAMILIES[extname(path).toLowerCase()];
}

/** The format a parsed record looks like, or null. */
export function classifyRecord(value: unknown): FormatName | null {
  if (!isPlainObject(value)) return null;
  if ('messages' in value) return 'openai-chat';
  if ('conversations' in value) return 'sharegpt';
  if ('instruction' in value) return 'alpaca';
  if ('prompt' in value && 'completion' in value) return 'prompt-completion';
  if ('text' in value) return 'text';
  return null;
}

export interface Sniffed {
  format: FormatName;
  container: Container;
}

const HEAD_BYTES = 1024 * 1024;
const SNIFF_RECORDS = 20;

/**
 * Decides format and container. `override` skips the key check but the
 * container is still read from the file. Returns a message when it cannot
 * tell, or when the file holds no data.
 */
export async function sniffFile(path: string, override?: FormatName): Promise<Sniffed | { code: ProblemCode; problem: string }> {
  const family = familyOf(path);
  if (override === 'csv') return { format: 'csv', container: family === 'tsv' ? 'tsv' : 'csv' };
  if (override === 'plain-text') return { format: 'plain-text', container: 'text' };
  if (!override && (family === 'csv' || family === 'tsv')) return { format: 'csv', container: family };
  if (!override && family === 'text') return { format: 'plain-text', container: 'text' };

  const head = await readHead(path);
  const text = new TextDecoder().decode(head);
  const first = text.trimStart()[0];
  if (first === undefined) return { code: 'empty_content', problem: 'the file is empty' };
  const container: Container = first === '[' ? 'json-array' : 'jsonl';
  if (override) return { format: override, container };

  let firstKeys: string[] | null = null;
  let seen = 0;
  for await (const candidate of recordTexts(head, container)) {
    let value: unknown;
    try {
      value = JSON.parse(candidate);
    } catch {
      continue;
    }
    const format = classifyRecord(value);
    if (format) return { format, container };
    if (firstKeys === null && isPlainObject(value)) firstKeys = Object.keys(value);
    if (++seen >= SNIFF_RECORDS) break;
  }
  const what = firstKeys ? `records have keys ${firstKeys.map((k) => JSON.stringify(k)).join(', ')}` : 'no record could be parsed';
  return { code: 'unknown_format', problem: `cannot tell the format (${what}); expected messages, conversations, instruction/output, prompt/completion or text — or pass a format override` };
}

async function* recordTexts(head: Uint8Array, container: Container): AsyncGenerator<string> {
  const chunks = [head];
  if (container === 'json-array') {
    for await (const event of readJsonArray(toAsync(chunks))) {
      if (event.kind === 'element') yield event.text;
    }
  } else {
    for await (const line of readLines(toAsync(chunks))) {
      if (line.text.trim() !== '') yield line.text;
    }
  }
}

async function* toAsync(chunks: Uint8Array[]): AsyncGenerator<Uint8Array> {
  yield* chunks;
}

async function readHead(path: string): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of createReadStream(path, { start: 0, end: HEAD_BYTES - 1 })) chunks.push(chunk);
  return concatBytes(chunks);
}
