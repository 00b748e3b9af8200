/**
 * Checks shared by every chat format, run on the normalised messages. The
 * order rules are the ones chat templates need to render a conversation:
 *
 *   start     -> system | user
 *   system    -> system | user
 *   user      -> assistant
 *   assistant -> user                (assistant -> tool when it made tool calls)
 *   tool      -> tool | assistant
 *
 * A tool message needs a pending call from the assistant before it (matched
 * by `tool_call_id` when both sides carry ids), else it is `orphan_tool`;
 * other breaks are `role_order`. A conversation may end after any message.
 */
import type { ChatMessage, ToolCall } from './example.ts';
import type { RecordIssues } from './problems.ts';

/** Where a normalised message came from in the input, for problem fields. */
export interface MessagePaths {
  /** e.g. `messages[2]` */
  message: string;
  /** e.g. `messages[2].role` (`conversations[2].from` in ShareGPT) */
  role: string;
  /** e.g. `messages[2].content` */
  content: string;
}

export interface ChatCheckOptions {
  /** Field naming the whole list, for conversation-level problems (e.g. `messages`). */
  listField: string;
  longMessageChars: number;
}

export function checkConversation(
  messages: ChatMessage[],
  paths: MessagePaths[],
  issues: RecordIssues,
  options: ChatCheckOptions,
): void {
  messages.forEach((m, i) => {
    const callsOnly = m.role === 'assistant' && (m.tool_calls?.length ?? 0) > 0;
    if (m.content.trim() === '' && !callsOnly) {
      issues.error('empty_content', paths[i].content, `${m.role} message has no content`);
    }
    if (m.content.length > options.longMessageChars) {
      issues.warn(
        'long_message',
        paths[i].content,
        `${m.role} message is ${m.content.length} characters long (limit ${options.longMessageChars}); it will likely be truncated`,
      );
    }
  });

  const assistants = messages.filter((m) => m.role === 'assistant');
  if (assistants.length === 0) {
    issues.error('no_assistant', options.listField, 'conversation has no assistant turn: nothing to learn from');
  } else if (assistants.every((m) => m.weight === 0)) {
    issues.error('no_assistant', options.listField, 'every assistant turn has weight 0: nothing to learn from');
  }
  if (!messages.some((m) => m.role === 'user')) {
    issues.error('no_user', options.listField, 'conversation has no user turn');
  }
  checkOrder(messages, paths, issues);
}

function checkOrder(messages: ChatMessage[], paths: MessagePaths[], issues: RecordIssues): void {
  let prev: ChatMessage | null = null;
  let pending: ToolCall[] = [];
  messages.forEach((m, i) => {
    const field = paths[i].role;
    const prevName = prev === null ? 'the start' : `a ${prev.role} message`;
    if (m.role === 'tool') {
      if (pending.length === 0) {
        issues.error('orphan_tool', field, 'tool message has no assistant tool call before it');
      } else {
        const at = m.tool_call_id === undefined ? 0 : pending.findIndex((c) => c.id === undefined || c.id === m.tool_call_id);
        if (at === -1) {
          issues.error('orphan_tool', `${paths[i].message}.tool_call_id`, `tool_call_id ${JSON.stringify(m.tool_call_id)} matches no pending tool call`);
        } else {
          pending.splice(at, 1);
        }
      }
    } else {
      const madeCalls = prev?.role === 'assistant' && (prev.tool_calls?.length ?? 0) > 0;
      let ok: boolean;
      if (madeCalls) ok = false;
      else if (prev === null || prev.role === 'system') ok = m.role === 'system' || m.role === 'user';
      else if (prev.role === 'user') ok = m.role === 'assistant';
      else if (prev.role === 'assistant') ok = m.role === 'user';
      else ok = m.role === 'assistant'; // after tool results
      if (!ok) {
        const why = madeCalls ? ' (its tool calls have no tool results)' : '';
        issues.error('role_order', field, `${m.role} message cannot follow ${prevName}${why}`);
      }
      pending = m.role === 'assistant' ? [...(m.tool_calls ?? [])] : [];
    }
    prev = m;
  });
}
