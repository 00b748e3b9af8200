/**
 * The engine host's chat job (docs/chat.md): a reply through llama.cpp with the adapter applied,
 * streamed as `chat-token` events; with `compare` the base answers first, then the base with the
 * adapter, on one loaded model (the adapter's scale is set per reply, 0 being the base). The
 * model stays loaded between chats of the same files, as the plan keeps its model.
 */
import { statSync } from 'node:fs';
import type { ChatReply, ChatWhich } from '../common/chat.ts';
import type { ChatHostResult, Requests } from '../common/engine-api.ts';
import { HoneError } from '../common/errors.ts';
import type { HoneAddon, NativeChat } from './binding.ts';
import type { Emit, RunControl } from './jobs.ts';

type Payload = Requests['chat']['payload'];

function fileKey(path: string, what: string): string {
  try {
    const st = statSync(path);
    return `${path}:${st.size}:${st.mtimeMs}`;
  } catch (e) {
    const errno = (e as NodeJS.ErrnoException).code;
    throw new HoneError(errno === 'ENOENT' ? 'not_found' : 'io_error', `${path}: the ${what} cannot be read (${errno ?? (e as Error).message})`, { path });
  }
}

/** The one chat model the host keeps loaded. */
export class ChatModelCache {
  private key = '';
  private chat: NativeChat | null = null;

  async get(addon: HoneAddon, p: Payload): Promise<{ chat: NativeChat; cached: boolean }> {
    const key = JSON.stringify([fileKey(p.model, 'model'), p.adapter ? fileKey(p.adapter, 'adapter') : null, p.backend ?? 'cpu', p.threads ?? 0]);
    if (this.chat && key === this.key) return { chat: this.chat, cached: true };
    this.drop();
    this.chat = await addon.Chat.load({ model: p.model, adapter: p.adapter ?? undefined, backend: p.backend ?? 'cpu', threads: p.threads ?? 0 });
    this.key = key;
    return { chat: this.chat, cached: false };
  }

  /** Frees the model (before a training run loads its own). */
  drop(): void {
    this.chat?.dispose();
    this.chat = null;
    this.key = '';
  }
}

export async function chatJob(addon: HoneAddon, p: Payload, emit: Emit, control: RunControl, cache: ChatModelCache): Promise<ChatHostResult> {
  if (p.compare && !p.adapter) throw new HoneError('invalid_argument', 'chat: compare needs an adapter to compare the base with');
  const { chat, cached } = await cache.get(addon, p);
  const info = chat.info();
  const plan: Array<{ which: ChatWhich; scale: number }> = p.compare ? [{ which: 'base', scale: 0 }, { which: 'adapter', scale: p.scale }] : [{ which: p.adapter ? 'adapter' : 'base', scale: p.adapter ? p.scale : 0 }];
  const messages = JSON.stringify(p.messages);
  const replies: ChatReply[] = [];
  for (const { which, scale } of plan) {
    if (control.stopRequested) break; // a stop during the base's reply skips the adapter's
    const r = await chat.generate(messages, { ...p.sampling, scale }, (text) => {
      emit({ type: 'chat-token', which, text });
      return control.stopRequested === null;
    });
    replies.push({ which, scale, text: r.text, promptTokens: r.promptTokens, replyTokens: r.replyTokens, stop: r.stop });
  }
  return { template: info.template, backend: info.backend, cached, replies };
}
