/**
 * Runs a fuzz target in a worker thread under a watchdog: a case that blocks the thread (a
 * loop that never ends) cannot be timed out from inside, so when no case starts or ends for
 * `stallMs` the worker is ended and the case it was on is reported as a hang.
 */
import { Worker } from 'node:worker_threads';
import type { FuzzOptions, FuzzReport } from './run-target.ts';

type Message = { kind: 'case'; index: number; shown: string } | { kind: 'report'; report: FuzzReport };

export function fuzzInWorker(name: string, options: Omit<FuzzOptions, 'onCase'>, stallMs = 30_000): Promise<FuzzReport> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./worker-entry.mjs', import.meta.url), { workerData: { name, options } });
    let last = { index: -1, shown: '(before the first case)' };
    let timer = setTimeout(stalled, stallMs);
    function stalled() {
      const hang = `hang: case ${last.index} ran over ${stallMs} ms without returning; the worker was ended`;
      void worker.terminate();
      resolve({ target: name, seed: options.seed, cases: last.index + 1, failures: [{ symptom: 'hang', count: 1, input: last.shown, error: hang }], ms: NaN });
    }
    worker.on('message', (m: Message) => {
      clearTimeout(timer);
      if (m.kind === 'report') return resolve(m.report);
      last = m;
      timer = setTimeout(stalled, stallMs);
    });
    worker.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    worker.on('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`fuzz worker for ${name} exited with code ${code} on case ${last.index}: ${last.shown}`));
    });
  });
}
