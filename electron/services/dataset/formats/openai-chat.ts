/**
 * OpenAI chat fine-tuning records:
 * `{"messages": [{"role", "content", "tool_calls"?, "tool_call_id"?, "name"?, "weight"?}], "tools"?: [...]}`.
 * `developer` is read as `system` (OpenAI's newer name for it). Content may
 * be a string or a list of `{type: "text", text}` parts, which are joined.
 */
import type { ChatExample, ChatMessage, Role, ToolCall } from '../example.ts';
import { isPlainObject, typeName, type RecordIssues } from '../problems.ts';
import { checkConversation, type MessagePaths } from '../validate-chat.ts';
import { functionCall, toolList } from './tool-calls.ts';
import type { FormatContext } from './types.ts';

const ROLES: Record<string, Role> = {
  system: 'system',
  developer: 'system',
  user: 'user',
  assistant: 'assistant',
  tool: 'tool',
};

export function normaliseOpenAiChat(value: unknown, issues: RecordIssues, ctx: FormatContext): ChatExample | null {
  if (!isPlainObject(value)) {
    issues.error('wrong_type', '', `record must be a JSON object, got ${typeName(value)}`);
    return null;
  }
  const raw = value.messages;
  if (raw === undefined) {
    issues.error('missing_field', 'messages', 'record has no "messages" list');
    return null;
  }
  if (!Array.isArray(raw)) {
    issues.error('wrong_type', 'messages', `messages must be an array, got ${typeName(raw)}`);
    return null;
  }
  if (raw.length === 0) {
    issues.error('empty_content', 'messages', 'messages is empty');
    return null;
  }
  const messages: ChatMessage[] = [];
  const paths: MessagePaths[] = [];
  let complete = true;
  raw.forEach((item, i) => {
    const message = readMessage(item, `messages[${i}]`, issues);
    if (message) {
      messages.push(message);
      paths.push({ message: `messages[${i}]`, role: `messages[${i}].role`, content: `messages[${i}].content` });
    } else {
      complete = false;
    }
  });
  const tools = toolList(value.tools, 'tools', issues);
  // Order checks on a partial list would report noise; the record is invalid already.
  if (!complete) return null;
  checkConversation(messages, paths, issues, { listField: 'messages', longMessageChars: ctx.longMessageChars });
  const example: ChatExample = { kind: 'chat', messages, source: { file: ctx.file, line: ctx.line } };
  if (tools) example.tools = tools;
  return example;
}

function readMessage(item: unknown, at: string, issues: RecordIssues): ChatMessage | null {
  if (!isPlainObject(item)) {
    issues.error('wrong_type', at, `message must be an object, got ${typeName(item)}`);
    return null;
  }
  // Any error reported while reading this message makes it unusable.
  const errorsBefore = issues.list.length;

  let role: Role | undefined;
  if (item.role === undefined || item.role === null) issues.error('missing_role', `${at}.role`, 'message has no role');
  else if (typeof item.role !== 'string') issues.error('wrong_type', `${at}.role`, `role must be a string, got ${typeName(item.role)}`);
  else if (!Object.hasOwn(ROLES, item.role)) issues.error('unknown_role', `${at}.role`, `unknown role ${JSON.stringify(item.role)}`);
  else role = ROLES[item.role];

  let toolCalls: ToolCall[] | undefined;
  if (item.tool_calls !== undefined && item.tool_calls !== null) {
    if (!Array.isArray(item.tool_calls)) {
      issues.error('wrong_type', `${at}.tool_calls`, `tool_calls must be an array, got ${typeName(item.tool_calls)}`);
    } else if (role !== undefined && role !== 'assistant') {
      issues.error('wrong_type', `${at}.tool_calls`, 'only assistant messages may have tool_calls');
    } else if (item.tool_calls.length > 0) {
      toolCalls = [];
      item.tool_calls.forEach((call: unknown, j: number) => {
        const parsed = readToolCall(call, `${at}.tool_calls[${j}]`, issues);
        if (parsed) toolCalls!.push(parsed);
      });
    }
  }

  let content = '';
  const c = item.content;
  if (c === undefined && !toolCalls) issues.error('missing_field', `${at}.content`, 'message has no content');
  else if (typeof c === 'string') content = c;
  else if (Array.isArray(c)) {
    content = textParts(c, `${at}.content`, issues) ?? '';
  } else if (c !== null && c !== undefined) {
    issues.error('wrong_type', `${at}.content`, `content must be a string or a list of text parts, got ${typeName(c)}`);
  }

  const message: ChatMessage = { role: role ?? 'user', content };
  if (toolCalls) message.tool_calls = toolCalls;
  for (const key of ['tool_call_id', 'name'] as const) {
    const v = item[key];
    if (v === undefined || v === null) continue;
    if (typeof v === 'string') message[key] = v;
    else issues.error('wrong_type', `${at}.${key}`, `${key} must be a string, got ${typeName(v)}`);
  }
  if (item.weight !== undefined) {
    if (item.weight === 0 || item.weight === 1) message.weight = item.weight;
    else issues.error('wrong_type', `${at}.weight`, `weight must be 0 or 1, got ${JSON.stringify(item.weight)}`);
  }
  return issues.list.length === errorsBefore ? message : null;
}

function readToolCall(call: unknown, at: string, issues: RecordIssues): ToolCall | null {
  if (!isPlainObject(call)) {
    issues.error('wrong_type', at, `tool call must be an object, got ${typeName(call)}`);
    return null;
  }
  if (call.type !== undefined && call.type !== 'function') {
    issues.error('wrong_type', `${at}.type`, `tool call type must be "function", got ${JSON.stringify(call.type)}`);
    return null;
  }
  if (call.id !== undefined && typeof call.id !== 'string') {
    issues.error('wrong_type', `${at}.id`, `tool call id must be a string, got ${typeName(call.id)}`);
    return null;
  }
  if (call.function === undefined) {
    issues.error('missing_field', `${at}.function`, 'tool call has no function');
    return null;
  }
  return functionCall(call.function, `${at}.function`, issues, call.id);
}

function textParts(parts: unknown[], at: string, issues: RecordIssues): string | null {
  let text = '';
  for (let j = 0; j < parts.length; j++) {
    const part = parts[j];
    if (isPlainObject(part) && part.type === 'text' && typeof part.text === 'string') {
      text += part.text;
    } else {
      const kind = isPlainObject(part) ? JSON.stringify(part.type) : typeName(part);
      issues.error('wrong_type', `${at}[${j}]`, `only text content parts are supported, got ${kind}`);
      return null;
    }
  }
  return text;
}
