import type { ResponseBank } from '../data/bank.js';
import type { Layout } from '../model/layout.js';
import { predictor } from '../model/predict.js';

/**
 * The fit's noise-free twin: the same bank (cells, rotations, hard flags) with every observed
 * cell's q replaced by the fitted model's own p at x. Refitting it from x and comparing the thetas
 * estimates the estimator's bias at x (a parametric bootstrap with the noise left out), which
 * `twinBiasSe` folds into the SEs.
 */
export function twinBank(bank: ResponseBank, layout: Layout, x: Float64Array): ResponseBank {
  const pred = predictor(bank, layout, x);
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC]!;
  const q = new Float32Array(bank.q.length);
  const p = new Float64Array(bank.kMax);
  for (let j = 0; j < bank.models.length; j++) {
    for (let c = 0; c < nC; c++) {
      if (!bank.observed[j * nC + c]) continue;
      pred.cell(j, c, p);
      const o = j * width + bank.colOffsets[c]!;
      const K = bank.colOffsets[c + 1]! - bank.colOffsets[c]!;
      for (let k = 0; k < K; k++) q[o + k] = p[k]!;
    }
  }
  return { ...bank, q };
}

/**
 * The 'twin' SE mode's scale on the twin's squared bias: the twin's truth is the already shrunk
 * estimate, so it sees only part of the priors' bias (lambda^2 = 2, from the twin of the twin).
 */
export const TWIN_BIAS_SCALE = 2;

/**
 * SEs with the bias term max(prior term, scale b_j^2): se_j^2 - prior_j + max(prior_j, scale b_j^2),
 * b_j = theta_twin_j - theta_j the twin's bias estimate and prior_j the SE's prior part. The twin
 * carries the bias the fleet shares through its items, which the per-LLM prior term misses.
 * Infinite SEs stay infinite.
 */
export function twinBiasSe(se: Float64Array, priorVariance: Float64Array, theta: ArrayLike<number>, twinTheta: ArrayLike<number>, scale = 1): Float64Array {
  const out = Float64Array.from(se);
  for (let j = 0; j < se.length; j++) {
    const s = se[j]!;
    if (!Number.isFinite(s)) continue;
    const pv = priorVariance[j]!;
    const b = twinTheta[j]! - theta[j]!;
    out[j] = Math.sqrt(Math.max(0, s * s - pv + Math.max(pv, scale * b * b)));
  }
  return out;
}
