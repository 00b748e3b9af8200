/**
 * The smoothed loss curve: a debiased exponential moving average (TensorBoard's smoothing), so
 * the first points are not pulled towards zero. `weight` 0 returns the raw series; 0.99 is
 * very smooth. Non-finite losses (a NaN step) are carried over, not averaged in.
 */
export function smoothEma(values: ArrayLike<number>, weight: number): number[] {
  const w = Math.min(Math.max(weight, 0), 0.999);
  const out = new Array<number>(values.length);
  let last = 0;
  let steps = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (!Number.isFinite(v)) {
      out[i] = steps ? last / (1 - w ** steps) : v;
      continue;
    }
    last = last * w + (1 - w) * v;
    steps++;
    out[i] = w === 0 ? v : last / (1 - w ** steps);
  }
  return out;
}
