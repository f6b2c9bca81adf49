import { randomSource, type ResponseBank } from '@llm-nrm/core';
import { llmFolds } from './cellFolds.js';
import { fitFixedItems, fitOnMask, type ExperimentFitOptions, type FitFn, type FitLike } from './internal/fitting.js';
import { rowMask } from './internal/masks.js';
import { randomPermutation } from './internal/randomPermutation.js';
import type { ModelSpec } from './modelSpec.js';

/** One LLM fold of a held-out-LLM experiment: the split, the calibration on the training LLMs, a random item order. */
export interface CalibratedLlmFold {
  /** 0-based fold index, of `of`. */
  index: number;
  of: number;
  trainRows: Uint8Array;
  heldRows: Uint8Array;
  trainList: number[];
  heldList: number[];
  /** `spec` fitted on the training LLMs' cells (items and LLMs jointly). */
  calib: FitLike;
  /** A seeded random permutation of the items: random baselines of every budget take nested prefixes of it. */
  perm: Int32Array;
  /**
   * `randomDraws` random item orders, `perm` first, then further seeded ones: the random baselines
   * averaged over draws (`compression`, and the files study, which so draws the same items).
   */
  perms: Int32Array[];
}

export interface CalibratedLlmFoldsOptions {
  folds?: number;
  seed?: number;
  fitOptions?: ExperimentFitOptions;
  fit?: FitFn;
  onProgress?: (msg: string) => void;
  /** Prefix of progress lines (default 'fold'). */
  label?: string;
  /** Calibrate and yield only these fold indices (default all): one fold per process; the random item orders stay those of a full run. */
  only?: ReadonlySet<number>;
  /** Random item orders per fold in `perms` (default 1: `perm` alone); the draws after the first come from their own stream (seed + 104729). */
  randomDraws?: number;
}

/**
 * The fold loop that compression, the tiny-benchmark study and the exported-files study share:
 * LLMs split into `folds` (seeded), each fold calibrated on its training LLMs; the item permutation
 * stream is one seeded source over all folds (seed + 7919), so random baselines are reproducible.
 * A generator: the caller scores the held-out LLMs however it likes (in memory, or through files and
 * awaits) before the next fold is fitted.
 */
export function* calibratedLlmFolds(bank: ResponseBank, spec: ModelSpec, options: CalibratedLlmFoldsOptions = {}): Generator<CalibratedLlmFold> {
  const k = options.folds ?? 5;
  const seed = options.seed ?? 1;
  const say = options.onProgress;
  const label = options.label ?? 'fold';
  const J = bank.models.length;
  const I = bank.items.length;
  const fold = llmFolds(J, k, seed);
  const rng = randomSource(seed + 7919);
  const draws = Math.max(1, Math.floor(options.randomDraws ?? 1));
  const drawRng = randomSource(seed + 104729);
  for (let f = 0; f < k; f++) {
    const trainRows = Uint8Array.from(fold, (v) => (v === f ? 0 : 1));
    const heldRows = Uint8Array.from(fold, (v) => (v === f ? 1 : 0));
    const trainList: number[] = [];
    const heldList: number[] = [];
    for (let j = 0; j < J; j++) (trainRows[j] ? trainList : heldList).push(j);
    const perm = randomPermutation(I, rng);
    const perms = [perm];
    for (let d = 1; d < draws; d++) perms.push(randomPermutation(I, drawRng));
    if (options.only !== undefined && !options.only.has(f)) continue;
    say?.(`${label} ${f + 1}/${k}: calibrating ${spec.name} on ${trainList.length} LLMs`);
    const calib = fitOnMask(bank, rowMask(bank, trainRows), spec, options.fitOptions, options.fit, say, `${label} ${f + 1}/${k}: `);
    yield { index: f, of: k, trainRows, heldRows, trainList, heldList, calib, perm, perms };
  }
}

/**
 * Held-out LLMs' thetas by core's fixed-item fit of every per-LLM parameter on the columns with
 * cols[c] = 1 (all columns when omitted); entries of training LLMs are NaN.
 */
export function heldOutThetas(
  bank: ResponseBank,
  fold: CalibratedLlmFold,
  spec: ModelSpec,
  cols?: Uint8Array,
  fitOptions?: ExperimentFitOptions,
  fit?: FitFn,
  calib: FitLike = fold.calib,
): Float64Array {
  const r = fitFixedItems(bank, rowMask(bank, fold.heldRows, cols), spec, calib, fitOptions, fit);
  const out = new Float64Array(bank.models.length).fill(NaN);
  for (const j of fold.heldList) out[j] = r.x[r.layout.theta + j]!;
  return out;
}

/**
 * The parts of a fold study run apart (each `folds`: the LLM folds it ran), joined: `partOf[f]` the
 * part that ran fold f, and `pick` a per-LLM array taken from the part that ran each LLM's fold
 * (NaN for folds no part ran). The folds are `llmFolds(nModels, k, seed)`, as `calibratedLlmFolds` draws them.
 */
export function joinFoldParts<P extends { folds: readonly number[] }>(
  parts: readonly P[],
  nModels: number,
  k: number,
  seed: number,
): { fold: Int32Array; partOf: (P | undefined)[]; pick: (get: (p: P) => ArrayLike<number>) => Float64Array } {
  const partOf = new Array<P | undefined>(k);
  for (const p of parts) for (const f of p.folds) partOf[f] = p;
  const fold = llmFolds(nModels, k, seed);
  return { fold, partOf, pick: (get) => Float64Array.from(fold, (f, j) => (partOf[f] ? get(partOf[f])[j]! : NaN)) };
}
