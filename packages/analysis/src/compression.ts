import { randomSource, type ModelName, type ResponseBank } from '@llm-nrm/core';
import { llmFolds } from './cellFolds.js';
import { fitFixedItems, fitOnMask, type ExperimentFitOptions, type FitFn } from './internal/fitting.js';
import { columnsOfItems, rowMask } from './internal/masks.js';
import { kendallTau } from './kendallTau.js';
import type { ModelSpec } from './modelSpec.js';
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
  /** Also run the random-selection baseline (default true). */
  random?: boolean;
  fitOptions?: ExperimentFitOptions;
  onProgress?: (msg: string) => void;
  fit?: FitFn;
}

/**
 * Compression (paper.md, experiment 5 / Fig. 3a). LLMs are split into folds; per fold the items are
 * calibrated on the training LLMs, ranked by information at the training LLMs' fitted abilities
 * (`selectItems`, 'fitted'), and each held-out LLM is scored (fixed-item fit, every presentation of a
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
  const fold = llmFolds(J, k, seed);
  const full = new Float64Array(J).fill(NaN);
  const thetas = budgets.map(() => new Float64Array(J).fill(NaN));
  const thetasRandom = budgets.map(() => new Float64Array(J).fill(NaN));
  const selected: string[][][] = budgets.map(() => []);
  const foldTau: number[][] = budgets.map(() => []);
  const rng = randomSource(seed + 7919);
  const doRandom = options.random ?? true;
  for (let f = 0; f < k; f++) {
    const trainRows = Uint8Array.from(fold, (v) => (v === f ? 0 : 1));
    const heldRows = Uint8Array.from(fold, (v) => (v === f ? 1 : 0));
    const trainList: number[] = [];
    const heldList: number[] = [];
    for (let j = 0; j < J; j++) (trainRows[j] ? trainList : heldList).push(j);
    say(`compression fold ${f + 1}/${k}: calibrating on ${trainList.length} LLMs`);
    const calib = fitOnMask(bank, rowMask(bank, trainRows), spec, options.fitOptions, options.fit, say, `compression fold ${f + 1}/${k}: `);
    const ref = fitFixedItems(bank, rowMask(bank, heldRows), spec, calib, options.fitOptions, options.fit);
    for (const j of heldList) full[j] = ref.x[ref.layout.theta + j]!;
    const ranked = selectItems(bank, calib.layout, calib.x, I, { rows: trainList });
    // One random permutation of the items per fold: budgets take nested prefixes, like the ranking.
    const perm = Int32Array.from({ length: I }, (_, i) => i);
    for (let t = I - 1; t > 0; t--) {
      const u = rng.int(t + 1);
      const tmp = perm[t]!;
      perm[t] = perm[u]!;
      perm[u] = tmp;
    }
    budgets.forEach((n, b) => {
      say(`compression fold ${f + 1}/${k}: ${n} items`);
      const pick = new Uint8Array(I);
      for (let t = 0; t < Math.min(n, I); t++) pick[ranked.items[t]!] = 1;
      selected[b]!.push(ranked.ids.slice(0, Math.min(n, I)));
      const fitN = fitFixedItems(bank, rowMask(bank, heldRows, columnsOfItems(bank, pick)), spec, calib, options.fitOptions, options.fit);
      for (const j of heldList) thetas[b]![j] = fitN.x[fitN.layout.theta + j]!;
      foldTau[b]!.push(kendallTau(heldList.map((j) => thetas[b]![j]!), heldList.map((j) => full[j]!)));
      if (doRandom) {
        const rpick = new Uint8Array(I);
        for (let t = 0; t < Math.min(n, I); t++) rpick[perm[t]!] = 1;
        const fitR = fitFixedItems(bank, rowMask(bank, heldRows, columnsOfItems(bank, rpick)), spec, calib, options.fitOptions, options.fit);
        for (const j of heldList) thetasRandom[b]![j] = fitR.x[fitR.layout.theta + j]!;
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
  return { model: spec.model, folds: k, seed, points, full, thetas };
}
