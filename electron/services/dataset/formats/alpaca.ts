/**
 * Alpaca records: `{"instruction", "input"?, "output", "system"?, "history"?}`.
 * The user turn is the instruction, followed by the input after a blank line
 * when there is one; `history` is a list of earlier `[user, assistant]` pairs.
 */
import type { ChatExample, ChatMessage } from '../example.ts';
import { isPlainObject, typeName, type RecordIssues } from '../problems.ts';
import { checkConversation, type MessagePaths } from '../validate-chat.ts';
import { stringField } from './fields.ts';
import type { FormatContext } from './types.ts';

export function normaliseAlpaca(value: unknown, issues: RecordIssues, ctx: FormatContext): ChatExample | null {
  if (!isPlainObject(value)) {
    issues.error('wrong_type', '', `record must be a JSON object, got ${typeName(value)}`);
    return null;
  }
  const instruction = stringField(value, 'instruction', issues, true);
  const input = stringField(value, 'input', issues, false);
  const output = stringField(value, 'output', issues, true);
  const system = stringField(value, 'system', issues, false);
  const history = readHistory(value.history, issues);
  if (instruction === undefined || output === undefined || history === null || issues.hasErrors) return null;

  const messages: ChatMessage[] = [];
  const paths: MessagePaths[] = [];
  const add = (message: ChatMessage, field: string): void => {
    messages.push(message);
    paths.push({ message: field, role: field, content: field });
  };
  if (system !== undefined && system.trim() !== '') add({ role: 'system', content: system }, 'system');
  history.forEach(([user, assistant], i) => {
    add({ role: 'user', content: user }, `history[${i}][0]`);
    add({ role: 'assistant', content: assistant }, `history[${i}][1]`);
  });
  const prompt = input !== undefined && input.trim() !== '' ? `${instruction}\n\n${input}` : instruction;
  add({ role: 'user', content: prompt }, 'instruction');
  add({ role: 'assistant', content: output }, 'output');
  checkConversation(messages, paths, issues, { listField: '', longMessageChars: ctx.longMessageChars });
  return { kind: 'chat', messages, source: { file: ctx.file, line: ctx.line } };
}

function readHistory(value: unknown, issues: RecordIssues): [string, string][] | null {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    issues.error('wrong_type', 'history', `history must be an array of [user, assistant] pairs, got ${typeName(value)}`);
    return null;
  }
  const pairs: [string, string][] = [];
  for (let i = 0; i < value.length; i++) {
    const pair = value[i];
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string' || typeof pair[1] !== 'string') {
      issues.error('wrong_type', `history[${i}]`, 'history entry must be a [user, assistant] pair of strings');
      return null;
    }
    pairs.push([pair[0], pair[1]]);
  }
  return pairs;
}
