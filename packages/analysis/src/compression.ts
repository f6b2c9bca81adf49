import { familyOfLayout, predictor, type ModelName, type ResponseBank } from '@llm-nrm/core';
import { calibratedLlmFolds, heldOutThetas } from './calibratedLlmFolds.js';
import type { ExperimentFitOptions, FitFn } from './internal/fitting.js';
import { columnsOfItems } from './internal/masks.js';
import { neutralLlms } from './internal/neutralLlms.js';
import { scoreThetaOnly } from './internal/scoreThetaOnly.js';
import { kendallTau } from './kendallTau.js';
import type { ModelSpec } from './modelSpec.js';
import { selectForRange } from './selectForRange.js';
import { selectItems } from './selectItems.js';

export interface CompressionPoint {
  budget: number;
  /** Kendall tau-b of held-out thetas from the selected items vs from all items, pooled over folds. */
  kendall: number;
  /** The same for a random selection of the same size (seeded), as a baseline. */
  kendallRandom: number;
  /** Mean over folds of the per-fold Kendall tau (NaN for folds with < 2 LLMs). */
  kendallFoldMean: number;
  /** Selected item ids per fold. */
  selected: string[][];
}

export interface Compression {
  model: ModelName;
  scoring: 'fixed-items' | 'theta-only';
  folds: number;
  seed: number;
  points: CompressionPoint[];
  /** Reference held-out thetas (all items), per LLM. */
  full: Float64Array;
  /** Held-out thetas per budget (same order as points), per LLM. */
  thetas: Float64Array[];
}

export interface CompressionOptions {
  /** Item budgets (default [10, 20, 41, 100, 200]). */
  budgets?: number[];
  model?: ModelName | ModelSpec;
  /** LLM folds (default 5). */
  folds?: number;
  seed?: number;
  /**
   * How held-out LLMs are scored, from all items (the reference) and from the selected ones alike:
   * 'fixed-items' (default): core's fixed-item fit of every per-LLM parameter (binary models always
   * use it); 'theta-only': a 1-D MAP of theta from the soft option likelihood with sharpness, bias
   * and fallback at the training LLMs' means. On a handful of items LLM-NRM's per-LLM nuisance
   * parameters are poorly identified and trade off against theta: on the NAEP fixture (18 LLMs)
   * 'fixed-items' gave Kendall -0.25 at 5-20 items (random items +0.7) and 'theta-only' +0.74 to
   * +0.86; on the simulated 189 x 2,000 fleet 'fixed-items' is better at every budget (0.86 vs 0.86
   * at 10 items, 0.92 vs 0.90 at 41, 0.99 vs 0.97 at 500).
   */
  scoring?: 'fixed-items' | 'theta-only';
  /** Information used to rank items (see `selectItems`; default 'nrm'). */
  information?: 'nrm' | 'llm';
  /**
   * 'range' (default): `selectForRange` (expected log test information over the training LLMs'
   * abilities; nested budgets are its greedy prefix); 'information': the n items of highest
   * average information (`selectItems`), which pile up at one ability level.
   */
  selection?: 'range' | 'information';
  /** Also run the random-selection baseline (default true). */
  random?: boolean;
  fitOptions?: ExperimentFitOptions;
  onProgress?: (msg: string) => void;
  fit?: FitFn;
}

/**
 * Compression (paper.md, experiment 5 / Fig. 3a). LLMs are split into folds; per fold the items are
 * calibrated on the training LLMs, ranked by (NRM-component) information at the training LLMs' fitted
 * abilities (`selectItems`, 'fitted'; `information: 'llm'` for the full per-LLM information), and each held-out LLM is scored (every presentation of a
 * selected item) from the top-n items only. Kendall tau-b against the held-out LLMs' thetas from all
 * items (the full-bank ranking under the same calibration).
 */
export function compression(bank: ResponseBank, options: CompressionOptions = {}): Compression {
  const budgets = options.budgets ?? [10, 20, 41, 100, 200];
  const k = options.folds ?? 5;
  const seed = options.seed ?? 1;
  const spec: ModelSpec = typeof options.model === 'object' ? options.model : { name: options.model ?? 'llm-nrm', model: options.model ?? 'llm-nrm' };
  const say = options.onProgress ?? (() => {});
  const J = bank.models.length;
  const I = bank.items.length;
  const full = new Float64Array(J).fill(NaN);
  const thetas = budgets.map(() => new Float64Array(J).fill(NaN));
  const thetasRandom = budgets.map(() => new Float64Array(J).fill(NaN));
  const selected: string[][][] = budgets.map(() => []);
  const foldTau: number[][] = budgets.map(() => []);
  const doRandom = options.random ?? true;
  for (const fold of calibratedLlmFolds(bank, spec, {
    folds: k,
    seed,
    ...(options.fitOptions ? { fitOptions: options.fitOptions } : {}),
    ...(options.fit ? { fit: options.fit } : {}),
    onProgress: say,
    label: 'compression fold',
  })) {
    const { calib, trainRows, trainList, heldList, perm } = fold;
    const f = fold.index;
    // Theta-only scoring holds the nuisance at the fleet's: families without any score by refitting.
    const thetaOnly = options.scoring === 'theta-only' && familyOfLayout(calib.layout).holdNuisance !== null;
    const xs = thetaOnly ? neutralLlms(calib, trainRows) : calib.x;
    const pred = thetaOnly ? predictor(bank, calib.layout, xs) : null;
    const allCols = new Uint8Array(bank.colItem.length).fill(1);
    // Thetas of the held-out LLMs from the columns in `cols` (a mask over columns).
    const score = (cols: Uint8Array, into: Float64Array): void => {
      if (pred) {
        for (const j of heldList) into[j] = scoreThetaOnly(bank, pred, xs, calib.layout.theta, j, cols);
        return;
      }
      const t = heldOutThetas(bank, fold, spec, cols, options.fitOptions, options.fit);
      for (const j of heldList) into[j] = t[j]!;
    };
    score(allCols, full);
    const maxBudget = Math.min(I, Math.max(...budgets));
    const ranked =
      (options.selection ?? 'range') === 'range'
        ? (() => {
            const r = selectForRange(bank, calib.layout, calib.x, maxBudget, { rows: trainList });
            return { items: r.forms[0]!, ids: r.ids[0]! };
          })()
        : selectItems(bank, calib.layout, calib.x, I, { rows: trainList, information: options.information ?? 'nrm' });
    budgets.forEach((n, b) => {
      say(`compression fold ${f + 1}/${k}: ${n} items`);
      const pick = new Uint8Array(I);
      for (let t = 0; t < Math.min(n, I); t++) pick[ranked.items[t]!] = 1;
      selected[b]!.push(ranked.ids.slice(0, Math.min(n, I)));
      score(columnsOfItems(bank, pick), thetas[b]!);
      foldTau[b]!.push(
        kendallTau(
          heldList.map((j) => thetas[b]![j]!),
          heldList.map((j) => full[j]!),
        ),
      );
      if (doRandom) {
        const rpick = new Uint8Array(I);
        for (let t = 0; t < Math.min(n, I); t++) rpick[perm[t]!] = 1;
        score(columnsOfItems(bank, rpick), thetasRandom[b]!);
      }
    });
  }
  const points: CompressionPoint[] = budgets.map((n, b) => {
    const ft = foldTau[b]!.filter((v) => !Number.isNaN(v));
    return {
      budget: n,
      kendall: kendallTau(thetas[b]!, full),
      kendallRandom: doRandom ? kendallTau(thetasRandom[b]!, full) : NaN,
      kendallFoldMean: ft.length ? ft.reduce((s, v) => s + v, 0) / ft.length : NaN,
      selected: selected[b]!,
    };
  });
  return { model: spec.model, scoring: options.scoring ?? 'fixed-items', folds: k, seed, points, full, thetas };
}
