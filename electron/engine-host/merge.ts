/**
 * The engine host's merge job: hone_merge through the addon, one `merge-progress` event per
 * tensor; a cancel (or stop) request ends it at the next tensor and leaves nothing under `out`.
 */
import type { MergeResult, Requests } from '../common/engine-api.ts';
import type { HoneAddon } from './binding.ts';
import type { Emit, RunControl } from './jobs.ts';

export async function mergeJob(addon: HoneAddon, p: Requests['merge']['payload'], emit: Emit, control: RunControl): Promise<MergeResult> {
  const r = await addon.merge({ model: p.model, adapter: p.adapter, out: p.out, type: p.type, scale: p.scale }, (e) => {
    emit({ type: 'merge-progress', done: e.done, total: e.total, tensor: e.tensor });
    return control.stopRequested === null;
  });
  return { path: r.path, bytes: r.bytes, merged: r.merged, copied: r.copied, fallbacks: r.fallbacks, notes: r.notes };
}
