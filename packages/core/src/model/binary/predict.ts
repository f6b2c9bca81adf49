import type { ResponseBank } from '../../data/bank.js';
import { sigmoid, type BinaryLayout } from '../layout.js';
import type { Predictor } from '../family.js';

/**
 * P(correct) of 1PL-4PL at the key; the wrong mass 1 - P spread over the distractors in proportion
 * to `wrongShares` (uniform when not given), as paper.md prescribes for option prediction.
 */
export function binaryPredictor(bank: ResponseBank, layout: BinaryLayout, x: Float64Array, wrongShares?: Float64Array): Predictor {
  const curve = new Float64Array(3);
  const pKey = (j: number, col: number): number => {
    binaryKeyCurve(layout, x, bank.colItem[col]!, x[layout.theta + j]!, curve);
    return curve[0]!;
  };
  const cell = (j: number, col: number, out: Float64Array): void => {
    const i = bank.colItem[col]!;
    const io = bank.itemOffsets[i]!;
    const K = bank.itemOffsets[i + 1]! - io;
    const g = bank.key[i]!;
    const P = pKey(j, col);
    for (let k = 0; k < K; k++) out[k] = k === g ? P : (1 - P) * (wrongShares ? wrongShares[io + k]! : 1 / (K - 1));
  };
  return { layout, cell, pKey, logits: null };
}

/**
 * Item i's P(correct) at theta, 1 - P = (1 - hi) + (hi - lo)(1 - sigmoid) formed without
 * cancellation, and dP/dtheta, into out[0..3) (the binary families' `keyCurve`).
 */
export function binaryKeyCurve(layout: BinaryLayout, x: Float64Array, i: number, theta: number, out: Float64Array): void {
  const a = layout.pl >= 2 ? x[layout.slope + i]! : 1;
  const sg = sigmoid(a * theta + x[layout.intercept + i]!);
  const lo = layout.pl >= 3 ? sigmoid(x[layout.guess + i]!) : 0;
  const hi = layout.pl >= 4 ? 1 - sigmoid(x[layout.slip + i]!) : 1;
  out[0] = lo + (hi - lo) * sg;
  out[1] = 1 - hi + (hi - lo) * (1 - sg);
  out[2] = (hi - lo) * a * sg * (1 - sg);
}
