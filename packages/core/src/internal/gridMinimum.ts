/**
 * The minimiser of a one-dimensional f: the best point of the grid lo, lo + step, ..., hi finds the
 * basin (robust to the flat or one-sided objectives of few or all-correct responses, where Newton
 * steps wander), then Brent's method (parabolic steps, golden-section steps where a parabola is not
 * trusted; Brent 1973, ch. 5) on [best - step, best + step], started
 * at the grid's best point, until the bracket is about `tol` wide; returns the best point found.
 * Brent takes 2-3x fewer evaluations than golden section alone (which this replaced: the scorers
 * nest it, so each tiny-run score evaluates f about 2.4x less often). The exported lm-eval
 * aggregation (adapters' nrmLmEvalPy) repeats this step for step, so keep the two in line.
 */
export function gridMinimum(f: (x: number) => number, lo: number, hi: number, step: number, tol: number): number {
  return gridSearch(f, lo, hi, step, tol).x;
}

/** `gridMinimum` with f's value at the point returned (the search's own evaluation there: callers need not evaluate it again). */
export function gridSearch(f: (x: number) => number, lo: number, hi: number, step: number, tol: number): { x: number; fx: number } {
  const g = gridBest(f, lo, hi, step);
  return brent(f, g.x, g.fx, step, tol);
}

/**
 * `gridSearch` on the grid centre - half, ..., centre + half, or null when the grid's best point is
 * one of its ends (the minimum may lie beyond it: the caller searches its whole range instead). A
 * search started near a known minimum (the scorers' refinements: `minimiseThetaSharpness`).
 */
export function localGridSearch(f: (x: number) => number, centre: number, half: number, step: number, tol: number): { x: number; fx: number } | null {
  const g = gridBest(f, centre - half, centre + half, step);
  return g.i === 0 || g.i === g.n ? null : brent(f, g.x, g.fx, step, tol);
}

/** The best point of the grid lo, lo + step, ..., hi (the first on ties), its value and index of n. */
function gridBest(f: (x: number) => number, lo: number, hi: number, step: number): { x: number; fx: number; i: number; n: number } {
  let x = lo;
  let fx = Infinity;
  let best = 0;
  const n = Math.round((hi - lo) / step);
  for (let i = 0; i <= n; i++) {
    const t = lo + i * step;
    const v = f(t);
    if (v < fx) {
      fx = v;
      x = t;
      best = i;
    }
  }
  return { x, fx, i: best, n };
}

/** Brent's method on [x - step, x + step] started at x (value fx), to a bracket about `tol` wide. */
function brent(f: (x: number) => number, x: number, fx: number, step: number, tol: number): { x: number; fx: number } {
  let a = x - step;
  let b = x + step;
  const golden = (3 - Math.sqrt(5)) / 2;
  const tol1 = tol / 3;
  const tol2 = 2 * tol1;
  let w = x;
  let v = x;
  let fw = fx;
  let fv = fx;
  let d = 0;
  let e = 0;
  for (;;) {
    const xm = 0.5 * (a + b);
    if (Math.abs(x - xm) <= tol2 - 0.5 * (b - a)) break;
    let p = 0;
    let q = 0;
    let r = 0;
    if (Math.abs(e) > tol1) {
      // The parabola through (x, fx), (w, fw), (v, fv).
      r = (x - w) * (fx - fv);
      q = (x - v) * (fx - fw);
      p = (x - v) * q - (x - w) * r;
      q = 2 * (q - r);
      if (q > 0) p = -p;
      else q = -q;
      r = e;
      e = d;
    }
    // The parabola's step only when it is smaller than half the step before last and lands inside
    // the bracket (written as a positive test, so a NaN from infinite values takes a golden step).
    if (Math.abs(p) < Math.abs(0.5 * q * r) && p > q * (a - x) && p < q * (b - x)) {
      d = p / q;
      const u = x + d;
      if (u - a < tol2 || b - u < tol2) d = xm - x >= 0 ? tol1 : -tol1;
    } else {
      e = x >= xm ? a - x : b - x;
      d = golden * e;
    }
    const u = Math.abs(d) >= tol1 ? x + d : x + (d >= 0 ? tol1 : -tol1);
    const fu = f(u);
    if (fu <= fx) {
      if (u >= x) a = x;
      else b = x;
      v = w;
      fv = fw;
      w = x;
      fw = fx;
      x = u;
      fx = fu;
    } else {
      if (u < x) a = u;
      else b = u;
      if (fu <= fw || w === x) {
        v = w;
        fv = fw;
        w = u;
        fw = fu;
      } else if (fu <= fv || v === x || v === w) {
        v = u;
        fv = fu;
      }
    }
  }
  return { x, fx };
}
