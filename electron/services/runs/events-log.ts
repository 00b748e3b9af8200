/**
 * A run's events.jsonl: one RunEventRecord per line, `seq` strictly increasing from 1, only
 * ever appended to (docs/run-folder.md). Written through one open file handle, synced to disk
 * at checkpoints and at the end. A crash can leave a torn last line: readers skip it, and
 * opening the log to append again cuts it off first, so new lines never join a broken one.
 * Any other line that is not a record is an error naming the file and line.
 */
import { closeSync, existsSync, fsyncSync, ftruncateSync, openSync, readFileSync, truncateSync, writeSync } from 'node:fs';
import { HoneError } from '../../common/errors.ts';
import type { RunEventRecord, RunStatus } from '../../common/runs.ts';
import { reason } from '../models/fs-errors.ts';

const STATUSES: readonly RunStatus[] = ['starting', 'running', 'pausing', 'paused', 'stopped', 'finished', 'failed', 'interrupted'];
const COUNTERS: Record<string, readonly string[]> = { step: ['step', 'nSteps', 'loss', 'tokens', 'positions', 'elapsedS'], eval: ['step', 'evalLoss'] };

export interface ParsedEventsLog {
  records: RunEventRecord[];
  /** The last line was cut short (no newline, not a whole record): skipped. */
  torn: boolean;
  /** Bytes up to the end of the last whole record. */
  goodBytes: number;
  /** The last line is a whole record that lacks only its newline. */
  missingNewline: boolean;
}

/** What is wrong with `v` as the record after sequence number `prevSeq`, or null. */
function recordProblem(v: unknown, prevSeq: number): string | null {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return 'not a JSON object';
  const r = v as Record<string, unknown>;
  if (typeof r.seq !== 'number' || !Number.isInteger(r.seq)) return "'seq' is not a whole number";
  if (r.seq <= prevSeq) return `'seq' ${r.seq} does not follow ${prevSeq}`;
  if (typeof r.at !== 'string') return "'at' is not a time";
  if (typeof r.segment !== 'number' || !Number.isInteger(r.segment) || r.segment < 0) return "'segment' is not a whole number >= 0";
  const e = r.event as Record<string, unknown> | null;
  if (!e || typeof e !== 'object' || typeof e.type !== 'string') return "'event' has no type";
  if (e.type === 'status' && !STATUSES.includes(e.status as RunStatus)) return `unknown status ${JSON.stringify(e.status)}`;
  // the counters status.json is brought up to date from (run-status.ts withEvent); null is a NaN loss
  for (const k of COUNTERS[e.type] ?? []) {
    if (e[k] !== undefined && e[k] !== null && typeof e[k] !== 'number') return `'event.${k}' is not a number`;
  }
  return null;
}

function parseLine(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The records of an events.jsonl's bytes; throws `bad_format` naming `file:line` for a broken line other than the last. */
export function parseEventsLog(bytes: Uint8Array, file: string): ParsedEventsLog {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = buf.lastIndexOf(0x0a) + 1; // end of the last complete line
  const records: RunEventRecord[] = [];
  let prev = 0;
  const lines = buf.subarray(0, end).toString('utf8').split('\n');
  lines.pop(); // after the final newline
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const value = parseLine(line);
    const problem = value === undefined ? 'not valid JSON' : recordProblem(value, prev);
    if (problem) throw new HoneError('bad_format', `${file}:${i + 1}: not an event record: ${problem}`, { file, line: i + 1 });
    records.push(value as RunEventRecord);
    prev = (value as RunEventRecord).seq;
  });
  const tail = buf.subarray(end).toString('utf8');
  if (tail.trim() === '') return { records, torn: false, goodBytes: buf.length, missingNewline: false };
  const last = parseLine(tail);
  if (last !== undefined && recordProblem(last, prev) === null) {
    records.push(last as RunEventRecord);
    return { records, torn: false, goodBytes: buf.length, missingNewline: true };
  }
  return { records, torn: true, goodBytes: end, missingNewline: false };
}

/** The records of the log at `path` with `seq > since` (none when the file does not exist yet). */
export function readEventsLog(path: string, since = 0): RunEventRecord[] {
  if (!existsSync(path)) return [];
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw new HoneError('io_error', `${path}: cannot be read: ${reason(err)}`);
  }
  return parseEventsLog(bytes, path).records.filter((r) => r.seq > since);
}

/** An events.jsonl open for appending. */
export class EventsLog {
  private constructor(
    readonly path: string,
    private fd: number,
    private seq: number,
    private size: number,
  ) {}

  /** Opens (or creates) the log at `path`; a torn last line is cut off, numbering goes on after the last record. */
  static open(path: string): EventsLog {
    const bytes = existsSync(path) ? readFileSync(path) : Buffer.alloc(0);
    const parsed = parseEventsLog(bytes, path);
    try {
      if (parsed.torn) truncateSync(path, parsed.goodBytes);
      const fd = openSync(path, 'a');
      const log = new EventsLog(path, fd, parsed.records.at(-1)?.seq ?? 0, parsed.goodBytes);
      if (parsed.missingNewline) log.write('\n');
      return log;
    } catch (err) {
      if (err instanceof HoneError) throw err;
      throw new HoneError('io_error', `${path}: cannot be opened for writing: ${reason(err)}`);
    }
  }

  /** The sequence number of the last record written (0 for an empty log). */
  get lastSeq(): number {
    return this.seq;
  }

  /** Appends one record and returns it. On a failed write the file is cut back to where it was. */
  append(segment: number, event: RunEventRecord['event'], at: Date = new Date()): RunEventRecord {
    const record: RunEventRecord = { seq: this.seq + 1, at: at.toISOString(), segment, event };
    this.write(JSON.stringify(record) + '\n');
    this.seq = record.seq;
    return record;
  }

  /** Flushes what was written to the disk (checkpoints, the end of a run). */
  sync(): void {
    if (this.fd < 0) return;
    try {
      fsyncSync(this.fd);
    } catch (err) {
      throw new HoneError('io_error', `${this.path}: cannot be flushed to disk: ${reason(err)}`);
    }
  }

  /** Syncs and closes; safe to call twice. */
  close(): void {
    if (this.fd < 0) return;
    const fd = this.fd;
    try {
      this.sync();
    } finally {
      this.fd = -1;
      closeSync(fd);
    }
  }

  private write(text: string): void {
    if (this.fd < 0) throw new HoneError('internal', `${this.path}: the events log is closed`);
    const data = Buffer.from(text, 'utf8');
    try {
      for (let off = 0; off < data.length; ) off += writeSync(this.fd, data, off, data.length - off);
      this.size += data.length;
    } catch (err) {
      // never leave half a line for the next record to join
      try {
        ftruncateSync(this.fd, this.size);
      } catch {
        // the reader skips a torn last line either way
      }
      throw new HoneError('io_error', `${this.path}: cannot be written: ${reason(err)}`);
    }
  }
}
