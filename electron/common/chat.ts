/**
 * Trying an adapter (docs/chat.md): a conversation answered by the base and by the base with the
 * adapter, streamed, as plain data that crosses the engine host, IPC, the WebSocket and CLI output
 * unchanged. No platform imports.
 */

export const CHAT_ROLES = ['system', 'user', 'assistant'] as const;
export type ChatRole = (typeof CHAT_ROLES)[number];

export interface ChatMessage {
  role: ChatRole;
  content: string;
}

/** How the reply is chosen, token by token. */
export interface ChatSampling {
  /** Reply tokens at most (a reply also ends at the model's end of turn, or a full context). */
  maxTokens: number;
  /** true: the most likely token each step (the same reply every time); false: sampled. */
  greedy: boolean;
  /** Sampled: softmax temperature, > 0. */
  temperature: number;
  /** Sampled: nucleus mass kept, in (0, 1]. */
  topP: number;
  /** Sampled: the same seed gives the same reply. */
  seed: number;
}

export const CHAT_DEFAULT_SAMPLING: ChatSampling = { maxTokens: 256, greedy: true, temperature: 0.8, topP: 0.95, seed: 42 };

/** Bounds the service checks (common/validate.ts). */
export const CHAT_LIMITS = {
  messages: 64,
  /** Characters of one message's content, and of all of them together. */
  messageChars: 32_000,
  totalChars: 128_000,
  maxTokens: 4096,
  scale: 4,
  temperature: 5,
} as const;

/** Which model answered: the base alone, or the base with the adapter at its scale. */
export type ChatWhich = 'base' | 'adapter';

/**
 * Why a reply ended: the model ended its turn (`eos`), `max_tokens`, the context was full
 * (`context`), or it was stopped (`stopped`).
 */
export type ChatStop = 'eos' | 'max_tokens' | 'context' | 'stopped';

export interface ChatReply {
  which: ChatWhich;
  /** The adapter's scale this reply used (0 for the base). */
  scale: number;
  text: string;
  promptTokens: number;
  replyTokens: number;
  stop: ChatStop;
}

/**
 * One chat request to the service (`chat.generate`). The adapter comes from a run (`run`: a run
 * id or the path of a run folder) or a file (`adapter` with its `model`); `model` alone asks the
 * base. `compare`: the base answers first, then the base with the adapter, on one loaded model.
 */
export interface ChatRequest {
  /** Tags the streamed `chat-token` events (letters, digits, `.`, `_`, `-`); made up when not given. */
  chatId?: string;
  run?: string;
  adapter?: string;
  model?: string;
  /** The adapter's strength, 0..4 (0: the base; 1: as trained). Default 1. */
  scale?: number;
  messages: ChatMessage[];
  compare?: boolean;
  sampling?: Partial<ChatSampling>;
  /** Where the model runs: the CPU by default; `auto` takes a GPU when there is one. */
  backend?: 'cpu' | 'auto' | 'cuda' | 'metal';
}

export interface ChatResult {
  chatId: string;
  model: string;
  adapter: string | null;
  /** The model's own chat template, or the plain fallback of a model without one. */
  template: 'model' | 'fallback';
  /** Where the model ran ("CPU", "CUDA0", ...). */
  backend: string;
  /** In the order generated: the base first when comparing. */
  replies: ChatReply[];
  /** What the caller should know (an unfinished run's checkpoint adapter, a fallback template). */
  notes: string[];
}

/** A piece of a reply as it streams, as a ServiceEvent. */
export interface ChatToken {
  type: 'chat-token';
  chatId: string;
  which: ChatWhich;
  text: string;
}
