/** Exports of a run's adapter through the service (docs/export.md): one call, progress as events. */
import type { ExportProgress, ExportRequest, ExportResult } from '../../../electron/common/export.ts';
import type { AppEnv } from '../app/env.ts';

/**
 * Runs one export of run `runId`; `onProgress` sees the export-progress events of exports into
 * that run's folder while it runs. Rejects with the service's {code, message}.
 */
export async function exportRun(env: AppEnv, runId: string, request: Omit<ExportRequest, 'run'>, onProgress: (p: ExportProgress) => void): Promise<ExportResult> {
  const off = env.service.subscribe((e) => {
    if (e.type === 'export-progress' && e.format === request.format) onProgress(e);
  });
  try {
    return await env.service.exports.create({ ...request, run: runId });
  } finally {
    off();
  }
}
