import type { Example } from '../example.ts';
import type { RecordIssues } from '../problems.ts';

export interface FormatContext {
  file: string;
  /** Same meaning as `Problem.line`. */
  line: number;
  longMessageChars: number;
}

/**
 * Turns one parsed JSON record into an Example, reporting every problem it
 * finds to `issues`. The caller drops the example when `issues` has errors,
 * so a normaliser may return a partial example after reporting one.
 */
export type Normaliser = (value: unknown, issues: RecordIssues, ctx: FormatContext) => Example | null;
