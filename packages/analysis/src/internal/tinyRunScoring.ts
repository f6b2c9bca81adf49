import { familyOfLayout, predictor, softplusInv, type Layout, type ResponseBank } from '@llm-nrm/core';
import { minimiseTheta, minimiseThetaSharpness } from '@llm-nrm/core/engine';

/*
 * The one scoring rule of a tiny run (issue 30), shared by `compression` (evaluate --compression),
 * the tiny-benchmark study and, through core's `scoreResponses` with nuisance 'sharpness', by
 * `llm-nrm score <package>` and the exported lm-eval aggregation: theta (N(0, 3^2) prior) and log
 * sharpness (N(fleet mean, 0.5^2) prior) fitted, position bias and fallback held at the calibrated
 * fleet's means, one presentation per item.
 */

/** One presentation per item, as a tiny run shows it: the identity-order column where there is one. */
export function tinyColumns(bank: ResponseBank, items: ArrayLike<number>): Uint8Array {
  const nC = bank.colItem.length;
  const chosen = new Int32Array(bank.items.length).fill(-1);
  for (let c = 0; c < nC; c++) {
    const i = bank.colItem[c]!;
    const identity = bank.colPosition === null || isIdentity(bank, c);
    if (chosen[i] === -1 || (identity && !isIdentity(bank, chosen[i]!))) chosen[i] = c;
  }
  const cols = new Uint8Array(nC);
  for (let t = 0; t < items.length; t++) {
    const c = chosen[items[t]!]!;
    if (c >= 0) cols[c] = 1;
  }
  return cols;
}

function isIdentity(bank: ResponseBank, c: number): boolean {
  if (bank.colPosition === null) return true;
  const o = bank.colOffsets[c]!;
  const K = bank.colOffsets[c + 1]! - o;
  for (let k = 0; k < K; k++) if (bank.colPosition[o + k] !== k) return false;
  return true;
}

/** Argmax accuracy of LLM j over the observed columns with cols[c] = 1. */
export function accuracyOn(bank: ResponseBank, j: number, cols?: Uint8Array): number {
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC]!;
  let n = 0;
  let right = 0;
  for (let c = 0; c < nC; c++) {
    if (!bank.observed[j * nC + c] || (cols && !cols[c])) continue;
    const o = j * width + bank.colOffsets[c]!;
    const K = bank.colOffsets[c + 1]! - bank.colOffsets[c]!;
    let best = 0;
    for (let k = 1; k < K; k++) if (bank.q[o + k]! > bank.q[o + best]!) best = k;
    n++;
    if (best === bank.key[bank.colItem[c]!]) right++;
  }
  return n > 0 ? right / n : NaN;
}

/**
 * The objective of held-out LLM j on the columns in `cols` (observed cells only): `prior` plus the
 * cross-entropy of its answers under the current `xs`, re-read at every call (the scorers move theta and u in `xs`).
 */
function runCrossEntropy(bank: ResponseBank, layout: Layout, xs: Float64Array, j: number, cols: Uint8Array): (prior: number) => number {
  const pred = predictor(bank, layout, xs);
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC]!;
  const list: number[] = [];
  for (let c = 0; c < nC; c++) if (cols[c] && bank.observed[j * nC + c]) list.push(c);
  const p = new Float64Array(bank.kMax);
  return (prior) => {
    // Accumulated onto the prior term, in the order the scorers always summed.
    let s = prior;
    for (const c of list) {
      const K = bank.colOffsets[c + 1]! - bank.colOffsets[c]!;
      const qo = j * width + bank.colOffsets[c]!;
      pred.cell(j, c, p);
      for (let k = 0; k < K; k++) {
        const q = bank.q[qo + k]!;
        if (q > 0) s -= q * Math.log(Math.max(p[k]!, 1e-300));
      }
    }
    return s;
  };
}

/** Theta alone of held-out LLM j from the columns in `cols`, nuisances at the training fleet's means (N(0, 3^2) prior, as `scoreResponses`). */
export function thetaAlone(bank: ResponseBank, layout: Layout, xs: Float64Array, j: number, cols: Uint8Array): { theta: number; se: number } {
  const data = runCrossEntropy(bank, layout, xs, j, cols);
  return minimiseTheta((theta) => {
    xs[layout.theta + j] = theta;
    return data((theta * theta) / 18);
  });
}

/** Theta and log-sharpness u of held-out LLM j (prior u ~ N(u0, sd^2)); bias and fallback stay as in `xs`. */
export function thetaSharp(
  bank: ResponseBank,
  layout: Layout,
  xs: Float64Array,
  j: number,
  cols: Uint8Array,
  u0: number,
  sd: number,
): { theta: number; se: number; u: number } {
  const sharpness = familyOfLayout(layout).sharpnessIndex;
  if (sharpness === null) return { ...thetaAlone(bank, layout, xs, j, cols), u: 0 };
  const sj = sharpness(layout, j);
  const data = runCrossEntropy(bank, layout, xs, j, cols);
  return minimiseThetaSharpness((theta, u) => {
    xs[layout.theta + j] = theta;
    xs[sj] = softplusInv(Math.exp(u));
    return data((theta * theta) / 18 + ((u - u0) * (u - u0)) / (2 * sd * sd));
  });
}
