import { familyOfLayout, softplusInv, type Layout, type ResponseBank } from '@llm-nrm/core';
import type { FitLike } from './fitting.js';
import { meanLogSharpness } from './meanLogSharpness.js';
import { neutralLlms } from './neutralLlms.js';
import { hardOnlyRow, llmCrossEntropy, minimiseTheta, minimiseTinyRun, nuisancePrior, type NuisancePrior } from '@llm-nrm/core/engine';

/*
 * The one scoring rule of a tiny run (issue 30), shared by `compression` (evaluate --compression),
 * the tiny-benchmark study and, through core's `scoreResponses` with nuisance 'sharpness', by
 * `llm-nrm score <package>` and the exported lm-eval aggregation: theta (N(0, 3^2) prior), log
 * sharpness (N(fleet mean, 0.5^2) prior), position bias and fallback (N(fleet mean, fleet variance)
 * priors per coordinate: core's `minimiseTinyRun`) fitted, one presentation per item.
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

/** Chance accuracy of a tiny run on the columns in `cols` (all where absent): the mean of 1/K over them. */
export function chanceOn(bank: ResponseBank, cols?: Uint8Array): number {
  const nC = bank.colItem.length;
  let s = 0;
  let n = 0;
  for (let c = 0; c < nC; c++) {
    if (cols && !cols[c]) continue;
    s += 1 / (bank.colOffsets[c + 1]! - bank.colOffsets[c]!);
    n++;
  }
  return s / Math.max(1, n);
}

/**
 * Theta alone of held-out LLM j from the columns in `cols`, nuisances as in `xs` (the training
 * fleet's means), under an N(0, thetaSd^2) prior: 3 as `scoreResponses` (default), 1 for the
 * study's 'theta-only' scoring.
 */
export function thetaAlone(bank: ResponseBank, layout: Layout, xs: Float64Array, j: number, cols: Uint8Array, thetaSd = 3): { theta: number; se: number } {
  const data = llmCrossEntropy(bank, layout, xs, j, cols);
  const w = 2 * thetaSd * thetaSd;
  return minimiseTheta((theta) => {
    xs[layout.theta + j] = theta;
    return data((theta * theta) / w);
  });
}

/** The training fleet's bias and fallback priors (core's `nuisancePrior` over the LLMs `rows` of a calibration). */
export function fleetNuisancePrior(layout: Layout, x: Float64Array, rows: readonly number[]): NuisancePrior {
  const family = familyOfLayout(layout);
  const K = family.kind === 'option-level' ? family.bundleLlm(layout, x, 0).positionBias.length : 0;
  return nuisancePrior(
    rows.map((j) => family.bundleLlm(layout, x, j)),
    K,
  );
}

/**
 * Theta and log-sharpness u of held-out LLM j (prior u ~ N(u0, sd^2)), its bias and fallback under
 * `prior` (core's `minimiseTinyRun`); `xs` carries the fleet's nuisances in j's slots and is left so.
 * A run whose every answer (in `cols`) is hard keeps sharpness 1, as core's scoring (`HARD_RUN_U`).
 */
export function thetaSharp(
  bank: ResponseBank,
  layout: Layout,
  xs: Float64Array,
  j: number,
  cols: Uint8Array,
  u0: number,
  sd: number,
  prior: NuisancePrior,
): { theta: number; se: number; u: number; hard: boolean } {
  const family = familyOfLayout(layout);
  const hard = hardOnlyRow(bank, j, cols);
  if (family.kind !== 'option-level') return { ...thetaAlone(bank, layout, xs, j, cols), u: 0, hard };
  const sj = family.sharpnessIndex(layout, j);
  const data = llmCrossEntropy(bank, layout, xs, j, cols);
  const keep = xs.slice();
  const own = family.bundleLlm(layout, xs, j);
  const delta = family.parts.position ? [...prior.delta] : null;
  const rho = family.parts.fallback ? [...prior.rho] : null;
  const hold = { sbar: xs[sj]!, delta: delta ?? own.positionBias, rho: rho ?? own.fallback };
  const r = minimiseTinyRun(
    (theta, u) => {
      family.holdNuisance(layout, xs, j, hold);
      xs[layout.theta + j] = theta;
      xs[sj] = softplusInv(Math.exp(u));
      return data((theta * theta) / 18 + ((u - u0) * (u - u0)) / (2 * sd * sd));
    },
    delta,
    rho,
    prior,
    hard,
  );
  xs.set(keep);
  return { ...r, hard };
}

/** SD of a tiny run's log-sharpness prior (the calibration's default `sharpnessSd`, as core's scoring). */
export const TINY_SHARPNESS_SD = 0.5;

/**
 * A fold's tiny-run scorer: LLMs scored against a calibration fitted on the training LLMs
 * (`trainRows`, listed in `trainList`), by `thetaSharp` with the training fleet's nuisances in the
 * scored rows (those not in training, or `setRows`), its mean log sharpness as the prior's centre
 * and its spread of bias and fallback as their priors. `xs`: the parameters it scores against.
 */
export function foldTinyRun(
  bank: ResponseBank,
  calib: FitLike,
  trainRows: Uint8Array,
  trainList: readonly number[],
  setRows?: Uint8Array,
): { xs: Float64Array; score: (j: number, cols: Uint8Array) => { theta: number; se: number; u: number; hard: boolean } } {
  const xs = neutralLlms(calib, trainRows, setRows);
  const u0 = meanLogSharpness(calib, trainList);
  const prior = fleetNuisancePrior(calib.layout, calib.x, trainList);
  return { xs, score: (j, cols) => thetaSharp(bank, calib.layout, xs, j, cols, u0, TINY_SHARPNESS_SD, prior) };
}
