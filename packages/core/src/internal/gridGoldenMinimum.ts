/**
 * The minimiser of a one-dimensional f: the best point of the grid lo, lo + step, ..., hi finds the
 * basin (robust to the flat or one-sided objectives of few or all-correct responses, where Newton
 * steps wander), then golden-section search on [best - step, best + step] (cut to [lo, hi] when
 * `clamp`) narrows it to width `tol`; returns the midpoint of the last bracket. The exported lm-eval
 * aggregation (adapters' nrmLmEvalPy) repeats this step for step, so keep the two in line.
 */
export function gridGoldenMinimum(f: (x: number) => number, lo: number, hi: number, step: number, tol: number, clamp = false): number {
  let best = lo;
  let fb = Infinity;
  const n = Math.round((hi - lo) / step);
  for (let i = 0; i <= n; i++) {
    const x = lo + i * step;
    const v = f(x);
    if (v < fb) {
      fb = v;
      best = x;
    }
  }
  let a = clamp ? Math.max(lo, best - step) : best - step;
  let b = clamp ? Math.min(hi, best + step) : best + step;
  const r = (Math.sqrt(5) - 1) / 2;
  let x1 = b - r * (b - a);
  let x2 = a + r * (b - a);
  let f1 = f(x1);
  let f2 = f(x2);
  while (b - a > tol) {
    if (f1 < f2) {
      b = x2;
      x2 = x1;
      f2 = f1;
      x1 = b - r * (b - a);
      f1 = f(x1);
    } else {
      a = x1;
      x1 = x2;
      f1 = f2;
      x2 = a + r * (b - a);
      f2 = f(x2);
    }
  }
  return (a + b) / 2;
}
