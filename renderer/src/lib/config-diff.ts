/** The options two runs set differently (the Runs view's comparison), in the config's own key order. */
export interface ConfigChange {
  key: string;
  a: unknown;
  b: unknown;
}

export function configDiff(a: Record<string, unknown>, b: Record<string, unknown>, ignore: readonly string[] = ['out']): ConfigChange[] {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => !ignore.includes(k));
  return keys.filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k])).map((k) => ({ key: k, a: a[k], b: b[k] }));
}

export function showValue(v: unknown): string {
  if (v === undefined) return '–';
  if (Array.isArray(v)) return v.join(', ') || '(none)';
  return typeof v === 'string' ? v || '(empty)' : JSON.stringify(v);
}
