/**
 * Errors that stop an import (bad options, a file changed under us). Data
 * problems are never thrown: they go into the report. When an error crosses
 * a process or IPC boundary, send `toPlainError(err)`, not the Error object.
 */

export type DatasetErrorCode = 'bad-option' | 'file-changed' | 'internal';

export interface PlainError {
  code: string;
  message: string;
}

export class DatasetError extends Error {
  readonly code: DatasetErrorCode;
  constructor(code: DatasetErrorCode, message: string) {
    super(message);
    this.name = 'DatasetError';
    this.code = code;
  }
}

/** Any thrown value as `{code, message}`, safe to serialise. */
export function toPlainError(err: unknown): PlainError {
  if (err instanceof DatasetError) return { code: err.code, message: err.message };
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    return { code: typeof code === 'string' ? code : 'internal', message: err.message };
  }
  return { code: 'internal', message: String(err) };
}
