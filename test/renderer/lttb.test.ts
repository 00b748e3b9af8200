// LTTB: the loss chart draws a few hundred points of a long run and still shows its spikes.
import { describe, expect, it } from 'vitest';
import { lttb, lttbIndices } from '../../renderer/src/lib/lttb.ts';

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('lttb', () => {
  it('keeps a series shorter than the threshold whole', () => {
    expect(lttbIndices(range(5), [3, 1, 4, 1, 5], 10)).toEqual([0, 1, 2, 3, 4]);
  });

  it('returns exactly the threshold, ascending, first and last included', () => {
    const n = 100_000;
    const xs = range(n);
    const ys = xs.map((x) => Math.sin(x / 500) + Math.cos(x / 37));
    const idx = lttbIndices(xs, ys, 1000);
    expect(idx).toHaveLength(1000);
    expect(idx[0]).toBe(0);
    expect(idx[idx.length - 1]).toBe(n - 1);
    for (let i = 1; i < idx.length; i++) expect(idx[i]).toBeGreaterThan(idx[i - 1]);
  });

  it('keeps a one-step spike that striding would skip', () => {
    const n = 10_000;
    const xs = range(n);
    const ys = xs.map(() => 1);
    ys[4321] = 50;
    const points = lttb(xs, ys, 200);
    expect(points.some((p) => p.x === 4321 && p.y === 50)).toBe(true);
    // every 50th point (a stride to the same count) misses it
    expect(xs.filter((x) => x % 50 === 0).includes(4321)).toBe(false);
  });

  it('keeps both extremes of a noisy decline', () => {
    const xs = range(5000);
    const ys = xs.map((x) => 5 - x / 1000 + (x % 7 === 0 ? 0.5 : 0));
    const points = lttb(xs, ys, 300);
    const max = Math.max(...ys);
    const min = Math.min(...ys);
    expect(Math.max(...points.map((p) => p.y))).toBeCloseTo(max, 6);
    expect(Math.min(...points.map((p) => p.y))).toBeLessThan(min + 0.01);
  });
});
