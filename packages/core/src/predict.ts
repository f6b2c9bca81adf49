import type { ResponseBank } from './bank.js';
import { familyOfLayout } from './families/registry.js';
import type { Layout } from './layout.js';

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
  /**
   * Option-level families (p = softmax(v)): the logits v_k of cell (j, c) into v[0..K), at ability
   * `theta` (default the LLM's own), and dv_k/dtheta into `dv` when given. null where the
   * probabilities are not a softmax over option logits (binary families).
   */
  readonly logits: ((j: number, c: number, v: Float64Array, dv?: Float64Array, theta?: number) => void) | null;
  /**
   * Option-level families, optional: the derivative of LLM j's logits along a direction w over the
   * parameters `idx` (LLM j's own and the globals), dv_k = sum_a w_a dv_k/dx_idx[a], analytically;
   * returns a function writing, for a cell (j, c), p[0..K) (`cell`'s, bit for bit) and dv[0..K),
   * valid until the next call of `along`. null where the direction moves a parameter it does not
   * cover (callers then take differences of `cell`). The SEs' dispersion uses it in place of two
   * predictors by central differences (fit/standardErrors.ts).
   */
  readonly along?: (j: number, idx: Int32Array, w: Float64Array) => ((c: number, p: Float64Array, dv: Float64Array) => void) | null;
}

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
