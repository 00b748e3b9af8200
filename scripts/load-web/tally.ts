/**
 * What the load did and what came back: requests by kind, answers the server owes (a 413, a
 * closed socket for a broken frame, a dropped slow reader), failures it must never give (a
 * timeout, a wrong answer), and latencies.
 */
export class Tally {
  requests = new Map<string, number>();
  expected = new Map<string, number>();
  failures = new Map<string, number>();
  latencies = new Map<string, number[]>();

  sent(kind: string): void {
    bump(this.requests, kind);
  }

  /** An answer the server owes, refusals included. */
  asExpected(kind: string): void {
    bump(this.expected, kind);
  }

  failed(kind: string): void {
    bump(this.failures, kind);
  }

  took(kind: string, ms: number): void {
    const list = this.latencies.get(kind) ?? [];
    list.push(ms);
    this.latencies.set(kind, list);
  }

  total(map: Map<string, number>): number {
    return [...map.values()].reduce((a, b) => a + b, 0);
  }
}

function bump(map: Map<string, number>, kind: string): void {
  map.set(kind, (map.get(kind) ?? 0) + 1);
}

/** The value at fraction `q` (0-1) of the sorted list: nearest rank. */
export function percentile(values: number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}
