/**
 * What a chat request talks to (docs/chat.md): a run's adapter and base model (the adapter of its
 * newest checkpoint before it finished, as an export reads it), or a model file with an optional
 * adapter file. Files are absolute paths that must be readable.
 */
import { resolve } from 'node:path';
import type { ChatRequest } from '../../common/chat.ts';
import { absolute, mustBeFile, runAdapter, type RunLookup } from '../export/source.ts';

export interface ChatSource {
  model: string;
  adapter: string | null;
  notes: string[];
}

export async function resolveChatSource(request: ChatRequest, lookup: RunLookup): Promise<ChatSource> {
  const notes: string[] = [];
  if (request.run !== undefined) {
    const { adapter, model } = await runAdapter(request.run, lookup, notes, 'chat.generate');
    return { model: resolve(model), adapter, notes };
  }
  const model = absolute('model', request.model!, 'chat.generate');
  await mustBeFile(model, 'model');
  const adapter = request.adapter !== undefined ? absolute('adapter', request.adapter, 'chat.generate') : null;
  if (adapter) await mustBeFile(adapter, 'adapter');
  return { model, adapter, notes };
}
