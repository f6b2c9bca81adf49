import type { ResponseBank } from '../data/bank.js';
import type { CalibrationBundle } from '../data/bundleFormat.js';
import { familyOfLayout } from '../model/registry.js';
import type { Layout } from '../model/layout.js';
import { softplusInv } from '../model/layout.js';
import { predictor } from '../model/predict.js';
import { minimiseTheta } from './minimiseTheta.js';
import { minimiseTinyRun, nuisancePrior } from './minimiseTinyRun.js';

/** Smallest probability a log takes in the scoring likelihood (the same floor the exported Python uses). */
export const SCORE_P_FLOOR = 1e-300;
const LOG_SCORE_P_FLOOR = Math.log(SCORE_P_FLOOR);

/**
 * The fleet's typical nuisance parameters: mean pre-softplus sharpness, mean position bias and
 * mean fallback over the bundle's calibrated LLMs (the centre the calibration's priors leave them at),
 * and the variances of bias and fallback over them (a tiny run's priors: `minimiseTinyRun`).
 */
export function fleetNuisance(bundle: CalibrationBundle): {
  sbar: number;
  delta: number[];
  rho: number[];
  logSharpness: number;
  deltaVar: number[];
  rhoVar: number[];
} {
  const n = bundle.llms.length;
  const K = bundle.kMax;
  const delta = new Array<number>(K).fill(0);
  const rho = new Array<number>(K).fill(0);
  let sbar = 0;
  let logS = 0;
  for (const l of bundle.llms) {
    sbar += softplusInv(Math.max(l.sharpness, 1e-12));
    logS += Math.log(Math.max(l.sharpness, 1e-12));
    for (let k = 0; k < K; k++) {
      delta[k]! += l.positionBias[k] ?? 0;
      rho[k]! += l.fallback[k] ?? 0;
    }
  }
  const d = Math.max(1, n);
  const spread = nuisancePrior(bundle.llms, K);
  return {
    sbar: n > 0 ? sbar / d : softplusInv(1),
    delta: delta.map((v) => v / d),
    rho: rho.map((v) => v / d),
    logSharpness: logS / d,
    deltaVar: spread.deltaVar,
    rhoVar: spread.rhoVar,
  };
}

/**
 * LLM j's cross-entropy under x: -sum_c sum_k q_k log p_k over its observed columns (those with
 * cols[c] = 1 when `cols` is given), each p floored at SCORE_P_FLOOR, accumulated onto `prior` (the
 * caller's prior term, in this order). The predictor reads x live: callers move theta (and
 * sharpness) in x between calls. The one likelihood of scoring an LLM with its items fixed (here,
 * and analysis' tiny-run and held-out scorers).
 */
export function llmCrossEntropy(bank: ResponseBank, layout: Layout, x: Float64Array, j: number, cols?: ArrayLike<number>): (prior: number) => number {
  const pred = predictor(bank, layout, x);
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC]!;
  const list: number[] = [];
  for (let c = 0; c < nC; c++) if (bank.observed[j * nC + c] && (cols === undefined || cols[c])) list.push(c);
  const p = new Float64Array(bank.kMax);
  const logits = pred.logits;
  const { colOffsets, q: targets } = bank;
  if (logits !== null) {
    // Option-level: log p_k = v_k - logsumexp(v), one log a cell instead of one an option (the
    // scorers call this thousands of times a run); the floor on p is a floor on log p.
    return (prior) => {
      let s = prior;
      for (const c of list) {
        const K = colOffsets[c + 1]! - colOffsets[c]!;
        const qo = j * width + colOffsets[c]!;
        logits(j, c, p);
        let m = -Infinity;
        let top = 0;
        for (let k = 0; k < K; k++)
          if (p[k]! > m) {
            m = p[k]!;
            top = k;
          }
        // exp(p_top - m) is exp(0) = 1 exactly: one exp a cell fewer, the same sum to the bit.
        let z = 0;
        for (let k = 0; k < K; k++) z += k === top ? 1 : Math.exp(p[k]! - m);
        const lse = m + Math.log(z);
        for (let k = 0; k < K; k++) {
          const q = targets[qo + k]!;
          if (q > 0) s -= q * Math.max(p[k]! - lse, LOG_SCORE_P_FLOOR);
        }
      }
      return s;
    };
  }
  return (prior) => {
    let s = prior;
    for (const c of list) {
      const K = bank.colOffsets[c + 1]! - bank.colOffsets[c]!;
      const qo = j * width + bank.colOffsets[c]!;
      pred.cell(j, c, p);
      for (let k = 0; k < K; k++) {
        const q = bank.q[qo + k]!;
        if (q > 0) s -= q * Math.log(Math.max(p[k]!, SCORE_P_FLOOR));
      }
    }
    return s;
  };
}

/**
 * Negative log posterior of theta for LLM j with everything else fixed: -sum_c sum_k q_k log p_k
 * over its observed cells, plus theta^2 / (2 sd^2).
 */
function objective(bank: ResponseBank, layout: Layout, x: Float64Array, j: number, thetaSd: number): (theta: number, u?: number) => number {
  const family = familyOfLayout(layout);
  const data = llmCrossEntropy(bank, layout, x, j);
  return (theta, u) => {
    x[layout.theta + j] = theta;
    // u: log-sharpness, when sharpness is scored too (its prior is added by the caller).
    if (u !== undefined && family.kind === 'option-level') family.setSharpness(layout, x, j, Math.exp(u));
    return data((theta * theta) / (2 * thetaSd * thetaSd));
  };
}

/**
 * Theta of LLM j alone, its sharpness, bias and fallback held at the fleet's (`fleetNuisance`),
 * or (`withSharpness`) theta and sharpness fitted with bias and fallback under the fleet's spread
 * (`minimiseTinyRun`; `hardOnly`: j's every answer is hard, `hardOnlyRow`, so sharpness stays 1); items
 * and globals at the bundle's; `x` is the bundle's parameters laid out for `bank` and is modified in
 * LLM j's slots.
 */
export function scoreThetaAlone(
  bank: ResponseBank,
  layout: Layout,
  x: Float64Array,
  j: number,
  bundle: CalibrationBundle,
  thetaSd: number,
  withSharpness = false,
  hardOnly = false,
): { theta: number; se: number; sharpness?: number; loss: number } {
  const family = familyOfLayout(layout);
  const fleet = fleetNuisance(bundle);
  if (family.kind === 'option-level') family.holdNuisance(layout, x, j, fleet);
  const f = objective(bank, layout, x, j, thetaSd);
  if (withSharpness && family.kind === 'option-level' && family.parts.sharpness) {
    // log s ~ N(mean log s of the fleet, sd^2): the calibration's sharpness prior, centred on the fleet;
    // bias and fallback under the fleet's spread (`minimiseTinyRun`); a run of only hard answers
    // keeps sharpness 1 (`HARD_RUN_U`).
    const u0 = fleet.logSharpness;
    const sd = bundle.priors?.sharpnessSd ?? 0.5;
    const delta = family.parts.position ? [...fleet.delta] : null;
    const rho = family.parts.fallback ? [...fleet.rho] : null;
    const hold = { sbar: fleet.sbar, delta: delta ?? fleet.delta, rho: rho ?? fleet.rho };
    const r = minimiseTinyRun(
      (t, u) => {
        family.holdNuisance(layout, x, j, hold);
        return f(t, u) + ((u - u0) * (u - u0)) / (2 * sd * sd);
      },
      delta,
      rho,
      fleet,
      hardOnly,
    );
    family.holdNuisance(layout, x, j, hold);
    x[layout.theta + j] = r.theta;
    family.setSharpness(layout, x, j, Math.exp(r.u));
    return { theta: r.theta, se: r.se, sharpness: Math.exp(r.u), loss: r.loss };
  }
  const r = minimiseTheta((t) => f(t));
  // f leaves x at its last argument (the SE's second difference): evaluate at the optimum last.
  return { ...r, loss: f(r.theta) };
}
