// The item response curve of a calibration bundle's item, on the bundle's scale: the one place the
// site, the leaderboard, the CLI and the simulator's readers compute it, instead of each their own
// softmax or sigmoid (issue 26). The item parameters alone, no LLM's nuisance (paper.md,
// "Information"), as the families' `itemLogits` and `keyCurve` are on a fit's layout.
import type { BundleItem } from '../data/bundleFormat.js';
import { LlmNrmError } from '../errors.js';
import { sigmoid, softmaxInPlace } from './layout.js';

/** What the curve reads of an item: a `BundleItem`, or the site's item entry (`irt` null there). */
export type CurveItem = Pick<BundleItem, 'key' | 'nOptions' | 'a' | 'c'> & { irt?: BundleItem['irt'] | null };

/**
 * Option-level items (a and c of length nOptions): the NRM logits v_k = a_k theta + c_k into
 * v[0..K) and their theta slopes dv_k = a_k into dv (when given), for `informationSplit`
 * (paper.md, "Information"); returns true. Binary items have no option logits: writes nothing and
 * returns false (their P(key) and dP/dtheta are `itemCurve`'s).
 */
export function itemLogits(item: CurveItem, theta: number, v: Float64Array, dv?: Float64Array): boolean {
  const K = item.nOptions;
  if (item.a.length !== K) return false;
  for (let k = 0; k < K; k++) {
    v[k] = item.a[k]! * theta + item.c[k]!;
    if (dv) dv[k] = item.a[k]!;
  }
  return true;
}

/**
 * Option probabilities p_k(theta) of a bundle item into out[0..K) (returned; allocated when not
 * given), and dp_k/dtheta into `slope` when given.
 *
 * Option-level items (LLM-NRM, NRM): Bock's softmax p_k = softmax_k(a_k theta + c_k) (paper.md,
 * "Models"), dp_k = p_k (a_k - abar), abar = sum_l p_l a_l. Binary items (1PL-4PL, `irt`):
 * P = guess + (upper - guess) sigmoid(discrimination theta + intercept) at the key, the wrong mass
 * 1 - P spread evenly over the K - 1 distractors (paper.md, "Baselines": a bundle keeps no
 * wrong-option frequencies, so the even split), dP = (upper - guess) discrimination sg (1 - sg).
 */
export function itemCurve(item: CurveItem, theta: number, out: Float64Array = new Float64Array(item.nOptions), slope?: Float64Array): Float64Array {
  const K = item.nOptions;
  if (itemLogits(item, theta, out)) {
    softmaxInPlace(out, K);
    if (slope) {
      let abar = 0;
      for (let k = 0; k < K; k++) abar += out[k]! * item.a[k]!;
      for (let k = 0; k < K; k++) slope[k] = out[k]! * (item.a[k]! - abar);
    }
    return out;
  }
  if (!item.irt)
    throw new LlmNrmError(
      'INVALID_BUNDLE',
      `item ${JSON.stringify((item as { id?: string }).id ?? '')} has ${item.a.length} slopes for ${K} options and no irt parameters`,
    );
  const { discrimination, intercept, guess, upper } = item.irt;
  const sg = sigmoid(discrimination * theta + intercept);
  const P = guess + (upper - guess) * sg;
  const dP = (upper - guess) * discrimination * sg * (1 - sg);
  for (let k = 0; k < K; k++) {
    out[k] = k === item.key ? P : (1 - P) / (K - 1);
    if (slope) slope[k] = k === item.key ? dP : -dP / (K - 1);
  }
  return out;
}
