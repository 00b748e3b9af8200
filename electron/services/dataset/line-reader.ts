/**
 * Streaming line reader. Splits a byte stream on `\n` without decoding the
 * whole file, so memory stays bounded by the longest line (and that is
 * capped by `maxLineBytes`). Each line is decoded on its own so a bad byte
 * is pinned to the line that holds it.
 */

export interface Line {
  /** 1-based line number. */
  number: number;
  /** Decoded text without the line terminator (`\n` or `\r\n`) and without a leading BOM on line 1. */
  text: string;
  /** True when the bytes were not valid UTF-8; `text` then holds U+FFFD replacements. */
  invalidUtf8: boolean;
  /** True when the line was longer than `maxLineBytes`; `text` is then `''`. */
  tooLong: boolean;
  /** True when the line ended with `\n` (false only for a last line without one). */
  terminated: boolean;
}

export interface ReadLinesOptions {
  /** Lines longer than this (in bytes) are not kept in memory. Default: no limit. */
  maxLineBytes?: number;
}
import { concatBytes } from './bytes.ts';

const NEWLINE = 0x0a;
const CR = 0x0d;

export async function* readLines(
  chunks: AsyncIterable<Uint8Array>,
  options: ReadLinesOptions = {},
): AsyncGenerator<Line> {
  const maxLineBytes = options.maxLineBytes ?? Infinity;
  const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const lenient = new TextDecoder('utf-8', { ignoreBOM: true });
  let parts: Uint8Array[] = [];
  let lineBytes = 0;
  let tooLong = false;
  let number = 0;

  const finish = (terminated: boolean): Line => {
    number += 1;
    let bytes = concatBytes(parts);
    let end = bytes.length;
    if (end > 0 && bytes[end - 1] === CR) end -= 1;
    const start = number === 1 && end >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
    bytes = bytes.subarray(start, end);
    let text = '';
    let invalidUtf8 = false;
    if (!tooLong) {
      try {
        text = strict.decode(bytes);
      } catch {
        invalidUtf8 = true;
        text = lenient.decode(bytes);
      }
    }
    const line: Line = { number, text, invalidUtf8, tooLong, terminated };
    parts = [];
    lineBytes = 0;
    tooLong = false;
    return line;
  };

  for await (const chunk of chunks) {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      lineBytes += end - start;
      if (lineBytes > maxLineBytes) {
        // Drop what we hold and keep skipping to the next newline.
        tooLong = true;
        parts = [];
      } else if (end > start) {
        parts.push(chunk.subarray(start, end));
      }
      if (newline === -1) break;
      yield finish(true);
      start = newline + 1;
    }
  }
  if (lineBytes > 0) yield finish(false);
}
