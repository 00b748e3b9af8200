/** Temporary folders of test files, removed after the test. */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A node:test context; `after` exists at run time but is missing from @types/node 20.9. */
type WithAfter = { after(fn: () => void): void };

/** Creates a temp folder holding `files` (name -> content; names may have `/`), removed when test `t` ends. */
export function tempFiles(t: object, files: Record<string, string | Uint8Array> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'hone-dataset-'));
  (t as WithAfter).after(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, content] of Object.entries(files)) {
    const path = join(dir, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  }
  return dir;
}

/** JSON lines from values; strings are written as they are (for malformed lines). */
export function jsonl(...records: unknown[]): string {
  return records.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n';
}

/** Bytes from text pieces and raw byte values (to write invalid UTF-8). */
export function bytes(...parts: (string | number[])[]): Uint8Array {
  const encoder = new TextEncoder();
  const chunks = parts.map((p) => (typeof p === 'string' ? encoder.encode(p) : Uint8Array.from(p)));
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.length;
  }
  return out;
}

/** Feeds `data` to a reader in chunks of `size` bytes (to test chunk boundaries). */
export async function* chunked(data: Uint8Array | string, size: number): AsyncGenerator<Uint8Array> {
  const all = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  for (let i = 0; i < all.length; i += size) yield all.subarray(i, i + size);
}

/** Collects an async iterable into an array. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
