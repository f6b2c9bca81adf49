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
 * Packages written before the run-accuracy model (runAccuracy.ts) hold it: read, no longer fitted
 * (its least-squares fit with a leave-one-LLM-out residual SD is in git).
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
