/** The state of one thing fetched from the service: what every view renders as empty, loading, error or data. */
import { toPlain, type PlainError } from '../../../electron/common/errors.ts';

export interface Loadable<T> {
  status: 'idle' | 'loading' | 'ready' | 'error';
  /** The last good value: kept while reloading and after an error, so nothing jumps. */
  data: T | null;
  error: PlainError | null;
}

export const idle = <T>(): Loadable<T> => ({ status: 'idle', data: null, error: null });
export const loading = <T>(prev?: Loadable<T>): Loadable<T> => ({ status: 'loading', data: prev?.data ?? null, error: null });
export const ready = <T>(data: T): Loadable<T> => ({ status: 'ready', data, error: null });
export const failed = <T>(err: unknown, prev?: Loadable<T>): Loadable<T> => ({ status: 'error', data: prev?.data ?? null, error: toPlain(err) });
