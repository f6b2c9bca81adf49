import type { ResponseBank } from '../../bank.js';
import { computeDifficulties } from '../../difficulty.js';
import { sigmoid, softplus, type LlmNrmLayout } from '../../layout.js';
import type { Predictor } from '../../predict.js';

/** p_jik of LLM-NRM/NRM (paper.md): softmax over v = (1 - G) s (a theta + c + delta) + G rho. */
export function llmNrmPredictor(bank: ResponseBank, layout: LlmNrmLayout, x: Float64Array): Predictor {
  const I = bank.items.length;
  const b = new Float64Array(I);
  const { sharpness: useS, position: usePos, fallback: useFb } = layout.parts;
  if (useFb) computeDifficulties(bank, x, layout.a, layout.c, b, new Float64Array(3 * I), new Float64Array(layout.sumK));
  const kappa = softplus(x[layout.kbar]!);
  const w0 = x[layout.w0]!;
  const cell = (j: number, col: number, out: Float64Array): void => {
    const i = bank.colItem[col]!;
    const io = bank.itemOffsets[i]!;
    const co = bank.colOffsets[col]!;
    const K = bank.colOffsets[col + 1]! - co;
    const th = x[layout.theta + j]!;
    const s = useS ? softplus(x[layout.sbar + j]!) : 1;
    const G = useFb ? sigmoid(w0 - kappa * (th - b[i]!)) : 0;
    let m = -Infinity;
    for (let k = 0; k < K; k++) {
      const p = bank.colPosition === null ? k : bank.colPosition[co + k]!;
      const z = x[layout.a + io + k]! * th + x[layout.c + io + k]! + (usePos ? x[layout.delta + j * layout.kMax + p]! : 0);
      const v = (1 - G) * s * z + (useFb ? G * x[layout.rho + j * layout.kMax + p]! : 0);
      out[k] = v;
      if (v > m) m = v;
    }
    let sum = 0;
    for (let k = 0; k < K; k++) {
      out[k] = Math.exp(out[k]! - m);
      sum += out[k]!;
    }
    for (let k = 0; k < K; k++) out[k]! /= sum;
  };
  const tmp = new Float64Array(bank.kMax);
  return { layout, cell, pKey: (j, c) => (cell(j, c, tmp), tmp[bank.key[bank.colItem[c]!]!]!) };
}
