/**
 * Fisher information of one categorical response and its split into what correctness carries and
 * what the identity of the chosen distractor adds (paper.md, "Information").
 *
 * With logits v_k(theta), p = softmax(v) and d_k = dv_k / dtheta, the information is
 *   I = sum_k p_k (d_k - dbar)^2,  dbar = sum_k p_k d_k            (NRM: d_k = a_k, so I = sum p (a - abar)^2)
 * Coarsening to correct/incorrect keeps I_binary = p_g (d_g - dbar)^2 / (1 - p_g); I_wrong = I - I_binary.
 *
 * For confident items 1 - p_g rounds to 0 and d_g - dbar to noise, so both are formed as sums over the
 * distractors, W = sum_{k!=g} p_k and dbar_w = sum_{k!=g} p_k d_k / W (the law of total variance):
 *   I_binary = p_g W (d_g - dbar_w)^2,   I_wrong = sum_{k!=g} p_k (d_k - dbar_w)^2,
 * which equal the formulas above (d_g - dbar = W (d_g - dbar_w)), are each >= 0 by construction and
 * add up to I exactly.
 *
 * Reads v[vo..vo+K) and d[dOff..dOff+K); writes [total, binary, wrong] into out[oo..oo+3).
 */
export function informationSplit(v: ArrayLike<number>, d: ArrayLike<number>, K: number, key: number, out: Float64Array, vo = 0, dOff = 0, oo = 0): void {
  let m = -Infinity;
  for (let k = 0; k < K; k++) if (v[vo + k]! > m) m = v[vo + k]!;
  // Unnormalised probabilities e_k = exp(v_k - max): the sum is >= 1, so no division by 0.
  let sum = 0;
  let W = 0;
  let dw = 0;
  for (let k = 0; k < K; k++) {
    const e = Math.exp(v[vo + k]! - m);
    sum += e;
    if (k !== key) {
      W += e;
      dw += e * d[dOff + k]!;
    }
  }
  const pg = Math.exp(v[vo + key]! - m) / sum;
  if (W === 0) {
    // Every distractor underflowed (logit gap > ~745): no information either way.
    out[oo] = 0;
    out[oo + 1] = 0;
    out[oo + 2] = 0;
    return;
  }
  const dbarW = dw / W;
  let wrong = 0;
  for (let k = 0; k < K; k++) {
    if (k === key) continue;
    const t = d[dOff + k]! - dbarW;
    wrong += Math.exp(v[vo + k]! - m) * t * t;
  }
  wrong /= sum;
  const gap = d[dOff + key]! - dbarW;
  const binary = pg * (W / sum) * gap * gap;
  out[oo] = binary + wrong;
  out[oo + 1] = binary;
  out[oo + 2] = wrong;
}
