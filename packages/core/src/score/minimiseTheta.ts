import { gridMinimum, gridSearch, localGridSearch } from '../internal/gridMinimum.js';

/** The theta search of both scorers: the grid -8..8 in steps of 0.25, then Brent to 1e-9 (`gridSearch`). */
const thetaSearch = (f: (theta: number) => number) => gridSearch(f, -8, 8, 0.25, 1e-9);

/**
 * The 1-D MAP and its standard error, by a fixed recipe the exported lm-eval aggregation repeats
 * step for step (so both give the same number): the best point of a grid -8..8 in steps of 0.25,
 * Brent's method on the bracket around it to 1e-9 (`gridMinimum`), and SE = 1 / sqrt(f'') from a central
 * second difference with h = 1e-3.
 */
export function minimiseTheta(f: (theta: number) => number): { theta: number; se: number } {
  const theta = thetaSearch(f).x;
  const h = 1e-3;
  const curv = (f(theta + h) - 2 * f(theta) + f(theta - h)) / (h * h);
  return { theta, se: curv > 0 ? 1 / Math.sqrt(curv) : Infinity };
}

/** Half-widths of the local grids of the scorers' refinements (`minimiseThetaSharpness`): theta's, u's. */
const THETA_NEAR = 1;
const U_NEAR = 0.75;

/**
 * Minimise f(theta, u) over theta and a log-sharpness u: `gridMinimum` over u (grid -2..2 in steps
 * of 0.25 first, then Brent to 1e-6), each u's theta by `minimiseTheta`'s search. Two searches start
 * near what is known (`localGridSearch`, the whole range again where a local grid's best point is an
 * end): in the u search's Brent steps (u within a grid step of the best grid point), each theta
 * search is the grid theta* +- 1 around the theta of the best u so far; and given `start` (the
 * tiny-run sweeps' previous optimum, after small moves of bias and fallback), the u grid is
 * start.u +- 0.75 and each of its theta searches start.theta +- 1. About 2.7x fewer evaluations of f
 * a tiny run, the same optimum to the searches' tolerances (packages/core/BENCHMARKS.md). The SE of
 * theta is the profile one at the optimum (sharpness estimated with it), below.
 */
export function minimiseThetaSharpness(
  f: (theta: number, u: number) => number,
  start?: { theta: number; u: number },
): { theta: number; se: number; u: number } {
  // Each u's theta without its SE (only the profile SE below is reported) and with the search's own
  // value at its point (not evaluated again): near `near` when given, the whole range otherwise.
  const inner = (u: number, near: number) => {
    const g = (t: number) => f(t, u);
    return (Number.isFinite(near) ? localGridSearch(g, near, THETA_NEAR, 0.25, 1e-9) : null) ?? thetaSearch(g);
  };
  // The search returns the u of its lowest value, whose theta search it has run: kept, not run again.
  let best = { u: NaN, v: Infinity, theta: NaN };
  // The u grid's points come first (gridSearch), then Brent's steps near its best point.
  const warm = start !== undefined && Number.isFinite(start.theta) && Number.isFinite(start.u);
  const gridPoints = warm ? Math.round((2 * U_NEAR) / 0.25) + 1 : Math.round(4 / 0.25) + 1;
  let calls = 0;
  const val = (u: number) => {
    const near = calls++ < gridPoints ? (warm ? start.theta : NaN) : best.theta;
    const r = inner(u, near);
    // fx is f at the search's point whenever it is finite (a search that never saw a finite value leaves it at +Infinity).
    const v = Number.isFinite(r.fx) ? r.fx : f(r.x, u);
    if (v <= best.v) best = { u, v, theta: r.x };
    return v;
  };
  const local = warm ? localGridSearch(val, start.u, U_NEAR, 0.25, 1e-6) : null;
  // The optimum moved past the local u grid: the whole search, as without a start.
  if (warm && local === null) return minimiseThetaSharpness(f);
  const u = local !== null ? local.x : gridMinimum(val, -2, 2, 0.25, 1e-6);
  const theta = u === best.u ? best.theta : inner(u, best.theta).x;
  // The SE of theta with sharpness estimated too: the profile curvature H_tt - H_tu^2 / H_uu from
  // central differences (h = 1e-3) at the optimum. The conditional 1 / sqrt(H_tt) took sharpness as
  // known: adaptive runs stopped at SE 0.3 after 13.4 items and covered 77.8% of the NAEP LLMs'
  // full-bank thetas; with the profile SE 14.9 items and 94.4% (bench/adaptive.mjs naep).
  const h = 1e-3;
  const f0 = f(theta, u);
  const htt = (f(theta + h, u) - 2 * f0 + f(theta - h, u)) / (h * h);
  const huu = (f(theta, u + h) - 2 * f0 + f(theta, u - h)) / (h * h);
  const htu = (f(theta + h, u + h) - f(theta + h, u - h) - f(theta - h, u + h) + f(theta - h, u - h)) / (4 * h * h);
  const prof = huu > 0 ? htt - (htu * htu) / huu : htt;
  return { theta, se: prof > 0 ? 1 / Math.sqrt(prof) : Infinity, u };
}
