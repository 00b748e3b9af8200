import type { ToolCall } from '../example.ts';
import { nestedDeeperThan, tooDeepMessage } from '../json-depth.ts';
import { isPlainObject, typeName, type RecordIssues } from '../problems.ts';

/** Tool-call arguments as JSON text; objects are serialised, strings must hold JSON. */
export function argumentsText(value: unknown, field: string, issues: RecordIssues): string | null {
  if (value === undefined) {
    issues.error('missing_field', field, 'tool call has no arguments');
    return null;
  }
  if (typeof value === 'string') {
    try {
      JSON.parse(value);
    } catch {
      issues.error('bad_json', field, 'tool call arguments are not valid JSON');
      return null;
    }
    return value;
  }
  if (isPlainObject(value)) return JSON.stringify(value);
  issues.error('wrong_type', field, `tool call arguments must be a JSON string or an object, got ${typeName(value)}`);
  return null;
}

/** A `{name, arguments}` pair (the ShareGPT / OpenAI `function` object) as a ToolCall. */
export function functionCall(value: unknown, field: string, issues: RecordIssues, id?: string): ToolCall | null {
  if (!isPlainObject(value)) {
    issues.error('wrong_type', field, `tool call must be an object, got ${typeName(value)}`);
    return null;
  }
  const name = value.name;
  if (name === undefined) {
    issues.error('missing_field', `${field}.name`, 'tool call has no name');
  } else if (typeof name !== 'string' || name === '') {
    issues.error('wrong_type', `${field}.name`, 'tool call name must be a non-empty string');
  }
  const args = argumentsText(value.arguments, `${field}.arguments`, issues);
  if (typeof name !== 'string' || args === null) return null;
  const call: ToolCall = { type: 'function', function: { name, arguments: args } };
  if (id !== undefined) call.id = id;
  return call;
}

/** A `tools` list: an array, or (ShareGPT) a JSON string holding one. */
export function toolList(value: unknown, field: string, issues: RecordIssues): unknown[] | undefined {
  if (value === undefined || value === null) return undefined;
  let list = value;
  if (typeof value === 'string') {
    if (value.trim() === '') return undefined;
    try {
      list = JSON.parse(value);
    } catch {
      issues.error('bad_json', field, 'tools is a string but not valid JSON');
      return undefined;
    }
    if (nestedDeeperThan(list)) {
      issues.error('bad_json', field, tooDeepMessage('the tools string'));
      return undefined;
    }
  }
  if (!Array.isArray(list)) {
    issues.error('wrong_type', field, `tools must be an array, got ${typeName(list)}`);
    return undefined;
  }
  return list;
}
