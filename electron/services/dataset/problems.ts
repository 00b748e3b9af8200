import type { Problem, ProblemCode } from '../../common/dataset-report.ts';

/** Collects the problems of one record (or one file, with `line` null). */
export class RecordIssues {
  readonly list: Problem[] = [];
  constructor(
    readonly file: string,
    readonly line: number | null,
  ) {}

  error(code: ProblemCode, field: string, message: string): void {
    this.list.push({ file: this.file, line: this.line, field, message, code, severity: 'error' });
  }

  warn(code: ProblemCode, field: string, message: string): void {
    this.list.push({ file: this.file, line: this.line, field, message, code, severity: 'warning' });
  }

  get hasErrors(): boolean {
    return this.list.some((p) => p.severity === 'error');
  }
}

/** A short name for a JSON value's type, for messages ("got number"). */
export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
