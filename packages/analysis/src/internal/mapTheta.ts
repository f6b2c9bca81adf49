/**
 * One-dimensional MAP of theta: minimise nll(theta) + theta^2 / 2 (the N(0, 1) prior) on [-6, 6]:
 * a grid at step 0.25 finds the basin, golden-section search refines it to 1e-7. Robust to the
 * flat or one-sided likelihoods of few or all-correct responses, where Newton steps wander.
 */
export function mapTheta(nll: (theta: number) => number, lo = -6, hi = 6): number {
  const f = (t: number) => nll(t) + 0.5 * t * t;
  let best = lo;
  let bv = Infinity;
  for (let t = lo; t <= hi + 1e-12; t += 0.25) {
    const v = f(t);
    if (v < bv) {
      bv = v;
      best = t;
    }
  }
  let a = Math.max(lo, best - 0.25);
  let b = Math.min(hi, best + 0.25);
  const r = (Math.sqrt(5) - 1) / 2;
  let c = b - r * (b - a);
  let d = a + r * (b - a);
  let fc = f(c);
  let fd = f(d);
  while (b - a > 1e-7) {
    if (fc < fd) {
      b = d;
      d = c;
      fd = fc;
      c = b - r * (b - a);
      fc = f(c);
    } else {
      a = c;
      c = d;
      fc = fd;
      d = a + r * (b - a);
      fd = f(d);
    }
  }
  return 0.5 * (a + b);
}
