/**
 * `hone serve` as its own process for the load script: started on a data folder with HOME and
 * TMPDIR pointed into the scratch folder (so a stray write shows up there), its address read
 * from what it prints, its resident memory read from /proc and its live heap from V8's
 * --trace-gc lines (RSS keeps the heap's high-water mark; the heap after a full GC shows a leak).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ServeProcess {
  child: ChildProcess;
  port: number;
  token: string;
  /** `127.0.0.1:PORT`: the Host header the server answers to. */
  host: string;
  /** Every line it wrote to stderr. */
  stderr: string[];
  /** MB live after each full GC, by isolate (the main thread's is the largest). */
  heapAfterGc: Map<string, number[]>;
  /** Resolves with the exit code (or the signal's name) when it ends. */
  exited: Promise<number | string>;
}

export function startServe(repoRoot: string, dataDir: string, env: Record<string, string>): Promise<ServeProcess> {
  const child = spawn(process.execPath, ['--trace-gc', join(repoRoot, 'bin', 'hone.mjs'), 'serve', '--data-dir', dataDir, '--host', '127.0.0.1'], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  let errText = '';
  child.stderr!.on('data', (c: Buffer) => {
    errText += c.toString();
    const lines = errText.split('\n');
    errText = lines.pop()!;
    stderr.push(...lines);
  });
  const heapAfterGc = new Map<string, number[]>();
  let outText = '';
  child.stdout!.on('data', (c: Buffer) => {
    outText += c.toString();
    const lines = outText.split('\n');
    outText = lines.pop()!;
    for (const l of lines) {
      const m = /\[\d+:(0x[0-9a-f]+)\].*Mark-Compact.* -> ([\d.]+) \([\d.]+\) MB/.exec(l);
      if (m) heapAfterGc.set(m[1], [...(heapAfterGc.get(m[1]) ?? []), Number(m[2])]);
    }
  });
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /open http:\/\/(127\.0\.0\.1:(\d+))\/\?token=(\S+)/.exec(out);
      if (m) resolve({ child, port: Number(m[2]), token: m[3], host: m[1], stderr, heapAfterGc, exited });
    });
    void exited.then((code) => reject(new Error(`hone serve exited (${code}) before printing its address: ${stderr.join('\n')}`)));
  });
}

/** Resident memory of a process in MiB (Linux /proc), or NaN where it cannot be read. */
export function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Samples a process's RSS every `ms` until stopped. */
export class RssSampler {
  samples: number[] = [];
  /** When each sample was taken (Date.now()). */
  times: number[] = [];
  private timer: NodeJS.Timeout;

  constructor(
    private pid: number,
    ms = 100,
  ) {
    this.timer = setInterval(() => this.sample(), ms);
  }

  sample(): number {
    const v = rssMiB(this.pid);
    if (!Number.isNaN(v)) {
      this.samples.push(v);
      this.times.push(Date.now());
    }
    return v;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  get peak(): number {
    return Math.max(...this.samples);
  }

  /** The highest sample in each of `parts` equal slices of [from, to): growth shows as a rising row. */
  peaksBetween(from: number, to: number, parts: number): number[] {
    const out = new Array<number>(parts).fill(NaN);
    this.times.forEach((t, i) => {
      if (t < from || t >= to) return;
      const k = Math.floor(((t - from) / (to - from)) * parts);
      out[k] = Number.isNaN(out[k]) ? this.samples[i] : Math.max(out[k], this.samples[i]);
    });
    return out;
  }
}

/** The main thread's series of live-heap figures: the isolate with the largest heap. */
export function mainHeapAfterGc(byIsolate: Map<string, number[]>): number[] {
  return [...byIsolate.values()].sort((a, b) => Math.max(...b) - Math.max(...a))[0] ?? [];
}
