/**
 * Value-level damage to a JSON document: one value (picked by its place in a depth-first walk)
 * is replaced by one of the wrong type (numbers, objects, null where strings belong), nesting
 * thousands deep, a string of megabytes, numbers JSON.parse turns into Infinity, `__proto__`
 * keys, or is removed. For JSON lines, one line is the document.
 */
import fc from 'fast-check';

export type Replacement =
  | { kind: 'raw'; text: string }
  | { kind: 'deep'; depth: number; shape: 'array' | 'object' }
  | { kind: 'huge-string'; chars: number }
  | { kind: 'wrap'; shape: 'array' | 'object' }
  | { kind: 'remove' };

export interface ValueMutation {
  /** Which line, for JSON lines (modulo the number of lines). */
  line: number;
  /** Which value in a depth-first walk of the document (modulo their number). */
  node: number;
  replacement: Replacement;
}

const RAW = [
  '0', '-1', '1.5', '1e400', '-0', '123456789012345678901234567890', 'true', 'false', 'null',
  '""', '" "', '"\\u0000"', '"\\ud800"', '{}', '[]', '[null]', '[[]]', '{"":null}',
  '{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{}}}', '"__proto__"', '{"toString":1,"valueOf":2}',
];

export const replacement: fc.Arbitrary<Replacement> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('raw' as const), text: fc.constantFrom(...RAW) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('deep' as const), depth: fc.integer({ min: 2, max: 30_000 }), shape: fc.constantFrom('array' as const, 'object' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('huge-string' as const), chars: fc.integer({ min: 1 << 10, max: 1 << 20 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('wrap' as const), shape: fc.constantFrom('array' as const, 'object' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const) }) },
);

export const valueMutation: fc.Arbitrary<ValueMutation> = fc.record({ line: fc.nat(), node: fc.nat(), replacement });

// A string no fixture holds, replaced by the raw text after JSON.stringify.
const MARK = '@@fuzz-value-7f3a@@';

function rawText(r: Replacement, original: unknown): string | undefined {
  switch (r.kind) {
    case 'raw': return r.text;
    case 'deep': return r.shape === 'array' ? '['.repeat(r.depth) + ']'.repeat(r.depth) : '{"a":'.repeat(r.depth) + '1' + '}'.repeat(r.depth);
    case 'huge-string': return JSON.stringify('x'.repeat(r.chars));
    case 'wrap': return r.shape === 'array' ? `[${JSON.stringify(original)}]` : `{"value":${JSON.stringify(original)}}`;
    case 'remove': return undefined;
  }
}

/**
 * One JSON document with one value replaced. Text that is not JSON comes back unchanged, and
 * so does a document nested too deep to walk and write again (an earlier mutation made it so).
 */
export function mutateJsonDocument(text: string, m: Omit<ValueMutation, 'line'>): string {
  try {
    return replaceValue(JSON.parse(text), text, m);
  } catch {
    return text;
  }
}

function replaceValue(root: unknown, text: string, m: Omit<ValueMutation, 'line'>): string {
  const holder: Record<string, unknown> = { root };
  const places: Array<{ parent: Record<string, unknown> | unknown[]; key: string | number }> = [{ parent: holder, key: 'root' }];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach((item, i) => (places.push({ parent: v, key: i }), walk(item)));
    else if (v && typeof v === 'object') for (const [k, item] of Object.entries(v)) places.push({ parent: v as Record<string, unknown>, key: k }), walk(item);
  };
  walk(root);
  const place = places[m.node % places.length];
  const original = (place.parent as Record<string | number, unknown>)[place.key];
  const raw = rawText(m.replacement, original);
  if (raw === undefined) {
    if (place.parent === holder) return text;
    if (Array.isArray(place.parent)) place.parent.splice(place.key as number, 1);
    else delete place.parent[place.key as string];
    return JSON.stringify(holder.root);
  }
  (place.parent as Record<string | number, unknown>)[place.key] = MARK;
  return JSON.stringify(holder.root).replace(JSON.stringify(MARK), () => raw);
}

/** JSON lines: the mutation applies to one non-blank line. */
export function mutateJsonLines(text: string, m: ValueMutation): string {
  const lines = text.split('\n');
  const filled = lines.map((l, i) => (l.trim() === '' ? -1 : i)).filter((i) => i >= 0);
  if (filled.length === 0) return text;
  const i = filled[m.line % filled.length];
  const cr = lines[i].endsWith('\r');
  lines[i] = mutateJsonDocument(cr ? lines[i].slice(0, -1) : lines[i], m) + (cr ? '\r' : '');
  return lines.join('\n');
}

export function showValueMutation(m: ValueMutation): string {
  const r = m.replacement;
  const what = r.kind === 'raw' ? r.text : r.kind === 'deep' ? `${r.shape}s nested ${r.depth} deep` : r.kind === 'huge-string' ? `a string of ${r.chars} characters` : r.kind === 'wrap' ? `itself in an ${r.shape}` : 'nothing (removed)';
  return `value ${m.node} of line ${m.line} replaced by ${what}`;
}
