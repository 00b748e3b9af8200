/** Trying a run's adapter through the service's chat (docs/chat.md): one call, the reply streamed as events. */
import type { ChatRequest, ChatResult, ChatToken } from '../../../electron/common/chat.ts';
import type { AppEnv } from '../app/env.ts';

let count = 0;

/** A fresh chat id (what the service's events are tagged with). */
export function newChatId(): string {
  return `try-${Date.now().toString(36)}-${++count}`;
}

/**
 * Asks chat.generate with `request.chatId`; `onToken` sees that chat's pieces while it runs.
 * Rejects with the service's {code, message}.
 */
export async function generateChat(env: AppEnv, request: ChatRequest & { chatId: string }, onToken: (t: ChatToken) => void): Promise<ChatResult> {
  const off = env.service.subscribe((e) => {
    if (e.type === 'chat-token' && e.chatId === request.chatId) onToken(e);
  });
  try {
    return await env.service.chat.generate(request);
  } finally {
    off();
  }
}

/** Ends the reply in progress of that chat; its text so far stays. */
export function stopChat(env: AppEnv, chatId: string): Promise<{ stopping: boolean }> {
  return env.service.chat.stop(chatId);
}
