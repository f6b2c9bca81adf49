import type { ResponseBank } from './bank.js';
import { computeDifficulties } from './difficulty.js';
import { sigmoid, softplus, type Layout } from './layout.js';

/**
 * Model probabilities p_jik for cells of a bank (content order), for every model family:
 * LLM-NRM/NRM by the softmax of paper.md; binary models give P(correct) at the key and spread the
 * wrong mass 1 - P over the distractors in proportion to `wrongShares` (per item option, summing to
 * 1 over the distractors; uniform when not given), as paper.md prescribes for option prediction.
 */
export interface Predictor {
  readonly layout: Layout;
  /** Write p for cell (j, column c) into out[0..K). */
  cell(j: number, c: number, out: Float64Array): void;
  /** P(correct) for cell (j, c). */
  pKey(j: number, c: number): number;
}

export function predictor(bank: ResponseBank, layout: Layout, x: Float64Array, wrongShares?: Float64Array): Predictor {
  const I = bank.items.length;
  if (layout.kind === 'llm-nrm') {
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
  const pKey = (j: number, col: number): number => {
    const i = bank.colItem[col]!;
    const a = layout.pl >= 2 ? x[layout.slope + i]! : 1;
    const sg = sigmoid(a * x[layout.theta + j]! + x[layout.intercept + i]!);
    const lo = layout.pl >= 3 ? sigmoid(x[layout.guess + i]!) : 0;
    const hi = layout.pl >= 4 ? 1 - sigmoid(x[layout.slip + i]!) : 1;
    return lo + (hi - lo) * sg;
  };
  const cell = (j: number, col: number, out: Float64Array): void => {
    const i = bank.colItem[col]!;
    const io = bank.itemOffsets[i]!;
    const K = bank.itemOffsets[i + 1]! - io;
    const g = bank.key[i]!;
    const P = pKey(j, col);
    for (let k = 0; k < K; k++) out[k] = k === g ? P : (1 - P) * (wrongShares ? wrongShares[io + k]! : 1 / (K - 1));
  };
  return { layout, cell, pKey };
}

/**
 * Wrong-option shares per item from the cells marked in `mask` (J x C; e.g. training cells only):
 * the frequency of each distractor among wrong argmax answers, with add-one smoothing so that an
 * unseen distractor keeps some mass. Sums to 1 over each item's distractors; 0 at the key.
 */
export function wrongOptionShares(bank: ResponseBank, mask: Uint8Array = bank.observed): Float64Array {
  const sumK = bank.itemOffsets[bank.items.length]!;
  const counts = new Float64Array(sumK);
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC]!;
  for (let j = 0; j < bank.models.length; j++) {
    for (let c = 0; c < nC; c++) {
      if (!mask[j * nC + c] || !bank.observed[j * nC + c]) continue;
      const i = bank.colItem[c]!;
      const qo = j * width + bank.colOffsets[c]!;
      const K = bank.colOffsets[c + 1]! - bank.colOffsets[c]!;
      let best = 0;
      for (let k = 1; k < K; k++) if (bank.q[qo + k]! > bank.q[qo + best]!) best = k;
      if (best !== bank.key[i]) counts[bank.itemOffsets[i]! + best]!++;
    }
  }
  for (let i = 0; i < bank.items.length; i++) {
    const io = bank.itemOffsets[i]!;
    const K = bank.itemOffsets[i + 1]! - io;
    const g = bank.key[i]!;
    let tot = 0;
    for (let k = 0; k < K; k++) if (k !== g) tot += counts[io + k]! + 1;
    for (let k = 0; k < K; k++) counts[io + k] = k === g ? 0 : (counts[io + k]! + 1) / tot;
  }
  return counts;
}
