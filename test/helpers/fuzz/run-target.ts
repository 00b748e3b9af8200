/**
 * The seeded fuzz loop over one target, with fast-check. Two modes:
 *  - `first` (the suite): stops at the first failure and shrinks it to a small input;
 *  - `all` (the script): runs every case, groups failures by symptom, then shrinks the first
 *    input of each symptom by running the same seed again until that symptom.
 * The same seed gives the same cases, so a reported failure can be replayed.
 */
import fc from 'fast-check';
import { performance } from 'node:perf_hooks';
import { boundedCase } from './bounded-case.ts';
import type { FuzzTarget } from './target.ts';

export interface FuzzOptions {
  seed: number;
  cases: number;
  mode: 'first' | 'all';
  /** A case with no answer after this long is a hang. */
  caseLimitMs?: number;
  /** Told before each case runs (the worker's watchdog uses it). */
  onCase?: (index: number, shown: string) => void;
}

export interface FuzzFailure {
  symptom: string;
  /** How often it was seen (mode `all`). */
  count: number;
  /** The shrunk input that shows it, and its exact failure. */
  input: string;
  error: string;
}

export interface FuzzReport {
  target: string;
  seed: number;
  /** Cases run, not counting the reruns that shrink a failure. */
  cases: number;
  failures: FuzzFailure[];
  ms: number;
}

const DEFAULT_CASE_LIMIT_MS = 10_000;

/** A failure's kind without the numbers and paths that differ from case to case. */
export function symptomOf(error: string): string {
  return error
    .replace(/(\/[^\s:'"]+)+/g, '<path>')
    .replace(/\d+/g, 'N')
    .slice(0, 160);
}

export async function runTarget<T>(target: FuzzTarget<T>, options: FuzzOptions): Promise<FuzzReport> {
  const limit = options.caseLimitMs ?? DEFAULT_CASE_LIMIT_MS;
  const started = performance.now();
  let index = 0;
  const runOne = (input: T) => {
    options.onCase?.(index++, target.show(input));
    return boundedCase(() => target.check(input), limit);
  };
  // shrinking reruns a failing property many times; its cases are not counted
  const shrunk = async (onlySymptom: string | null): Promise<{ input: string; error: string; ran: number } | null> => {
    const property = fc.asyncProperty(target.arbitrary, async (input) => {
      const error = await runOne(input);
      if (error !== null && (onlySymptom === null || symptomOf(error) === onlySymptom)) throw new Error(error);
    });
    const details = await fc.check(property, { seed: options.seed, numRuns: options.cases });
    if (!details.failed || !details.counterexample) return null;
    const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    return { input: target.show(details.counterexample[0]), error, ran: details.numRuns };
  };

  if (options.mode === 'first') {
    const first = await shrunk(null);
    const failures = first ? [{ symptom: symptomOf(first.error), count: 1, input: first.input, error: first.error }] : [];
    return { target: target.name, seed: options.seed, cases: first ? first.ran : options.cases, failures, ms: performance.now() - started };
  }

  const seen = new Map<string, number>();
  const property = fc.asyncProperty(target.arbitrary, async (input) => {
    const error = await runOne(input);
    if (error !== null) seen.set(symptomOf(error), (seen.get(symptomOf(error)) ?? 0) + 1);
  });
  await fc.assert(property, { seed: options.seed, numRuns: options.cases });
  const failures: FuzzFailure[] = [];
  for (const [symptom, count] of seen) {
    const one = await shrunk(symptom);
    failures.push({ symptom, count, input: one?.input ?? '(not seen again on the rerun)', error: one?.error ?? symptom });
  }
  return { target: target.name, seed: options.seed, cases: options.cases, failures, ms: performance.now() - started };
}
