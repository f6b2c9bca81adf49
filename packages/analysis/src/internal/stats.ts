/** Mean and sample SD of the numbers in xs, skipping NaN (SD NaN for fewer than 2). */
export function meanSd(xs: ArrayLike<number>): { mean: number; sd: number } {
  let n = 0;
  let m = 0;
  let s = 0;
  for (let i = 0; i < xs.length; i++) {
    const v = xs[i]!;
    if (Number.isNaN(v)) continue;
    n++;
    const d = v - m;
    m += d / n;
    s += d * (v - m);
  }
  return { mean: n > 0 ? m : NaN, sd: n > 1 ? Math.sqrt(s / (n - 1)) : NaN };
}

/** Probability floor of log-losses: log(1e-15) caps one cell's loss at about 34.5. */
export const P_FLOOR = 1e-15;
