import { randomSource } from '@llm-nrm/core';

export interface BootstrapOptions {
  /** Resamples (default 1000). */
  samples?: number;
  /** Seed of the resampling (default 1). */
  seed?: number;
}

/**
 * Bootstrap standard deviation of a paired statistic over units (LLMs): resample the n pairs with
 * replacement `samples` times (seeded) and take the SD of `stat` over the resamples, skipping NaN
 * results (a resample where a variable is constant).
 */
export function bootstrapSd(
  x: ArrayLike<number>,
  y: ArrayLike<number>,
  stat: (x: Float64Array, y: Float64Array) => number,
  options: BootstrapOptions = {},
): number {
  const n = x.length;
  if (n !== y.length) throw new RangeError(`length mismatch: ${n} vs ${y.length}`);
  if (n < 2) return NaN;
  const B = options.samples ?? 1000;
  const rng = randomSource(options.seed ?? 1);
  const bx = new Float64Array(n);
  const by = new Float64Array(n);
  let m = 0;
  let s = 0;
  let count = 0;
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < n; t++) {
      const u = rng.int(n);
      bx[t] = x[u]!;
      by[t] = y[u]!;
    }
    const v = stat(bx, by);
    if (Number.isNaN(v)) continue;
    // Welford's update: one pass, no cancellation.
    count++;
    const d = v - m;
    m += d / count;
    s += d * (v - m);
  }
  return count > 1 ? Math.sqrt(s / (count - 1)) : NaN;
}
