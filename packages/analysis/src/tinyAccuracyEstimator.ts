import { LlmNrmError } from '@llm-nrm/core';
import { cholesky, cholSolve } from '@llm-nrm/core/engine';
import { accuracyAt, type AccuracyCurve } from './accuracyCurve.js';

/**
 * Full-bank accuracy predicted from a tiny run, calibrated on what a tiny run shows:
 *   acc = b0 + b1 F(theta_t) + b2 a_t + b3 u_t,
 * theta_t and u_t (log sharpness) the run's tiny-run scores, a_t its argmax accuracy on the tiny
 * items, F the calibrated LLMs' full-bank accuracy against their full-bank theta (`accuracyCurve`).
 * The coefficients are the least-squares fit over the calibrated LLMs *scored as tiny runs* (their
 * answers to the tiny items only, scored as `llm-nrm score` scores a run), so the estimator is
 * calibrated on tiny-run estimates with their noise and shrinkage, not on full-bank thetas: on the
 * simulated 189 x 2,000 fleet at 41 items this took the accuracy MAE from 2.4 to 1.7 points
 * (packages/analysis/BENCHMARKS.md). a_t carries what theta does not (bias and fallback move
 * argmax accuracy at one theta), u_t the sharpness, which sets how often the argmax is the key.
 */
export interface TinyAccuracyEstimator {
  /** [b0, b1 (curve), b2 (tiny accuracy), b3 (log sharpness)]; a feature that did not vary has 0. */
  coef: [number, number, number, number];
  /** Leave-one-LLM-out RMS error over the calibrated LLMs (PRESS): the 90% interval's scale. */
  residualSd: number;
  /** Calibrated LLMs it rests on. */
  llms: number;
}

/** One calibrated LLM scored as a tiny run: the features and its observed full-bank accuracy. */
export interface TinyRunRow {
  theta: number;
  logSharpness: number;
  tinyAccuracy: number;
  fullAccuracy: number;
}

const features = (curve: Pick<AccuracyCurve, 'grid' | 'accuracy'>, r: Omit<TinyRunRow, 'fullAccuracy'>): number[] => [
  1,
  accuracyAt(curve, r.theta),
  r.tinyAccuracy,
  r.logSharpness,
];

/**
 * The estimator, sized out of sample: least squares with an intercept on [F, a, u] (features with
 * numerically no spread dropped, at most n - 1 parameters), and as the residual SD of the 90%
 * interval its leave-one-LLM-out RMS error (PRESS: e_i / (1 - h_ii), exact for least squares), not
 * the in-sample residual: on NAEP (14-15 calibrating LLMs) the in-sample SD covered 72-89% of new
 * LLMs, the leave-one-out one 89-100% (packages/analysis/BENCHMARKS.md). `choose: true` instead
 * takes whichever of the bare curve (b = [0, 1, 0, 0]) and the fits on [F], [F, a], [F, a, u] has
 * the smallest leave-one-out error; on NAEP that was worse at 10-41 items and better at 100, so it
 * is not the default.
 */
export function fitTinyAccuracyEstimator(
  curve: Pick<AccuracyCurve, 'grid' | 'accuracy'>,
  rows: readonly TinyRunRow[],
  options: { choose?: boolean } = {},
): TinyAccuracyEstimator {
  const ok = rows.filter((r) => [r.theta, r.logSharpness, r.tinyAccuracy, r.fullAccuracy].every(Number.isFinite));
  const n = ok.length;
  if (n < 2) throw new LlmNrmError('INVALID_OPTION', `a tiny-run accuracy estimator needs at least 2 calibrated LLMs with accuracies, got ${n}`);
  const X = ok.map((r) => features(curve, r));
  const y = ok.map((r) => r.fullAccuracy);
  const mean = [0, 1, 2, 3].map((d) => X.reduce((s, row) => s + row[d]!, 0) / n);
  const sd = [0, 1, 2, 3].map((d) => Math.sqrt(X.reduce((s, row) => s + (row[d]! - mean[d]!) ** 2, 0) / n));
  // The bare curve (a candidate under `choose`): F(theta) itself; its leave-one-out error is its error (nothing is fitted).
  let best: { coef: [number, number, number, number]; press: number } = {
    coef: [0, 1, 0, 0],
    press: X.reduce((s, row, r) => s + (y[r]! - row[1]!) ** 2, 0),
  };
  const choose = options.choose === true;
  for (const set of choose ? [[1], [1, 2], [1, 2, 3]] : [[1, 2, 3]]) {
    const use = [0, ...set.filter((d) => sd[d]! > 1e-9)].slice(0, Math.max(1, n - 1));
    const fitted = leastSquares(X, y, use, mean, sd);
    if (!choose || fitted.press < best.press) best = fitted;
  }
  return { coef: best.coef, residualSd: Math.sqrt(best.press / n), llms: n };
}

/** Least squares on the features `use` (0 = intercept), centred and scaled; its coefficients and PRESS. */
function leastSquares(X: number[][], y: number[], use: number[], mean: number[], sd: number[]): { coef: [number, number, number, number]; press: number } {
  const n = X.length;
  const p = use.length;
  // Normal equations on centred, scaled features (a tiny ridge, 1e-8, keeps a near-collinear set solvable).
  const z = (row: number[], d: number) => (d === 0 ? 1 : (row[d]! - mean[d]!) / sd[d]!);
  const A = new Float64Array(p * p);
  const w = new Float64Array(p);
  for (let r = 0; r < n; r++) {
    for (let s = 0; s < p; s++) {
      const vs = z(X[r]!, use[s]!);
      w[s]! += vs * y[r]!;
      for (let t = 0; t < p; t++) A[s * p + t]! += vs * z(X[r]!, use[t]!);
    }
  }
  for (let s = 1; s < p; s++) A[s * p + s]! += 1e-8 * n;
  // A is symmetric positive definite (a Gram matrix plus the ridge): one factor serves every solve.
  const L = cholesky(A, p);
  cholSolve(L, p, w);
  const coef: [number, number, number, number] = [0, 0, 0, 0];
  coef[0] = w[0]!;
  for (let s = 1; s < p; s++) {
    const d = use[s]!;
    coef[d] = w[s]! / sd[d]!;
    coef[0] -= (w[s]! * mean[d]!) / sd[d]!;
  }
  // Leave-one-out residuals e_r / (1 - h_rr), h_rr = z_r' A^-1 z_r.
  let press = 0;
  for (let r = 0; r < n; r++) {
    const zr = Float64Array.from(use, (d) => z(X[r]!, d));
    const v = Float64Array.from(zr);
    cholSolve(L, p, v);
    let h = 0;
    for (let s = 0; s < p; s++) h += zr[s]! * v[s]!;
    const e = y[r]! - dot(coef, X[r]!);
    press += h < 1 - 1e-9 ? (e / (1 - h)) ** 2 : Infinity;
  }
  return { coef, press };
}

/** The estimator's prediction with a 90% interval (+/- 1.645 residual SD), clipped to [0, 1]. */
export function predictTinyAccuracy(
  curve: Pick<AccuracyCurve, 'grid' | 'accuracy'>,
  est: TinyAccuracyEstimator,
  run: Omit<TinyRunRow, 'fullAccuracy'>,
): { accuracy: number; low: number; high: number } {
  const mid = dot(est.coef, features(curve, run));
  const half = 1.6449 * est.residualSd;
  const clip = (v: number) => Math.min(1, Math.max(0, v));
  return { accuracy: clip(mid), low: clip(mid - half), high: clip(mid + half) };
}

function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let t = 0; t < a.length; t++) s += a[t]! * b[t]!;
  return s;
}
