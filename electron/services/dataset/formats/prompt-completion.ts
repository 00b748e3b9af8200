/**
 * `{"prompt", "completion", "system"?}` records, read as a one-turn chat:
 * [system?, user: prompt, assistant: completion].
 */
import type { ChatExample, ChatMessage } from '../example.ts';
import { isPlainObject, typeName, type RecordIssues } from '../problems.ts';
import { checkConversation, type MessagePaths } from '../validate-chat.ts';
import { stringField } from './fields.ts';
import type { FormatContext } from './types.ts';

export function normalisePromptCompletion(value: unknown, issues: RecordIssues, ctx: FormatContext): ChatExample | null {
  if (!isPlainObject(value)) {
    issues.error('wrong_type', '', `record must be a JSON object, got ${typeName(value)}`);
    return null;
  }
  const prompt = stringField(value, 'prompt', issues, true);
  const completion = stringField(value, 'completion', issues, true);
  const system = stringField(value, 'system', issues, false);
  if (prompt === undefined || completion === undefined || issues.hasErrors) return null;
  return promptCompletionExample({ system, prompt, completion }, { system: 'system', prompt: 'prompt', completion: 'completion' }, issues, ctx);
}

/** Shared with CSV rows: builds and checks the chat for a prompt/completion pair. */
export function promptCompletionExample(
  parts: { system?: string; prompt: string; completion: string },
  fields: { system: string; prompt: string; completion: string },
  issues: RecordIssues,
  ctx: FormatContext,
): ChatExample {
  const messages: ChatMessage[] = [];
  const paths: MessagePaths[] = [];
  if (parts.system !== undefined && parts.system.trim() !== '') {
    messages.push({ role: 'system', content: parts.system });
    paths.push({ message: fields.system, role: fields.system, content: fields.system });
  }
  messages.push({ role: 'user', content: parts.prompt }, { role: 'assistant', content: parts.completion });
  paths.push(
    { message: fields.prompt, role: fields.prompt, content: fields.prompt },
    { message: fields.completion, role: fields.completion, content: fields.completion },
  );
  checkConversation(messages, paths, issues, { listField: '', longMessageChars: ctx.longMessageChars });
  return { kind: 'chat', messages, source: { file: ctx.file, line: ctx.line } };
}
