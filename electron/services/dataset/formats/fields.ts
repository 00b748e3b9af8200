import { typeName, type RecordIssues } from '../problems.ts';

/**
 * A string field: `required` ones report `missing_field` when absent; a
 * present non-string reports `wrong_type`. Returns undefined on any problem
 * or absence (null counts as absent).
 */
export function stringField(
  record: Record<string, unknown>,
  key: string,
  issues: RecordIssues,
  required: boolean,
): string | undefined {
  const value = record[key];
  if (value === undefined || value === null) {
    if (required) issues.error('missing_field', key, `record has no "${key}"`);
    return undefined;
  }
  if (typeof value !== 'string') {
    issues.error('wrong_type', key, `${key} must be a string, got ${typeName(value)}`);
    return undefined;
  }
  return value;
}
