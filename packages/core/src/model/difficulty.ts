import type { ResponseBank } from '../data/bank.js';

/**
 * Guard of the gate's item difficulty b_i (paper.md, LLM-NRM):
 *
 *   b_i = N_i / D_i,  N_i = log sum_{k != g} exp(c_ik) - c_ig,  D_i = a_ig - sum_{k != g} w_ik a_ik.
 *
 * D_i can approach 0, and then N_i / D_i explodes (a hard clamp leaves a kink). A smooth, bounded guard:
 *
 *   raw_i = N_i D_i / (D_i^2 + EPS^2),   b_i = B tanh(raw_i / B)   (|b_i| < B).
 */
export const DIFFICULTY_EPS = 0.5;
export const DIFFICULTY_BOUND = 6;

/**
 * Difficulty b_i of every item from a, c (starting at offsets aOff, cOff of x), and the partials
 * needed to push dL/db_i back onto a and c (`difficultyBackward`). `aux` holds per item
 * [dB/dN, dB/dD, abar_w] and `w` the distractor softmax weights (0 at the key).
 */
export function computeDifficulties(
  bank: ResponseBank,
  x: Float64Array,
  aOff: number,
  cOff: number,
  b: Float64Array,
  aux: Float64Array,
  w: Float64Array,
): void {
  const I = bank.items.length;
  const off = bank.itemOffsets;
  const E2 = DIFFICULTY_EPS * DIFFICULTY_EPS;
  for (let i = 0; i < I; i++) {
    const o = off[i]!;
    const K = off[i + 1]! - o;
    const g = bank.key[i]!;
    let m = -Infinity;
    for (let k = 0; k < K; k++) if (k !== g && x[cOff + o + k]! > m) m = x[cOff + o + k]!;
    let s = 0;
    for (let k = 0; k < K; k++) {
      const e = k === g ? 0 : Math.exp(x[cOff + o + k]! - m);
      w[o + k] = e;
      s += e;
    }
    let abar = 0;
    for (let k = 0; k < K; k++) {
      w[o + k]! /= s;
      abar += w[o + k]! * x[aOff + o + k]!;
    }
    const N = m + Math.log(s) - x[cOff + o + g]!;
    const D = x[aOff + o + g]! - abar;
    const den = D * D + E2;
    const raw = (N * D) / den;
    const t = Math.tanh(raw / DIFFICULTY_BOUND);
    b[i] = DIFFICULTY_BOUND * t;
    const dbdraw = 1 - t * t;
    aux[3 * i] = (dbdraw * D) / den; // dB/dN
    aux[3 * i + 1] = (dbdraw * N * (E2 - D * D)) / (den * den); // dB/dD
    aux[3 * i + 2] = abar;
  }
}

/** Add dL/da and dL/dc implied by dL/db (`gb`) to the gradient `g` (chain rule through b_i). */
export function difficultyBackward(
  bank: ResponseBank,
  x: Float64Array,
  aOff: number,
  gb: Float64Array,
  aux: Float64Array,
  w: Float64Array,
  g: Float64Array,
  cOff: number,
): void {
  const I = bank.items.length;
  const off = bank.itemOffsets;
  for (let i = 0; i < I; i++) {
    const gbi = gb[i]!;
    if (gbi === 0) continue;
    const o = off[i]!;
    const K = off[i + 1]! - o;
    const key = bank.key[i]!;
    const dN = aux[3 * i]! * gbi;
    const dD = aux[3 * i + 1]! * gbi;
    const abar = aux[3 * i + 2]!;
    for (let k = 0; k < K; k++) {
      if (k === key) {
        g[aOff + o + k]! += dD; // dD/da_g = 1
        g[cOff + o + k]! -= dN; // dN/dc_g = -1
      } else {
        const wk = w[o + k]!;
        g[aOff + o + k]! -= dD * wk; // dD/da_k = -w_k
        // dN/dc_k = w_k; dD/dc_k = -w_k (a_k - abar)
        g[cOff + o + k]! += dN * wk - dD * wk * (x[aOff + o + k]! - abar);
      }
    }
  }
}

/**
 * b and its gradient for one item from its own a, c (K options, key g; item-local, no data), from
 * the distractors' exps `ew` (0 at the key), their sum s and N (difficultyGradColumns.ts). The
 * gradient is laid out as [db/da_0..K-1, db/dc_0..K-1]; used to build the item block's curvature.
 */
export function difficultyGradTail(
  a: ArrayLike<number>,
  K: number,
  g: number,
  ew: Float64Array,
  s: number,
  N: number,
  wn: Float64Array,
  grad: Float64Array,
): number {
  const E2 = DIFFICULTY_EPS * DIFFICULTY_EPS;
  let abar = 0;
  for (let k = 0; k < K; k++) {
    wn[k] = ew[k]! / s;
    abar += wn[k]! * a[k]!;
  }
  const D = a[g]! - abar;
  const den = D * D + E2;
  const t = Math.tanh((N * D) / den / DIFFICULTY_BOUND);
  const dbdraw = 1 - t * t;
  const dN = (dbdraw * D) / den;
  const dD = (dbdraw * N * (E2 - D * D)) / (den * den);
  for (let k = 0; k < K; k++) {
    if (k === g) {
      grad[k] = dD;
      grad[K + k] = -dN;
    } else {
      grad[k] = -dD * wn[k]!;
      grad[K + k] = dN * wn[k]! - dD * wn[k]! * (a[k]! - abar);
    }
  }
  return DIFFICULTY_BOUND * t;
}
