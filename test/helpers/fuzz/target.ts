/**
 * What one fuzz target is: a fast-check arbitrary of inputs built from the real fixtures, and a
 * check that feeds one input to a reader and says what went wrong (null when the reader held).
 * The suite (test/unit/fuzz-*.test.ts) and the long script (scripts/fuzz.ts) run the same ones.
 */
import type { Arbitrary } from 'fast-check';

export interface FuzzTarget<T = unknown> {
  name: string;
  arbitrary: Arbitrary<T>;
  /** The input in a line or two (what was mutated and how), for failure reports. */
  show(input: T): string;
  /** Feeds `input` to the reader; null when it held, else what went wrong. */
  check(input: T): Promise<string | null>;
  /** Removes what the target made (temporary folders). */
  close(): Promise<void>;
}
