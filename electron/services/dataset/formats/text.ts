/** `{"text": "..."}` records; any other keys are ignored. */
import type { TextExample } from '../example.ts';
import { isPlainObject, typeName, type RecordIssues } from '../problems.ts';
import { stringField } from './fields.ts';
import type { FormatContext } from './types.ts';

export function normaliseText(value: unknown, issues: RecordIssues, ctx: FormatContext): TextExample | null {
  if (!isPlainObject(value)) {
    issues.error('wrong_type', '', `record must be a JSON object, got ${typeName(value)}`);
    return null;
  }
  const text = stringField(value, 'text', issues, true);
  if (text === undefined) return null;
  if (text.trim() === '') {
    issues.error('empty_content', 'text', 'text is empty');
    return null;
  }
  return { kind: 'text', text, source: { file: ctx.file, line: ctx.line } };
}
