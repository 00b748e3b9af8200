/**
 * Streaming splitter for a file holding one JSON array. It does not parse
 * values: it tracks strings and bracket depth to find where each top-level
 * element starts and ends, and hands the element's text to JSON.parse.
 * Memory stays bounded by the largest element (capped by `maxElementBytes`).
 */
import { concatBytes } from './bytes.ts';

export type ArrayEvent =
  | {
      kind: 'element';
      /** 0-based index in the array. */
      index: number;
      /** The element's JSON text ('' when too large). */
      text: string;
      invalidUtf8: boolean;
      tooLarge: boolean;
    }
  /** The array itself is malformed; `index` is the element being read, or the next one. */
  | { kind: 'error'; index: number; message: string };

export interface ReadJsonArrayOptions {
  maxElementBytes?: number;
}

// Scanner states (plain numbers: this loop runs once per byte).
const BEFORE = 0;
const BETWEEN = 1;
const IN_ELEMENT = 2;
const AFTER = 3;
const BROKEN = 4;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_SQUARE = 0x5b;
const CLOSE_SQUARE = 0x5d;
const OPEN_CURLY = 0x7b;
const CLOSE_CURLY = 0x7d;

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

export async function* readJsonArray(
  chunks: AsyncIterable<Uint8Array>,
  options: ReadJsonArrayOptions = {},
): AsyncGenerator<ArrayEvent> {
  const maxElementBytes = options.maxElementBytes ?? Infinity;
  const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const lenient = new TextDecoder('utf-8', { ignoreBOM: true });
  let state: number = BEFORE;
  let atFileStart = true;
  let afterComma = false;
  let index = 0;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let parts: Uint8Array[] = [];
  let elementBytes = 0;

  const finishElement = (): ArrayEvent => {
    const tooLarge = elementBytes > maxElementBytes;
    let text = '';
    let invalidUtf8 = false;
    if (!tooLarge) {
      const bytes = concatBytes(parts);
      try {
        text = strict.decode(bytes);
      } catch {
        invalidUtf8 = true;
        text = lenient.decode(bytes);
      }
    }
    parts = [];
    elementBytes = 0;
    return { kind: 'element', index: index++, text, invalidUtf8, tooLarge };
  };

  for await (const chunk of chunks) {
    let i = 0;
    if (atFileStart) {
      atFileStart = false;
      if (chunk.length >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) i = 3;
    }
    let elementStart = state === IN_ELEMENT ? i : -1;
    for (; i < chunk.length; i++) {
      const byte = chunk[i];
      if (state === IN_ELEMENT) {
        if (inString) {
          if (escaped) escaped = false;
          else if (byte === BACKSLASH) escaped = true;
          else if (byte === QUOTE) inString = false;
          continue;
        }
        if (byte === QUOTE) inString = true;
        else if (byte === OPEN_CURLY || byte === OPEN_SQUARE) depth++;
        else if ((byte === CLOSE_CURLY || byte === CLOSE_SQUARE) && depth > 0) depth--;
        else if (depth === 0 && (byte === COMMA || byte === CLOSE_SQUARE)) {
          take(chunk, elementStart, i);
          yield finishElement();
          elementStart = -1;
          if (byte === COMMA) {
            state = BETWEEN;
            afterComma = true;
          } else {
            state = AFTER;
          }
        }
        continue;
      }
      if (isSpace(byte)) continue;
      if (state === BEFORE) {
        if (byte === OPEN_SQUARE) {
          state = BETWEEN;
          continue;
        }
        state = BROKEN;
        yield { kind: 'error', index, message: 'the file does not start with a JSON array' };
        return;
      }
      if (state === BETWEEN) {
        if (byte === CLOSE_SQUARE) {
          if (afterComma) yield { kind: 'error', index, message: 'trailing comma before the closing bracket' };
          state = AFTER;
        } else if (byte === COMMA) {
          yield { kind: 'error', index, message: 'empty array element (two commas in a row)' };
        } else {
          state = IN_ELEMENT;
          afterComma = false;
          depth = 0;
          inString = false;
          escaped = false;
          elementStart = i;
          i--; // re-read this byte as part of the element
        }
        continue;
      }
      if (state === AFTER) {
        state = BROKEN;
        yield { kind: 'error', index, message: 'unexpected content after the closing bracket of the array' };
        return;
      }
    }
    if (state === IN_ELEMENT) take(chunk, elementStart, chunk.length);
  }

  if (state === IN_ELEMENT) {
    yield finishElement();
    yield { kind: 'error', index, message: 'unexpected end of file: the array is not closed' };
  } else if (state === BETWEEN) {
    yield { kind: 'error', index, message: 'unexpected end of file: the array is not closed' };
  } else if (state === BEFORE) {
    yield { kind: 'error', index, message: 'the file is empty: expected a JSON array' };
  }

  function take(chunk: Uint8Array, from: number, to: number): void {
    if (from < 0 || to <= from) return;
    elementBytes += to - from;
    if (elementBytes > maxElementBytes) parts = [];
    else parts.push(chunk.subarray(from, to));
  }
}
