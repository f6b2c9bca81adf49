import type { ResponseBank } from '../data/bank.js';
import type { Layout } from '../model/layout.js';
import type { Predictor } from '../model/family.js';
import { predictor } from '../model/predict.js';

/**
 * The fit's noise-free twin: the same bank (cells, rotations, hard flags) with every observed
 * cell's q replaced by the fitted model's own p at x. Refitting it from x and comparing the thetas
 * estimates the estimator's bias at x (a parametric bootstrap with the noise left out), which
 * `twinBiasSe` folds into the SEs.
 */
export function twinBank(bank: ResponseBank, layout: Layout, x: Float64Array): ResponseBank {
  const q = new Float32Array(bank.q.length);
  fillTwinRows(bank, predictor(bank, layout, x), 0, bank.models.length, q);
  return { ...bank, q };
}

/** The twin bank's targets in blocks of LLM rows: `emit(q, firstRow)` gets rows firstRow.. in one reused buffer (copy before returning). */
export function forEachTwinRows(
  bank: ResponseBank,
  layout: Layout,
  x: Float64Array,
  rowsPerBlock: number,
  emit: (q: Float32Array, firstRow: number) => void,
): void {
  const pred = predictor(bank, layout, x);
  const J = bank.models.length;
  const width = bank.colOffsets[bank.colItem.length]!;
  const rows = Math.max(1, Math.min(J, Math.floor(rowsPerBlock)));
  const buf = new Float32Array(rows * width);
  for (let from = 0; from < J; from += rows) {
    const to = Math.min(J, from + rows);
    const q = to - from === rows ? buf : buf.subarray(0, (to - from) * width);
    q.fill(0);
    fillTwinRows(bank, pred, from, to, q);
    emit(q, from);
  }
}

/** Rows [from, to) of the twin's q into out (row from at 0): the model's p on observed cells, 0 elsewhere. */
function fillTwinRows(bank: ResponseBank, pred: Predictor, from: number, to: number, out: Float32Array): void {
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC]!;
  const p = new Float64Array(bank.kMax);
  for (let j = from; j < to; j++) {
    for (let c = 0; c < nC; c++) {
      if (!bank.observed[j * nC + c]) continue;
      pred.cell(j, c, p);
      const o = (j - from) * width + bank.colOffsets[c]!;
      const K = bank.colOffsets[c + 1]! - bank.colOffsets[c]!;
      for (let k = 0; k < K; k++) out[o + k] = p[k]!;
    }
  }
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
