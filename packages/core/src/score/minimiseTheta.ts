import { gridGoldenMinimum } from '../internal/gridGoldenMinimum.js';

/**
 * The 1-D MAP and its standard error, by a fixed recipe the exported lm-eval aggregation repeats
 * step for step (so both give the same number): the best point of a grid -8..8 in steps of 0.25,
 * golden-section search on the bracket around it to 1e-9, and SE = 1 / sqrt(f'') from a central
 * second difference with h = 1e-3.
 */
export function minimiseTheta(f: (theta: number) => number): { theta: number; se: number } {
  const theta = gridGoldenMinimum(f, -8, 8, 0.25, 1e-9);
  const h = 1e-3;
  const curv = (f(theta + h) - 2 * f(theta) + f(theta - h)) / (h * h);
  return { theta, se: curv > 0 ? 1 / Math.sqrt(curv) : Infinity };
}

/**
 * Minimise f(theta, u) over theta and a log-sharpness u: golden-section search over u (grid
 * -2..2 in steps of 0.25 first, then to 1e-6), each u's theta by `minimiseTheta`. The SE of theta is
 * the conditional one at the optimum (sharpness at its estimate).
 */
export function minimiseThetaSharpness(f: (theta: number, u: number) => number): { theta: number; se: number; u: number } {
  const inner = (u: number) => minimiseTheta((t) => f(t, u));
  const val = (u: number) => {
    const r = inner(u);
    return f(r.theta, u);
  };
  const u = gridGoldenMinimum(val, -2, 2, 0.25, 1e-6);
  return { ...inner(u), u };
}
