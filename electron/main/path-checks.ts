/**
 * Main's check before a call reaches the service: every path the page names must exist on this
 * machine (the page only knows paths main gave it: a drop, a dialog, the model list), so a stale
 * or made-up path gets `not_found` naming it instead of a failure deep in a job.
 */
import { existsSync } from 'node:fs';
import { HoneError } from '../common/errors.ts';
import { SERVICE_METHODS, type ServiceMethod } from '../common/service.ts';

/** The paths a validated call names that must exist (outputs such as an export's `out` are not among them). */
export function inputPaths(method: ServiceMethod, args: unknown[]): string[] {
  const kinds: readonly string[] = SERVICE_METHODS[method];
  const out: string[] = [];
  kinds.forEach((kind, i) => {
    const v = args[i];
    if (kind === 'path' && typeof v === 'string') out.push(v);
    else if (kind === 'paths' && Array.isArray(v)) out.push(...(v as string[]));
    else if (kind === 'settings' && v && typeof v === 'object') {
      const s = v as { model?: unknown; data?: unknown };
      if (typeof s.model === 'string') out.push(s.model);
      if (Array.isArray(s.data)) out.push(...(s.data as string[]));
    } else if (kind === 'export' && v && typeof v === 'object') {
      // the adapter and model read from; `out` is written, so it need not exist
      const r = v as { adapter?: unknown; model?: unknown };
      if (typeof r.adapter === 'string') out.push(r.adapter);
      if (typeof r.model === 'string') out.push(r.model);
    } else if (kind === 'chat' && v && typeof v === 'object') {
      // a chat reads its model and adapter (a run is looked up by the service)
      const r = v as { adapter?: unknown; model?: unknown };
      if (typeof r.adapter === 'string') out.push(r.adapter);
      if (typeof r.model === 'string') out.push(r.model);
    }
  });
  return out;
}

export function checkInputPaths(method: ServiceMethod, args: unknown[], exists: (p: string) => boolean = existsSync): void {
  const missing = inputPaths(method, args).filter((p) => !exists(p));
  if (missing.length) {
    throw new HoneError('not_found', `${method}: ${missing.map((p) => JSON.stringify(p)).join(', ')} ${missing.length === 1 ? 'does' : 'do'} not exist`, { paths: missing });
  }
}
