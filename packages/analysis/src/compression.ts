import { familyOfLayout, type ModelName, type ResponseBank } from '@llm-nrm/core';
import { calibratedLlmFolds, heldOutThetas, joinFoldParts } from './calibratedLlmFolds.js';
import type { ExperimentFitOptions, FitFn } from './internal/fitting.js';
import { columnsOfItems } from './internal/masks.js';
import { foldTinyRun, thetaAlone, tinyColumns } from './internal/tinyRunScoring.js';
import { kendallTau } from './kendallTau.js';
import type { ModelSpec } from './modelSpec.js';
import { selectForRange } from './selectForRange.js';
import { selectItems } from './selectItems.js';
import { unflaggedItems } from './unflaggedItems.js';

export interface CompressionPoint {
  budget: number;
  /** Kendall tau-b of held-out thetas from the selected items vs from all items, pooled over folds. */
  kendall: number;
  /** The same for a random selection of the same size (seeded), as a baseline: the mean over `randomDraws` draws (NaN without the baseline). */
  kendallRandom: number;
  /** Mean over folds of the per-fold Kendall tau (NaN for folds with < 2 LLMs). */
  kendallFoldMean: number;
  /** Selected item ids per fold. */
  selected: string[][];
}

export interface Compression {
  model: ModelName;
  scoring: CompressionScoring;
  folds: number;
  seed: number;
  /** Random selections per fold and budget behind each `kendallRandom` (0 without the baseline). */
  randomDraws: number;
  points: CompressionPoint[];
  /** Reference held-out thetas (all items), per LLM. */
  full: Float64Array;
  /** Held-out thetas per budget (same order as points), per LLM. */
  thetas: Float64Array[];
}

/**
 * How held-out LLMs are scored from a tiny test: 'tiny-run' (the default; `llm-nrm score`'s rule
 * for a tiny package run), or one of the study options 'fixed-items' and 'theta-only'.
 */
export type CompressionScoring = 'tiny-run' | 'fixed-items' | 'theta-only';

export interface CompressionOptions {
  /** Item budgets (default [10, 20, 41, 100, 200]). */
  budgets?: number[];
  model?: ModelName | ModelSpec;
  /** LLM folds (default 5). */
  folds?: number;
  seed?: number;
  /**
   * How held-out LLMs are scored from the selected items. 'tiny-run' (default): as `llm-nrm score`
   * scores a tiny package run: one presentation per item, theta and log sharpness fitted (sharpness
   * under the calibration's log-normal prior centred on the training fleet), position bias and
   * fallback under N(training fleet's mean, its variance) priors (core's `minimiseTinyRun`). Study options: 'fixed-items', core's fixed-item fit of
   * every per-LLM parameter on every presentation (binary models always score so), which collapses
   * on selected items (on a soft 25-LLM MMLU fleet Kendall 0.07 at 10 items vs 0.86 for random
   * ones: bias and fallback, free per LLM, absorb what a few sharp items say about theta); and
   * 'theta-only', every nuisance at the fleet's means, which loses on hard answers where LLMs'
   * sharpness differs and a fixed one mis-weights each answer (bench/tiny-fleets.mjs,
   * packages/analysis/BENCHMARKS.md). The reference is always the full-bank fixed-item fit (what
   * `score` gives a full run).
   */
  scoring?: CompressionScoring;
  /** Information used to rank items (see `selectItems`; default 'nrm'). */
  information?: 'nrm' | 'llm';
  /**
   * 'range' (default): `selectForRange` (expected log test information over the training LLMs'
   * abilities; nested budgets are its greedy prefix), flagged items left out as `publish` leaves
   * them out, so the study measures the items a package would ship; 'information': the n items of
   * highest average information (`selectItems`), which pile up at one ability level.
   */
  selection?: 'range' | 'information';
  /** Also run the random-selection baseline (default true). */
  random?: boolean;
  /**
   * Random selections per fold and budget, their Kendall taus averaged (default 5; seeded from
   * `seed`). One draw is a noisy baseline: on NAEP at 20 items one draw gave 0.791 and the mean of
   * five 0.728.
   */
  randomDraws?: number;
  fitOptions?: ExperimentFitOptions;
  onProgress?: (msg: string) => void;
  fit?: FitFn;
}

/**
 * What `compressionFolds` found on the folds it ran, before the statistics: per LLM (NaN outside
 * those folds) the reference and budget thetas, and per budget and fold the selection and Kendall
 * tau (undefined / NaN for folds not run). `compressionOf` joins the parts of every fold.
 */
export interface CompressionFoldParts {
  folds: number[];
  full: Float64Array;
  /** [budget][LLM] */
  thetas: Float64Array[];
  /** [budget][draw][LLM] */
  thetasRandom: Float64Array[][];
  /** [budget][fold] */
  selected: (string[] | undefined)[][];
  /** [budget][fold] */
  foldTau: number[][];
}

/**
 * Compression (paper.md, experiment 5 / Fig. 3a). LLMs are split into folds; per fold the items are
 * calibrated on the training LLMs, ranked by (NRM-component) information at the training LLMs' fitted
 * abilities (`selectItems`, 'fitted'; `information: 'llm'` for the full per-LLM information), and each held-out LLM is scored (every presentation of a
 * selected item) from the top-n items only. Kendall tau-b against the held-out LLMs' thetas from all
 * items (the full-bank ranking under the same calibration).
 */
export function compression(bank: ResponseBank, options: CompressionOptions = {}): Compression {
  return compressionOf(bank, options, [compressionFolds(bank, options)]);
}

function compressionSpec(options: CompressionOptions): ModelSpec {
  return typeof options.model === 'object' ? options.model : { name: options.model ?? 'llm-nrm', model: options.model ?? 'llm-nrm' };
}

const DEFAULT_BUDGETS = [10, 20, 41, 100, 200];

/**
 * `compression` on the folds in `only` (default all): each fold's calibration, selection and scores
 * depend on the seed and its index alone, so folds run apart (the CLI's worker threads) and joined
 * by `compressionOf` give what one `compression` run gives.
 */
export function compressionFolds(bank: ResponseBank, options: CompressionOptions & { only?: ReadonlySet<number> } = {}): CompressionFoldParts {
  const budgets = options.budgets ?? DEFAULT_BUDGETS;
  const k = options.folds ?? 5;
  const seed = options.seed ?? 1;
  const spec = compressionSpec(options);
  const say = options.onProgress ?? (() => {});
  const J = bank.models.length;
  const I = bank.items.length;
  const full = new Float64Array(J).fill(NaN);
  const thetas = budgets.map(() => new Float64Array(J).fill(NaN));
  const draws = Math.max(1, Math.floor(options.randomDraws ?? 5));
  const thetasRandom = budgets.map(() => Array.from({ length: draws }, () => new Float64Array(J).fill(NaN)));
  const selected: (string[] | undefined)[][] = budgets.map(() => new Array<string[] | undefined>(k).fill(undefined));
  const foldTau: number[][] = budgets.map(() => new Array<number>(k).fill(NaN));
  const ran: number[] = [];
  const doRandom = options.random ?? true;
  for (const fold of calibratedLlmFolds(bank, spec, {
    folds: k,
    seed,
    ...(options.fitOptions ? { fitOptions: options.fitOptions } : {}),
    ...(options.fit ? { fit: options.fit } : {}),
    ...(options.only ? { only: options.only } : {}),
    onProgress: say,
    label: 'compression fold',
    randomDraws: draws,
  })) {
    const { calib, trainRows, trainList, heldList, perms } = fold;
    const f = fold.index;
    ran.push(f);
    const mode = options.scoring ?? 'tiny-run';
    const family = familyOfLayout(calib.layout);
    // Theta-only and tiny-run scoring hold nuisances at the fleet's: families without any score by refitting.
    const held = mode !== 'fixed-items' && family.kind === 'option-level';
    // Tiny-run scoring: sharpness under a prior centred on the training LLMs' mean, bias and
    // fallback under their spread (core's minimiseTinyRun); theta-only reads its nuisances.
    const tiny = held ? foldTinyRun(bank, calib, trainRows, trainList) : null;
    const xs = tiny?.xs ?? calib.x;
    const allCols = new Uint8Array(bank.colItem.length).fill(1);
    const fixedItems = (cols: Uint8Array, into: Float64Array): void => {
      const t = heldOutThetas(bank, fold, spec, cols, options.fitOptions, options.fit);
      for (const j of heldList) into[j] = t[j]!;
    };
    // Thetas of the held-out LLMs from the items picked in `pick` (a mask over items).
    const score = (pick: Uint8Array, into: Float64Array): void => {
      if (held && mode === 'theta-only') {
        // Every nuisance at the fleet's; an N(0, 1) prior on theta (the calibration's scale).
        const cols = columnsOfItems(bank, pick);
        for (const j of heldList) into[j] = thetaAlone(bank, calib.layout, xs, j, cols, 1).theta;
        return;
      }
      if (held) {
        const items: number[] = [];
        pick.forEach((v, i) => v && items.push(i));
        const cols = tinyColumns(bank, items);
        for (const j of heldList) {
          into[j] = tiny!.score(j, cols).theta;
        }
        return;
      }
      fixedItems(columnsOfItems(bank, pick), into);
    };
    fixedItems(allCols, full);
    // Flagged items left out as `publish` leaves them out (computed once: the budget cap and the
    // selection); budgets beyond the items left take all of those.
    const flags = unflaggedItems(bank, calib.layout, calib.x);
    const maxBudget = Math.min(I - flags.leftOut.length, Math.max(...budgets));
    const ranked =
      (options.selection ?? 'range') === 'range'
        ? (() => {
            const r = selectForRange(bank, calib.layout, calib.x, maxBudget, { rows: trainList, eligible: flags.eligible, includeFlagged: true });
            return { items: r.forms[0]!, ids: r.ids[0]! };
          })()
        : selectItems(bank, calib.layout, calib.x, I, { rows: trainList, information: options.information ?? 'nrm' });
    budgets.forEach((n, b) => {
      say(`compression fold ${f + 1}/${k}: ${n} items`);
      const pick = new Uint8Array(I);
      for (let t = 0; t < Math.min(n, ranked.items.length); t++) pick[ranked.items[t]!] = 1;
      selected[b]![f] = ranked.ids.slice(0, Math.min(n, ranked.items.length));
      score(pick, thetas[b]!);
      foldTau[b]![f] = kendallTau(
        heldList.map((j) => thetas[b]![j]!),
        heldList.map((j) => full[j]!),
      );
      if (doRandom) {
        perms.forEach((pm, d) => {
          const rpick = new Uint8Array(I);
          for (let t = 0; t < Math.min(n, I); t++) rpick[pm[t]!] = 1;
          score(rpick, thetasRandom[b]![d]!);
        });
      }
    });
  }
  return { folds: ran, full, thetas, thetasRandom, selected, foldTau };
}

/**
 * The compression study from the parts of its folds (`compressionFolds`, one part or one per
 * worker; every fold once), with the options they ran under: each LLM's thetas from the part that
 * ran its fold, selections and per-fold taus in fold order.
 */
export function compressionOf(bank: ResponseBank, options: CompressionOptions, parts: readonly CompressionFoldParts[]): Compression {
  const budgets = options.budgets ?? DEFAULT_BUDGETS;
  const k = options.folds ?? 5;
  const seed = options.seed ?? 1;
  const draws = Math.max(1, Math.floor(options.randomDraws ?? 5));
  const doRandom = options.random ?? true;
  const { partOf, pick } = joinFoldParts(parts, bank.models.length, k, seed);
  const full = pick((p) => p.full);
  const thetas = budgets.map((_, b) => pick((p) => p.thetas[b]!));
  const points: CompressionPoint[] = budgets.map((n, b) => {
    const ft: number[] = [];
    const selected: string[][] = [];
    for (let f = 0; f < k; f++) {
      const p = partOf[f];
      if (p === undefined) continue;
      if (!Number.isNaN(p.foldTau[b]![f]!)) ft.push(p.foldTau[b]![f]!);
      selected.push(p.selected[b]![f]!);
    }
    let random = 0;
    if (doRandom)
      for (let d = 0; d < draws; d++)
        random += kendallTau(
          pick((p) => p.thetasRandom[b]![d]!),
          full,
        );
    return {
      budget: n,
      kendall: kendallTau(thetas[b]!, full),
      kendallRandom: doRandom ? random / draws : NaN,
      kendallFoldMean: ft.length ? ft.reduce((s, v) => s + v, 0) / ft.length : NaN,
      selected,
    };
  });
  return {
    model: compressionSpec(options).model,
    scoring: options.scoring ?? 'tiny-run',
    folds: k,
    seed,
    randomDraws: doRandom ? draws : 0,
    points,
    full,
    thetas,
  };
}
