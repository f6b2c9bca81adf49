import { OVERALL } from '@llm-nrm/core';
import { accuracyAt, predictAccuracy } from './accuracyCurve.js';
import { predictRunAccuracy, type RunAccuracyModel, type RunAccuracyPrediction } from './runAccuracy.js';
import { predictTinyAccuracy, type TinyAccuracyEstimator } from './tinyAccuracyEstimator.js';

/**
 * One benchmark's (or the overall) accuracy model of a tiny package, as `llm-nrm publish` writes it
 * in bank.json (adapters' `TinyAccuracy`): F(theta) on the package's grid and whichever estimator
 * the package carries.
 */
export interface PackageAccuracyCurve {
  /** F(theta): the calibrated LLMs' full-bank accuracy against their theta, on the grid. */
  accuracy: number[];
  residualSd: number;
  llms: number;
  /** The run-accuracy model (`fitRunAccuracy`): packages from issue 30 on. */
  run?: RunAccuracyModel;
  /** The least-squares estimator (`fitTinyAccuracyEstimator`): packages written before `run`. */
  estimator?: TinyAccuracyEstimator;
  /** Packages written before the estimator: F(theta) + beta (a - T(theta)). */
  tiny?: { accuracy: number[]; beta: number; residualSd: number };
}

/** A package's accuracy models: the grid, overall and per benchmark (bank.json's `accuracy`). */
export interface PackageAccuracy {
  grid: number[];
  overall: PackageAccuracyCurve;
  benchmarks: Record<string, PackageAccuracyCurve>;
}

/** A tiny run as the accuracy prediction sees it: its tiny-run scores and its argmax accuracy on the items answered. */
export interface PackageRun {
  theta: number;
  se: number;
  logSharpness: number;
  /** Argmax accuracy on the package's items (of the benchmark, for a per-benchmark prediction); undefined where none was answered. */
  tinyAccuracy: number | undefined;
}

/**
 * One accuracy prediction from one of a package's models, with its 90% interval: the run-accuracy
 * model (`predictRunAccuracy`) where the run's accuracy on the items is known; packages written
 * before it: their estimator (`predictTinyAccuracy`), or F(theta) + beta (a - T(theta)); else the
 * curve with the SE of theta (`predictAccuracy`).
 */
export function predictPackageCurve(grid: number[], c: PackageAccuracyCurve, run: PackageRun): RunAccuracyPrediction {
  const { theta, se, tinyAccuracy: tinyAcc } = run;
  const F = { grid, accuracy: c.accuracy };
  const known = tinyAcc !== undefined && Number.isFinite(tinyAcc);
  if (c.run !== undefined && known) return predictRunAccuracy(c.run, F, { theta, logSharpness: run.logSharpness, tinyAccuracy: tinyAcc });
  if (c.estimator !== undefined && known && Number.isFinite(run.logSharpness)) {
    return predictTinyAccuracy(F, c.estimator, { theta, logSharpness: run.logSharpness, tinyAccuracy: tinyAcc });
  }
  if (c.tiny === undefined || !known) return predictAccuracy({ ...F, residualSd: c.residualSd, llms: c.llms }, theta, se);
  // Packages written before the estimator: the curve moved by beta times the run's distance from the tiny-item curve T.
  const s = Number.isFinite(se) ? se : 4;
  const T = { grid, accuracy: c.tiny.accuracy };
  const at = (t: number) => accuracyAt(F, t) + c.tiny!.beta * (tinyAcc - accuracyAt(T, t));
  const mid = at(theta);
  const spread = (at(theta + s) - at(theta - s)) / 2;
  const half = 1.6449 * Math.sqrt(spread * spread + c.tiny.residualSd * c.tiny.residualSd);
  const clip = (v: number) => Math.min(1, Math.max(0, v));
  return { accuracy: clip(mid), low: clip(mid - half), high: clip(mid + half) };
}

/**
 * A tiny run's predicted full-bank accuracy, overall (key 'overall') and per benchmark of the package,
 * each with a 90% interval: the one prediction `llm-nrm score <package>` prints and the site's
 * score page shows. `tinyAccuracy` is core's `argmaxAccuracies` of the run (`OVERALL`, then per
 * benchmark); theta, SE and sharpness its scores against the package's bundle.
 */
export function predictPackageAccuracy(
  accuracy: PackageAccuracy,
  run: { theta: number; se: number; sharpness: number },
  tinyAccuracy: ReadonlyMap<string, number>,
): Record<string, RunAccuracyPrediction> {
  const features = (b: string): PackageRun => ({ theta: run.theta, se: run.se, logSharpness: Math.log(run.sharpness), tinyAccuracy: tinyAccuracy.get(b) });
  const out: Record<string, RunAccuracyPrediction> = {};
  out['overall'] = predictPackageCurve(accuracy.grid, accuracy.overall, features(OVERALL));
  for (const [b, c] of Object.entries(accuracy.benchmarks)) out[b] = predictPackageCurve(accuracy.grid, c, features(b));
  return out;
}
