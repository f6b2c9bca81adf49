import { argmaxAt, type ResponseBank } from '../data/bank.js';
import type { Predictor } from './family.js';
import { familyOfLayout } from './registry.js';
import type { Layout } from './layout.js';

/**
 * The family's forward model at x. `wrongShares`: binary families' spread of the wrong mass;
 * `difficulties`: LLM-NRM's gate b_i when already computed (`itemDifficulties`), else computed here.
 */
export function predictor(bank: ResponseBank, layout: Layout, x: Float64Array, wrongShares?: Float64Array, difficulties?: Float64Array): Predictor {
  return familyOfLayout(layout).predictor(bank, layout, x, wrongShares, difficulties);
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
      const best = argmaxAt(bank.q, qo, K);
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
