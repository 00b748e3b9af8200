/**
 * Plain text (.txt/.md): each file is one document. To keep memory bounded
 * and give the train/eval split something to divide, a document is cut into
 * segments: at the first blank line after `segmentChars` characters, or at
 * any line break after 4 x `segmentChars` (text without paragraphs).
 * Segments keep their line breaks (as `\n`), so joining a document's
 * segments in order gives back its text; they share `document.id` (the file
 * path) and count `document.part` up from 0.
 */
import type { Line } from '../line-reader.ts';

export interface TextSegment {
  /** 1-based line the segment starts on. */
  line: number;
  part: number;
  text: string;
  /** Lines in the segment that held invalid UTF-8. */
  invalidUtf8Lines: number[];
  /** Lines in the segment that were too long to keep. */
  tooLongLines: number[];
}

export async function* segmentText(lines: AsyncIterable<Line>, segmentChars: number): AsyncGenerator<TextSegment> {
  let current: TextSegment | null = null;
  // Held back one step so trailing blank lines can join the last segment.
  let held: TextSegment | null = null;
  let part = 0;
  for await (const line of lines) {
    if (!current) current = { line: line.number, part: 0, text: '', invalidUtf8Lines: [], tooLongLines: [] };
    current.text += line.terminated ? `${line.text}\n` : line.text;
    if (line.invalidUtf8) current.invalidUtf8Lines.push(line.number);
    if (line.tooLong) current.tooLongLines.push(line.number);
    const blank = line.text.trim() === '';
    const size = current.text.length;
    if ((blank && size >= segmentChars) || size >= 4 * segmentChars) {
      if (held) yield held;
      current.part = part++;
      held = current;
      current = null;
    }
  }
  if (current) {
    if (held && current.text.trim() === '' && current.invalidUtf8Lines.length === 0) {
      held.text += current.text;
      held.tooLongLines.push(...current.tooLongLines);
    } else {
      if (held) yield held;
      current.part = part++;
      held = current;
    }
  }
  if (held) yield held;
}
