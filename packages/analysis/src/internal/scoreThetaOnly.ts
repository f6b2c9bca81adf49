import type { Predictor, ResponseBank } from '@llm-nrm/core';
import { mapTheta } from './mapTheta.js';
import { P_FLOOR } from './stats.js';

/**
 * Theta of LLM j alone (1-D MAP, N(0,1) prior) from the soft option likelihood sum_k q_k log p_k over
 * the observed columns with cols[c] = 1; the LLM's other parameters stay as they are in `xs` (which
 * the predictor reads live). Used where a few items cannot identify sharpness, bias and fallback.
 */
export function scoreThetaOnly(bank: ResponseBank, pred: Predictor, xs: Float64Array, thetaOffset: number, j: number, cols: ArrayLike<number>): number {
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC]!;
  const list: number[] = [];
  for (let c = 0; c < nC; c++) if (cols[c] && bank.observed[j * nC + c]) list.push(c);
  const p = new Float64Array(bank.kMax);
  return mapTheta((theta) => {
    xs[thetaOffset + j] = theta;
    let s = 0;
    for (const c of list) {
      const K = bank.colOffsets[c + 1]! - bank.colOffsets[c]!;
      const qo = j * width + bank.colOffsets[c]!;
      pred.cell(j, c, p);
      for (let k = 0; k < K; k++) {
        const qk = bank.q[qo + k]!;
        if (qk > 0) s -= qk * Math.log(Math.max(p[k]!, P_FLOOR));
      }
    }
    return s;
  });
}
