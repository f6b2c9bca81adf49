import { LlmNrmError, familyOfLayout, randomSource, type ResponseBank } from '@llm-nrm/core';
import { poolFromLayout } from './adaptivePool.js';
import { ADAPTIVE_DEFAULTS } from './adaptiveStep.js';
import { calibratedLlmFolds, heldOutThetas, joinFoldParts } from './calibratedLlmFolds.js';
import type { ExperimentFitOptions, FitFn } from './internal/fitting.js';
import { meanLogSharpness } from './internal/meanLogSharpness.js';
import { randomPermutation } from './internal/randomPermutation.js';
import { foldTinyRun, tinyColumns } from './internal/tinyRunScoring.js';
import { kendallTau } from './kendallTau.js';
import { nextAdaptiveItems } from './nextAdaptiveItems.js';
import { selectForRange } from './selectForRange.js';
import { unflaggedItems } from './unflaggedItems.js';

export interface AdaptiveStudyOptions {
  /** Fixed lengths of the adaptive runs (default [10, 20, 41]). */
  budgets?: number[];
  /** LLM folds (default 5). */
  folds?: number;
  seed?: number;
  /** Items per round (default 4; rounds also end at each budget). */
  batch?: number;
  /** SE target of the SE-stopped runs (default 0.3), with their minimum and maximum lengths. */
  se?: number;
  minItems?: number;
  maxItems?: number;
  randomesque?: number;
  balance?: boolean;
  /** Random item draws per held-out LLM and budget (default 5). */
  randomDraws?: number;
  fitOptions?: ExperimentFitOptions;
  fit?: FitFn;
  onProgress?: (msg: string) => void;
}

/** What tests of one length give, pooled over the folds' held-out LLMs. */
export interface AdaptivePoint {
  budget: number;
  /** Kendall tau-b of the adaptive runs' thetas against the held-out LLMs' full-bank thetas. */
  kendall: number;
  /** The same for the static tiny benchmark of this length (`selectForRange` on the fold's calibration). */
  kendallStatic: number;
  /** The mean over `randomDraws` random item draws of this length. */
  kendallRandom: number;
  /** Root mean square of adaptive theta minus full-bank theta. */
  thetaRmse: number;
  thetaRmseStatic: number;
  thetaRmseRandom: number;
  /** Mean items answered (below `budget` only for LLMs that answered fewer items in all). */
  meanItems: number;
  /** Share of held-out LLMs whose full-bank theta lies in the adaptive run's 95% interval (theta +/- 1.96 SE). */
  coverage95: number;
  /** Per LLM (bank order): the adaptive run's theta and SE at this length. */
  thetas: Float64Array;
  ses: Float64Array;
}

/** The SE-stopped runs: stop at SE <= `se` after `minItems`, or at `maxItems`. */
export interface AdaptiveSePoint {
  se: number;
  minItems: number;
  maxItems: number;
  kendall: number;
  thetaRmse: number;
  meanItems: number;
  /** Fewest and most items a run took. */
  items: [number, number];
  /** Share of runs that stopped by their SE (the rest ran to `maxItems` or out of items). */
  stoppedBySe: number;
  coverage95: number;
}

export interface AdaptiveStudy {
  folds: number;
  seed: number;
  batch: number;
  points: AdaptivePoint[];
  seStop: AdaptiveSePoint;
  /** Per LLM (bank order): the full-bank theta of its held-out fold, and its SE-stopped run's estimate, SE and length. */
  full: Float64Array;
  seRuns: { theta: number; se: number; items: number; stop: 'se' | 'max-items' | 'pool' }[];
}

/**
 * What `adaptiveStudyFolds` found on the folds it ran (per LLM, NaN outside them), before the
 * statistics; `adaptiveStudyOf` joins the parts of every fold.
 */
export interface AdaptiveStudyFoldParts {
  folds: number[];
  full: Float64Array;
  /** [budget]: the adaptive runs' theta, SE and items per LLM at that length. */
  at: { theta: Float64Array; se: Float64Array; items: Float64Array }[];
  /** [budget][LLM] */
  statics: Float64Array[];
  /** [budget][draw][LLM] */
  randoms: Float64Array[][];
  seRuns: AdaptiveStudy['seRuns'];
}

const rmse = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let s = 0;
  let n = 0;
  for (let t = 0; t < a.length; t++) {
    if (!Number.isFinite(a[t]!) || !Number.isFinite(b[t]!)) continue;
    s += (a[t]! - b[t]!) ** 2;
    n++;
  }
  return n > 0 ? Math.sqrt(s / n) : NaN;
};

/**
 * The adaptive test replayed on held-out LLMs (issue 29): LLMs split into folds, each fold
 * calibrated on the rest (LLM-NRM); every held-out LLM answers, from its recorded responses, the
 * items an adaptive run asks (one presentation each, scored by the tiny-run rule after each round:
 * the estimate the next round is chosen at), compared with its full-bank theta (every item, every
 * presentation, the fold's calibration: compression's reference), with the static tiny benchmark
 * of the same length (range selection) and with random items. Fixed-length runs are one run read
 * at each budget (selection does not depend on the length to come, and rounds end at each budget),
 * the SE-stopped run continues it to its own stop.
 */
export function adaptiveStudy(bank: ResponseBank, options: AdaptiveStudyOptions = {}): AdaptiveStudy {
  return adaptiveStudyOf(bank, options, [adaptiveStudyFolds(bank, options)]);
}

/** The study's settings with their defaults (budgets in increasing order). */
function studySettings(options: AdaptiveStudyOptions) {
  return {
    budgets: [...(options.budgets ?? [10, 20, 41])].sort((x, y) => x - y),
    k: options.folds ?? 5,
    seed: options.seed ?? 1,
    batch: Math.max(1, Math.floor(options.batch ?? ADAPTIVE_DEFAULTS.batch)),
    seTarget: options.se ?? ADAPTIVE_DEFAULTS.se,
    minItems: options.minItems ?? ADAPTIVE_DEFAULTS.minItems,
    maxItems: options.maxItems ?? ADAPTIVE_DEFAULTS.maxItems,
    draws: Math.max(1, Math.floor(options.randomDraws ?? 5)),
  };
}

/**
 * `adaptiveStudy` on the folds in `only` (default all): a fold's calibration, runs and random draws
 * depend on the seed and its index alone (the draws of the folds before it are drawn and dropped),
 * so folds run apart (the CLI's worker threads) and joined by `adaptiveStudyOf` give what one
 * `adaptiveStudy` run gives.
 */
export function adaptiveStudyFolds(bank: ResponseBank, options: AdaptiveStudyOptions & { only?: ReadonlySet<number> } = {}): AdaptiveStudyFoldParts {
  const { budgets, k, seed, batch, seTarget, minItems, maxItems, draws } = studySettings(options);
  const say = options.onProgress ?? (() => {});
  const J = bank.models.length;
  const I = bank.items.length;
  const nC = bank.colItem.length;
  const full = new Float64Array(J).fill(NaN);
  const at = budgets.map(() => ({ theta: new Float64Array(J).fill(NaN), se: new Float64Array(J).fill(NaN), items: new Float64Array(J).fill(NaN) }));
  const statics = budgets.map(() => new Float64Array(J).fill(NaN));
  const randoms = budgets.map(() => Array.from({ length: draws }, () => new Float64Array(J).fill(NaN)));
  const seRuns: AdaptiveStudy['seRuns'] = Array.from({ length: J }, () => ({ theta: NaN, se: NaN, items: 0, stop: 'pool' as const }));
  const drawRng = randomSource(seed + 65537);
  // The random draws' stream runs over the folds in order: a fold run alone first draws (and drops) those of the folds before it.
  let drawnFolds = 0;
  const ran: number[] = [];
  const spec = { name: 'llm-nrm', model: 'llm-nrm' as const };
  const last = Math.max(budgets[budgets.length - 1] ?? 0, maxItems);
  for (const fold of calibratedLlmFolds(bank, spec, {
    folds: k,
    seed,
    ...(options.fitOptions ? { fitOptions: options.fitOptions } : {}),
    ...(options.fit ? { fit: options.fit } : {}),
    onProgress: say,
    label: 'adaptive fold',
    ...(options.only ? { only: options.only } : {}),
  })) {
    for (; drawnFolds < fold.index; drawnFolds++) for (let d = 1; d < draws; d++) randomPermutation(I, drawRng);
    drawnFolds++;
    ran.push(fold.index);
    const { calib, trainRows, trainList, heldList } = fold;
    const L = calib.layout;
    if (familyOfLayout(L).kind !== 'option-level') throw new LlmNrmError('INVALID_OPTION', 'the adaptive study needs an option-level calibration');
    const tiny = foldTinyRun(bank, calib, trainRows, trainList);
    const u0 = meanLogSharpness(calib, trainList);
    const score = (j: number, items: ArrayLike<number>) => tiny.score(j, tinyColumns(bank, items));
    const fullFold = heldOutThetas(bank, fold, spec, undefined, options.fitOptions, options.fit);
    for (const j of heldList) full[j] = fullFold[j]!;
    const pool = poolFromLayout(bank, L, calib.x);
    // The pool as `publish --adaptive` ships it and the static tiny test as `publish` selects it: flagged items left out.
    const flags = unflaggedItems(bank, L, calib.x);
    const ranked = selectForRange(bank, L, calib.x, Math.min(I - flags.leftOut.length, budgets[budgets.length - 1] ?? 0), {
      rows: trainList,
      eligible: flags.eligible,
      includeFlagged: true,
    }).forms[0]!;
    say(`adaptive fold ${fold.index + 1}/${fold.of}: ${heldList.length} held-out LLMs`);
    for (const j of heldList) {
      // Items this LLM answered (a replay can only ask those).
      const available = new Uint8Array(I);
      for (let c = 0; c < nC; c++) if (bank.observed[j * nC + c] && flags.eligible[bank.colItem[c]!]) available[bank.colItem[c]!] = 1;
      const asked = new Uint8Array(I);
      const order: number[] = [];
      let est = { theta: 0, se: 3, u: u0 };
      let b = 0;
      let seDone = false;
      while (order.length < last) {
        const nextStop = b < budgets.length ? Math.min(budgets[b]!, last) : last;
        const want = Math.min(batch, nextStop - order.length);
        const got = nextAdaptiveItems(
          pool,
          asked,
          est.theta,
          Math.exp(est.u),
          want,
          {
            ...(options.randomesque !== undefined ? { randomesque: options.randomesque } : {}),
            ...(options.balance !== undefined ? { balance: options.balance } : {}),
            seed,
          },
          available,
        );
        for (const i of got) {
          asked[i] = 1;
          order.push(i);
        }
        const ranOut = got.length < want;
        if (got.length > 0) est = score(j, order);
        while (b < budgets.length && (order.length >= budgets[b]! || ranOut)) {
          at[b]!.theta[j] = est.theta;
          at[b]!.se[j] = est.se;
          at[b]!.items[j] = order.length;
          b++;
        }
        if (!seDone) {
          const stop = order.length >= maxItems ? 'max-items' : order.length >= minItems && est.se <= seTarget ? 'se' : ranOut ? 'pool' : null;
          if (stop !== null) {
            seRuns[j] = { theta: est.theta, se: est.se, items: order.length, stop };
            seDone = true;
          }
        }
        if (ranOut || (seDone && b >= budgets.length)) break;
      }
      budgets.forEach((n, t) => {
        statics[t]![j] = score(j, ranked.subarray(0, Math.min(n, ranked.length))).theta;
      });
    }
    // Random draws: per draw a permutation of the items, its prefixes the budgets.
    for (let d = 0; d < draws; d++) {
      const perm = d === 0 ? fold.perm : randomPermutation(I, drawRng);
      budgets.forEach((n, t) => {
        const items = perm.subarray(0, Math.min(n, I));
        for (const j of heldList) randoms[t]![d]![j] = score(j, items).theta;
      });
    }
  }
  return { folds: ran, full, at, statics, randoms, seRuns };
}

/**
 * The adaptive study from the parts of its folds (`adaptiveStudyFolds`, one part or one per worker;
 * every fold once), with the options they ran under: each LLM's results from the part that ran its fold.
 */
export function adaptiveStudyOf(bank: ResponseBank, options: AdaptiveStudyOptions, parts: readonly AdaptiveStudyFoldParts[]): AdaptiveStudy {
  const { budgets, k, seed, batch, seTarget, minItems, maxItems, draws } = studySettings(options);
  const J = bank.models.length;
  const { fold, partOf, pick } = joinFoldParts(parts, J, k, seed);
  const full = pick((p) => p.full);
  const at = budgets.map((_, b) => ({ theta: pick((p) => p.at[b]!.theta), se: pick((p) => p.at[b]!.se), items: pick((p) => p.at[b]!.items) }));
  const statics = budgets.map((_, b) => pick((p) => p.statics[b]!));
  const randoms = budgets.map((_, b) => Array.from({ length: draws }, (_, d) => pick((p) => p.randoms[b]![d]!)));
  const seRuns: AdaptiveStudy['seRuns'] = Array.from(fold, (f, j) => partOf[f]?.seRuns[j] ?? { theta: NaN, se: NaN, items: 0, stop: 'pool' as const });
  const points: AdaptivePoint[] = budgets.map((n, t) => {
    const { theta, se, items } = at[t]!;
    let cover = 0;
    let counted = 0;
    let sumItems = 0;
    for (let j = 0; j < J; j++) {
      if (!Number.isFinite(theta[j]!) || !Number.isFinite(full[j]!)) continue;
      counted++;
      sumItems += items[j]!;
      if (Math.abs(theta[j]! - full[j]!) <= 1.96 * se[j]!) cover++;
    }
    return {
      budget: n,
      kendall: kendallTau(theta, full),
      kendallStatic: kendallTau(statics[t]!, full),
      kendallRandom: randoms[t]!.reduce((s, r) => s + kendallTau(r, full), 0) / draws,
      thetaRmse: rmse(theta, full),
      thetaRmseStatic: rmse(statics[t]!, full),
      thetaRmseRandom: randoms[t]!.reduce((s, r) => s + rmse(r, full), 0) / draws,
      meanItems: counted > 0 ? sumItems / counted : NaN,
      coverage95: counted > 0 ? cover / counted : NaN,
      thetas: theta,
      ses: se,
    };
  });
  const runs = seRuns.filter((r, j) => Number.isFinite(r.theta) && Number.isFinite(full[j]!));
  const seTheta = Float64Array.from(seRuns, (r) => r.theta);
  let cover = 0;
  seRuns.forEach((r, j) => {
    if (Number.isFinite(r.theta) && Number.isFinite(full[j]!) && Math.abs(r.theta - full[j]!) <= 1.96 * r.se) cover++;
  });
  const seStop: AdaptiveSePoint = {
    se: seTarget,
    minItems,
    maxItems,
    kendall: kendallTau(seTheta, full),
    thetaRmse: rmse(seTheta, full),
    meanItems: runs.length ? runs.reduce((s, r) => s + r.items, 0) / runs.length : NaN,
    items: runs.length ? [Math.min(...runs.map((r) => r.items)), Math.max(...runs.map((r) => r.items))] : [0, 0],
    stoppedBySe: runs.length ? runs.filter((r) => r.stop === 'se').length / runs.length : NaN,
    coverage95: runs.length ? cover / runs.length : NaN,
  };
  return { folds: k, seed, batch, points, seStop, full, seRuns };
}
