/**
 * Errors that stop an import (bad options, a file changed under us). Data
 * problems are never thrown: they go into the report. When an error crosses
 * a process or IPC boundary, send `toPlainError(err)`, not the Error object.
 */
import { HoneError, toPlain, type ErrorCode, type PlainError } from '../../common/errors.ts';

export type DatasetErrorCode = Extract<ErrorCode, 'bad_option' | 'file_changed' | 'internal'>;
export type { PlainError };

export class DatasetError extends HoneError {
  declare code: DatasetErrorCode;
  constructor(code: DatasetErrorCode, message: string) {
    super(code, message);
    this.name = 'DatasetError';
  }
}

/** Any thrown value as `{code, message, detail?}`, safe to serialise (common/errors.ts `toPlain`). */
export const toPlainError = toPlain;
