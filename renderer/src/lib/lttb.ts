/**
 * Largest-Triangle-Three-Buckets downsampling (Steinarsson, 2013): picks `threshold` points of a
 * series that keep its visual shape (peaks and dips survive, unlike striding or averaging), so a
 * 100k-step loss curve draws as ~1000 SVG points. Returns indices into the input, ascending,
 * always including the first and the last point.
 */
export function lttbIndices(xs: ArrayLike<number>, ys: ArrayLike<number>, threshold: number): number[] {
  const n = Math.min(xs.length, ys.length);
  if (threshold >= n || n <= 2) return Array.from({ length: n }, (_, i) => i);
  if (threshold < 3) threshold = 3;
  const out: number[] = [0];
  // the first and last points are kept; the rest is divided into threshold - 2 buckets
  const every = (n - 2) / (threshold - 2);
  let a = 0;
  for (let b = 0; b < threshold - 2; b++) {
    // the average of the next bucket is the triangle's third corner
    const nextStart = Math.floor((b + 1) * every) + 1;
    const nextEnd = Math.min(Math.floor((b + 2) * every) + 1, n);
    let avgX = 0, avgY = 0;
    for (let j = nextStart; j < nextEnd; j++) {
      avgX += xs[j];
      avgY += ys[j];
    }
    const len = nextEnd - nextStart || 1;
    avgX /= len;
    avgY /= len;
    const start = Math.floor(b * every) + 1;
    const end = Math.floor((b + 1) * every) + 1;
    const ax = xs[a], ay = ys[a];
    let best = start, bestArea = -1;
    for (let j = start; j < end; j++) {
      const area = Math.abs((ax - avgX) * (ys[j] - ay) - (ax - xs[j]) * (avgY - ay));
      if (area > bestArea) {
        bestArea = area;
        best = j;
      }
    }
    out.push(best);
    a = best;
  }
  out.push(n - 1);
  return out;
}

/** `{x, y}` points of a series downsampled to at most `threshold` points. */
export function lttb(xs: ArrayLike<number>, ys: ArrayLike<number>, threshold: number): Array<{ x: number; y: number }> {
  return lttbIndices(xs, ys, threshold).map((i) => ({ x: xs[i], y: ys[i] }));
}
