/**
 * Files dropped on the page, as paths the service can read. In Electron the preload gives each
 * File's real path; in a browser a drop carries no path, so each file is uploaded (POST
 * /upload?name=, docs/web-mode.md) into the server's data folder and the path it answers is used.
 */
import { HoneError, isErrorCode, type ErrorCode } from '../../../electron/common/errors.ts';

export type FetchLike = (url: string, init: { method: string; body: Blob; headers: Record<string, string>; credentials: 'same-origin' }) => Promise<{
  ok: boolean;
  status: number;
  json(): Promise<unknown>;
}>;

/** The HTTP status of a refused upload, when the server's body names no code. */
function codeForStatus(status: number): ErrorCode {
  if (status === 401 || status === 403) return 'invalid_argument';
  if (status === 404) return 'not_found';
  if (status === 400 || status === 413) return 'invalid_argument';
  return 'io_error';
}

export async function uploadFile(file: File, fetchImpl: FetchLike = fetch as unknown as FetchLike): Promise<{ path: string; bytes: number }> {
  const res = await fetchImpl(`/upload?name=${encodeURIComponent(file.name)}`, {
    method: 'POST',
    body: file,
    headers: { 'Content-Type': 'application/octet-stream' },
    credentials: 'same-origin',
  });
  let body: unknown = null;
  try {
    body = await res.json();
  } catch {
    // an answer that is not JSON: the status says what happened
  }
  if (!res.ok) {
    const err = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
    const code = isErrorCode(err?.code) ? err.code : codeForStatus(res.status);
    const message = typeof err?.message === 'string' ? err.message : `HTTP ${res.status}`;
    throw new HoneError(code, `uploading ${file.name} failed: ${message}`, { file: file.name, status: res.status });
  }
  const path = (body as { path?: unknown } | null)?.path;
  if (typeof path !== 'string') throw new HoneError('bad_format', `uploading ${file.name}: the server's answer has no path`);
  return { path, bytes: Number((body as { bytes?: unknown }).bytes) || file.size };
}

/** Turns dropped or picked files into service-side paths. */
export interface FileImporter {
  /** `paths`: the files' own paths (Electron); `upload`: copies sent to the server (browser). */
  readonly kind: 'paths' | 'upload';
  toPaths(files: File[], onProgress?: (done: number, total: number) => void): Promise<string[]>;
}

export function uploadImporter(fetchImpl?: FetchLike): FileImporter {
  return {
    kind: 'upload',
    async toPaths(files, onProgress) {
      const out: string[] = [];
      onProgress?.(0, files.length);
      // one at a time: the server streams each to disk, and an error names the file it hit
      for (const f of files) {
        out.push((await uploadFile(f, fetchImpl)).path);
        onProgress?.(out.length, files.length);
      }
      return out;
    },
  };
}

export function pathImporter(pathForFile: (f: File) => string): FileImporter {
  return {
    kind: 'paths',
    async toPaths(files) {
      return files.map((f) => {
        const p = pathForFile(f);
        if (!p) throw new HoneError('invalid_argument', `${f.name} has no path on this machine (was it dropped from another application?)`);
        return p;
      });
    },
  };
}
