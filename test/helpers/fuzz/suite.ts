/**
 * What every fuzz test file does: run one target in a worker (fixed seed, a bounded number of
 * cases), tell how many cases ran, and fail with the shrunk input when any case failed.
 */
import assert from 'node:assert/strict';
import { fuzzInWorker } from './in-worker.ts';
import type { FuzzReport } from './run-target.ts';

/** The node:test context parts used here (@types/node 20.9 does not export the type). */
interface Diagnosing {
  diagnostic(message: string): void;
}

export function assertNoFailures(t: Diagnosing, report: FuzzReport): void {
  const seconds = Number.isNaN(report.ms) ? '?' : (report.ms / 1000).toFixed(1);
  t.diagnostic(`${report.target}: ${report.cases} cases, seed ${report.seed}, ${seconds} s`);
  const lines = report.failures.map((f) => `${f.error}\n  input: ${f.input}`);
  assert.deepEqual(lines, [], `${report.target} failed (replay: node --import tsx scripts/fuzz.ts --target ${report.target} --seed ${report.seed})`);
}

export async function fuzzSuite(t: Diagnosing, target: string, cases: number, seed = 53): Promise<void> {
  assertNoFailures(t, await fuzzInWorker(target, { seed, cases, mode: 'first' }));
}
