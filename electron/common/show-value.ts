/**
 * A value from a request, shown in an error message: a short JSON excerpt. Never throws: a
 * value nested thousands deep makes JSON.stringify run out of stack, and a refusal that throws
 * a RangeError instead reaches the client as an `internal` error. No platform imports.
 */
export function showValue(value: unknown, maxChars = 80): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return Array.isArray(value) ? 'an array nested too deep to show' : `an ${typeof value} that cannot be shown as JSON`;
  }
  return text === undefined ? 'nothing' : text.slice(0, maxChars);
}
