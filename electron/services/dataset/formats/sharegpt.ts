/**
 * ShareGPT records: `{"conversations": [{"from", "value"}], "system"?, "tools"?}`.
 * Roles: human -> user, gpt -> assistant, system, and the tool roles
 * (LLaMA-Factory's convention) function_call -> an assistant turn whose value
 * is the JSON call `{name, arguments}` (or a list of them), observation ->
 * tool. `user` / `assistant` / `tool` are accepted as aliases. `tools` may be
 * an array or a JSON string holding one.
 */
import type { ChatExample, ChatMessage } from '../example.ts';
import { nestedDeeperThan, tooDeepMessage } from '../json-depth.ts';
import { isPlainObject, typeName, type RecordIssues } from '../problems.ts';
import { checkConversation, type MessagePaths } from '../validate-chat.ts';
import { functionCall, toolList } from './tool-calls.ts';
import type { FormatContext } from './types.ts';

type From = 'user' | 'assistant' | 'system' | 'call' | 'tool';

const FROM: Record<string, From> = {
  human: 'user',
  user: 'user',
  gpt: 'assistant',
  assistant: 'assistant',
  system: 'system',
  function_call: 'call',
  observation: 'tool',
  tool: 'tool',
};

export function normaliseShareGpt(value: unknown, issues: RecordIssues, ctx: FormatContext): ChatExample | null {
  if (!isPlainObject(value)) {
    issues.error('wrong_type', '', `record must be a JSON object, got ${typeName(value)}`);
    return null;
  }
  const raw = value.conversations;
  if (raw === undefined) {
    issues.error('missing_field', 'conversations', 'record has no "conversations" list');
    return null;
  }
  if (!Array.isArray(raw)) {
    issues.error('wrong_type', 'conversations', `conversations must be an array, got ${typeName(raw)}`);
    return null;
  }
  if (raw.length === 0) {
    issues.error('empty_content', 'conversations', 'conversations is empty');
    return null;
  }
  const messages: ChatMessage[] = [];
  const paths: MessagePaths[] = [];
  let complete = true;

  if (value.system !== undefined && value.system !== null) {
    if (typeof value.system !== 'string') {
      issues.error('wrong_type', 'system', `system must be a string, got ${typeName(value.system)}`);
      complete = false;
    } else if (value.system.trim() !== '') {
      messages.push({ role: 'system', content: value.system });
      paths.push({ message: 'system', role: 'system', content: 'system' });
    }
  }

  raw.forEach((turn, i) => {
    const message = readTurn(turn, `conversations[${i}]`, issues);
    if (message) {
      messages.push(message);
      paths.push({ message: `conversations[${i}]`, role: `conversations[${i}].from`, content: `conversations[${i}].value` });
    } else {
      complete = false;
    }
  });
  const tools = toolList(value.tools, 'tools', issues);
  if (!complete) return null;
  checkConversation(messages, paths, issues, { listField: 'conversations', longMessageChars: ctx.longMessageChars });
  const example: ChatExample = { kind: 'chat', messages, source: { file: ctx.file, line: ctx.line } };
  if (tools) example.tools = tools;
  return example;
}

function readTurn(turn: unknown, at: string, issues: RecordIssues): ChatMessage | null {
  if (!isPlainObject(turn)) {
    issues.error('wrong_type', at, `turn must be an object, got ${typeName(turn)}`);
    return null;
  }
  let from: From | undefined;
  let ok = true;
  if (turn.from === undefined || turn.from === null) {
    issues.error('missing_role', `${at}.from`, 'turn has no "from"');
    ok = false;
  } else if (typeof turn.from !== 'string') {
    issues.error('wrong_type', `${at}.from`, `from must be a string, got ${typeName(turn.from)}`);
    ok = false;
  } else if (!Object.hasOwn(FROM, turn.from)) {
    issues.error('unknown_role', `${at}.from`, `unknown role ${JSON.stringify(turn.from)}`);
    ok = false;
  } else {
    from = FROM[turn.from];
  }
  const value = turn.value;
  if (value === undefined) {
    issues.error('missing_field', `${at}.value`, 'turn has no "value"');
    return null;
  }
  if (typeof value !== 'string') {
    issues.error('wrong_type', `${at}.value`, `value must be a string, got ${typeName(value)}`);
    return null;
  }
  if (!ok || from === undefined) return null;
  if (from !== 'call') return { role: from, content: value };

  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    issues.error('bad_json', `${at}.value`, 'function_call value is not valid JSON');
    return null;
  }
  if (nestedDeeperThan(parsed)) {
    issues.error('bad_json', `${at}.value`, tooDeepMessage('the function_call value'));
    return null;
  }
  const list = Array.isArray(parsed) ? parsed : [parsed];
  const calls = list.map((c, j) => functionCall(c, Array.isArray(parsed) ? `${at}.value[${j}]` : `${at}.value`, issues));
  if (calls.length === 0) {
    issues.error('empty_content', `${at}.value`, 'function_call holds no calls');
    return null;
  }
  if (calls.some((c) => c === null)) return null;
  return { role: 'assistant', content: '', tool_calls: calls.filter((c) => c !== null) };
}
