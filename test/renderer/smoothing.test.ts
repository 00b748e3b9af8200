// The smoothed loss: an exponential average without the pull towards zero at the start.
import { describe, expect, it } from 'vitest';
import { smoothEma } from '../../renderer/src/lib/smoothing.ts';

describe('smoothEma', () => {
  it('is the raw series at weight 0', () => {
    expect(smoothEma([3, 1, 2], 0)).toEqual([3, 1, 2]);
  });

  it('keeps a constant series constant from its first point (debiased)', () => {
    for (const v of smoothEma([2.5, 2.5, 2.5, 2.5], 0.9)) expect(v).toBeCloseTo(2.5, 12);
  });

  it('lags a step change more the heavier the weight', () => {
    const series = [...Array(10).fill(4), ...Array(10).fill(1)];
    const light = smoothEma(series, 0.3);
    const heavy = smoothEma(series, 0.95);
    expect(light[12]).toBeLessThan(heavy[12]);
    expect(light[19]).toBeCloseTo(1, 2);
  });

  it('carries a NaN step over instead of poisoning the rest', () => {
    const out = smoothEma([2, Number.NaN, 2], 0.5);
    expect(out.every(Number.isFinite)).toBe(true);
    expect(out[2]).toBeCloseTo(2, 12);
  });
});
