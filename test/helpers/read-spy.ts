/**
 * Counts the bytes read through node:fs/promises file handles while a test runs, to show that a
 * reader took only a file's header. Restored when the test ends.
 */
import { open } from 'node:fs/promises';

type Read = (...args: unknown[]) => Promise<{ bytesRead: number }>;

export interface ReadCounter {
  bytes: number;
  calls: number;
}

export async function countFileHandleReads(t: object): Promise<ReadCounter> {
  const handle = await open(process.execPath, 'r');
  const proto = Object.getPrototypeOf(handle) as { read: Read };
  await handle.close();
  const original = proto.read;
  const counter: ReadCounter = { bytes: 0, calls: 0 };
  proto.read = async function (this: unknown, ...args: unknown[]) {
    const result = await original.apply(this, args);
    counter.bytes += result.bytesRead;
    counter.calls++;
    return result;
  };
  (t as { after(fn: () => void): void }).after(() => {
    proto.read = original;
  });
  return counter;
}
