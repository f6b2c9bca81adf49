import { gridMinimum } from '../internal/gridMinimum.js';
import { minimiseTheta, minimiseThetaSharpness } from './minimiseTheta.js';

/** The calibrated fleet's spread of each position-bias and fallback coordinate: the priors of a tiny run's. */
export interface NuisancePrior {
  /** Means over the calibrated LLMs, per displayed position (sum to zero). */
  delta: number[];
  rho: number[];
  /** Their variances over the calibrated LLMs (n - 1 denominator), floored at NUISANCE_VAR_FLOOR. */
  deltaVar: number[];
  rhoVar: number[];
}

/** Floor of a fleet variance of a bias or fallback coordinate (a fleet that agrees still leaves a little room). */
export const NUISANCE_VAR_FLOOR = 1e-4;

/**
 * The log sharpness of a run whose every answer is hard (`hardOnlyRow`): 0, sharpness 1, where the
 * calibration and the joint scoring fit hold such an LLM's (`hardOnlyModels`). From one-hot answers
 * sharpness is not identified: fitted, a tiny run's ran up to its prior's edge and pulled theta in,
 * so a hard run of 41 items was scored on another scale than its full-bank score. On a simulated
 * 29-LLM all-hard fleet (5 LLM folds) held-out tiny runs ranked at Kendall 0.813 / 0.842 at 41 / 100
 * items held, against 0.788 / 0.783 fitted, adaptive runs 0.837 at 20 items against 0.714; capped
 * at 1 instead (fitted below it) 0.788 / 0.783 and 0.719. What it costs there: the run-accuracy
 * model loses the fitted sharpness that took guessing runs off its curve (packages/analysis/BENCHMARKS.md).
 */
export const HARD_RUN_U = 0;

/** Coordinate sweeps over bias and fallback between the (theta, log sharpness) searches of `minimiseTinyRun`. */
export const TINY_RUN_SWEEPS = 3;

/**
 * Means and variances (floored) of LLMs' position bias and fallback over kMax positions.
 */
export function nuisancePrior(llms: readonly { positionBias: readonly number[]; fallback: readonly number[] }[], kMax: number): NuisancePrior {
  const n = llms.length;
  const stat = (get: (l: (typeof llms)[number]) => readonly number[]) => {
    const mean = new Array<number>(kMax).fill(0);
    const v = new Array<number>(kMax).fill(0);
    for (const l of llms) for (let k = 0; k < kMax; k++) mean[k]! += (get(l)[k] ?? 0) / Math.max(1, n);
    for (const l of llms) for (let k = 0; k < kMax; k++) v[k]! += ((get(l)[k] ?? 0) - mean[k]!) ** 2 / Math.max(1, n - 1);
    return { mean, v: v.map((x) => Math.max(x, NUISANCE_VAR_FLOOR)) };
  };
  const d = stat((l) => l.positionBias);
  const r = stat((l) => l.fallback);
  return { delta: d.mean, deltaVar: d.v, rho: r.mean, rhoVar: r.v };
}

/**
 * The tiny-run MAP of one LLM (issue 30): theta and u = log sharpness, and its position bias delta
 * and fallback rho (paper.md, LLM-NRM) under N(fleet mean, fleet variance) priors per coordinate
 * (`NuisancePrior`: empirical Bayes from the calibrated fleet). Held at the fleet's means, a weak
 * LLM's own fallback (its answers on items above its level: G_ji near 1) reads as content and
 * misplaces it: on a simulated fleet of the real MMLU shape (active gate) Kendall fell from 0.87
 * at 10 items to 0.79 at 100; with the fallback known it is 0.97 at 100 (bench/tiny-ceiling.mjs).
 * Under the fleet's own spread as a prior, the data move them only as far as the run's length
 * supports: shrinkage by the run's length, with no tuning constant.
 *
 * f(theta, u) is the caller's objective (data, theta's and sharpness's priors), reading the current
 * `delta` and `rho` (mutated here; null when the model has no such part); this adds their priors.
 * Recipe (the exported lm-eval aggregation repeats it step for step): `minimiseThetaSharpness`, then
 * TINY_RUN_SWEEPS times: for delta then rho, each coordinate k < kMax - 1 moved by t against the last
 * (sums stay zero), t by `gridMinimum` on [-3 sd_k, 3 sd_k] in steps of sd_k / 2 to 1e-4 at
 * the current (theta, u), then `minimiseThetaSharpness` again, started from the last optimum (its
 * local grids: a sweep moves it a little). For a run whose every answer is hard
 * (`hardOnly`) u stays at HARD_RUN_U and each step searches theta alone (`minimiseTheta`).
 */
export function minimiseTinyRun(
  f: (theta: number, u: number) => number,
  delta: number[] | null,
  rho: number[] | null,
  prior: NuisancePrior,
  hardOnly = false,
): { theta: number; se: number; u: number; loss: number } {
  const parts: [number[], number[], number[]][] = [];
  if (delta !== null) parts.push([delta, prior.delta, prior.deltaVar]);
  if (rho !== null) parts.push([rho, prior.rho, prior.rhoVar]);
  const penalty = (): number => {
    let s = 0;
    for (const [vec, m, v] of parts) for (let k = 0; k < vec.length; k++) s += (vec[k]! - m[k]!) ** 2 / (2 * v[k]!);
    return s;
  };
  const g = (theta: number, u: number): number => f(theta, u) + penalty();
  // The sweeps' searches start from the last optimum (`minimiseThetaSharpness`' start): bias and fallback moved it a little.
  const search = (from?: { theta: number; u: number }) =>
    hardOnly ? { ...minimiseTheta((t) => g(t, HARD_RUN_U)), u: HARD_RUN_U } : minimiseThetaSharpness(g, from);
  let r = search();
  if (parts.length > 0) {
    for (let s = 0; s < TINY_RUN_SWEEPS; s++) {
      for (const [vec, , v] of parts) {
        const K = vec.length;
        for (let k = 0; k < K - 1; k++) {
          const bk = vec[k]!;
          const bl = vec[K - 1]!;
          const at = (t: number): number => {
            vec[k] = bk + t;
            vec[K - 1] = bl - t;
            return g(r.theta, r.u);
          };
          const w = 3 * Math.sqrt(v[k]!);
          at(gridMinimum(at, -w, w, w / 6, 1e-4));
        }
      }
      r = search(r);
    }
  }
  return { ...r, loss: g(r.theta, r.u) };
}
