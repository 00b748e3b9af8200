/**
 * A large generated OpenAI-chat JSONL file with known counts, for the
 * bounded-memory scan test. Every 1000th line is broken JSON; every other
 * 250th line repeats the (valid) line before it.
 */
import { closeSync, openSync, writeSync } from 'node:fs';

export interface LargeFileCounts {
  lines: number;
  bytes: number;
  invalid: number;
  duplicates: number;
}

function line(i: number): string {
  const filler = 'lorem ipsum dolor sit amet '.repeat(8);
  return JSON.stringify({
    messages: [
      { role: 'system', content: 'You are a helpful assistant for a generated test.' },
      { role: 'user', content: `Question number ${i}: ${filler}` },
      { role: 'assistant', content: `Answer number ${i}: ${filler}` },
    ],
  });
}

/** Writes about `targetBytes` of JSONL to `path` and returns what a scan must find. */
export function writeLargeJsonl(path: string, targetBytes: number): LargeFileCounts {
  const fd = openSync(path, 'w');
  const counts: LargeFileCounts = { lines: 0, bytes: 0, invalid: 0, duplicates: 0 };
  try {
    let batch: string[] = [];
    let batchBytes = 0;
    let previous = '';
    for (let n = 1; counts.bytes < targetBytes; n++) {
      let text: string;
      if (n % 1000 === 0) {
        text = '{"messages": [broken';
        counts.invalid++;
      } else if (n % 250 === 0) {
        text = previous;
        counts.duplicates++;
      } else {
        text = line(n);
      }
      previous = text;
      batch.push(text);
      batchBytes += text.length + 1;
      counts.bytes += text.length + 1; // ASCII: characters are bytes
      counts.lines++;
      if (batchBytes >= 1 << 20) {
        writeSync(fd, batch.join('\n') + '\n');
        batch = [];
        batchBytes = 0;
      }
    }
    if (batch.length > 0) writeSync(fd, batch.join('\n') + '\n');
  } finally {
    closeSync(fd);
  }
  return counts;
}
