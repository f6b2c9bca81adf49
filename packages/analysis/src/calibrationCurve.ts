import { LlmNrmError, predictor, randomSource, type ModelName, type ResponseBank } from '@llm-nrm/core';
import { argmaxAt } from '@llm-nrm/core/engine';
import { fitFixedItems, fitOnMask, type ExperimentFitOptions, type FitFn } from './internal/fitting.js';
import { rowMask } from './internal/masks.js';
import { randomPermutation } from './internal/randomPermutation.js';
import { P_FLOOR, meanSd } from './internal/stats.js';
import { modelSpecs, type ModelSpec } from './modelSpec.js';

export interface CalibrationPoint {
  name: string;
  model: ModelName;
  /** Calibration LLMs. */
  n: number;
  /** Held-out correctness log-loss (mean and SD over repeats). */
  logLoss: { mean: number; sd: number };
  perRepeat: number[];
}

export interface CalibrationCurve {
  sizes: number[];
  repeats: number;
  heldOut: number;
  seed: number;
  points: CalibrationPoint[];
}

export interface CalibrationCurveOptions {
  /** Calibration-set sizes (default [5, 10, 20, 40], capped at the pool size). */
  sizes?: number[];
  models?: readonly (ModelName | ModelSpec)[];
  /** Share of LLMs held out for testing (default 0.25, at least 1). */
  testFraction?: number;
  /** Independent draws (split and subsets) per size (default 3). */
  repeats?: number;
  seed?: number;
  fitOptions?: ExperimentFitOptions;
  onProgress?: (msg: string) => void;
  fit?: FitFn;
}

/**
 * Calibration with fewer LLMs (paper.md, experiment 6 / Fig. 3b). Per repeat (seeded): a held-out set
 * of LLMs; for each size n, n random calibration LLMs from the rest; item parameters from those n
 * LLMs' cells only; each held-out LLM's own parameters from a random half of its cells (fixed-item
 * fit); the correctness log-loss of p_key on the other half. A smaller log-loss at small n means a
 * model that can be calibrated from fewer LLMs.
 */
export function calibrationCurve(bank: ResponseBank, options: CalibrationCurveOptions = {}): CalibrationCurve {
  const J = bank.models.length;
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC]!;
  const specs = modelSpecs(options.models ?? ['llm-nrm']);
  const repeats = options.repeats ?? 3;
  const seed = options.seed ?? 1;
  const nHeld = Math.max(1, Math.round(J * (options.testFraction ?? 0.25)));
  const pool = J - nHeld;
  if (pool < 1) throw new LlmNrmError('INVALID_OPTION', `no LLM left to calibrate on (${J} LLMs, ${nHeld} held out)`);
  const sizes = [...new Set((options.sizes ?? [5, 10, 20, 40]).map((n) => Math.min(n, pool)))].filter((n) => n >= 1);
  const say = options.onProgress ?? (() => {});
  const losses = specs.map(() => sizes.map(() => [] as number[]));
  const p = new Float64Array(bank.kMax);
  for (let r = 0; r < repeats; r++) {
    const rng = randomSource(seed + 104729 * r);
    const order = randomPermutation(J, rng);
    const held = Array.from(order.subarray(0, nHeld));
    const rest = Array.from(order.subarray(nHeld));
    // Score half / evaluation half of each held-out LLM's cells.
    const scoreMask = new Uint8Array(bank.observed.length);
    const evalMask = new Uint8Array(bank.observed.length);
    for (const j of held)
      for (let c = 0; c < nC; c++) {
        if (!bank.observed[j * nC + c]) continue;
        (rng.uniform() < 0.5 ? scoreMask : evalMask)[j * nC + c] = 1;
      }
    sizes.forEach((n, si) => {
      const calRows = new Uint8Array(J);
      for (let t = 0; t < n; t++) calRows[rest[t]!] = 1; // `rest` is already a random order
      specs.forEach((spec, mi) => {
        say(`calibration repeat ${r + 1}/${repeats}: ${spec.name} on ${n} LLMs`);
        const calib = fitOnMask(bank, rowMask(bank, calRows), spec, options.fitOptions, options.fit);
        const scored = fitFixedItems(bank, scoreMask, spec, calib, options.fitOptions, options.fit);
        const pred = predictor(bank, scored.layout, scored.x);
        let ll = 0;
        let cnt = 0;
        for (const j of held)
          for (let c = 0; c < nC; c++) {
            if (!evalMask[j * nC + c]) continue;
            const K = bank.colOffsets[c + 1]! - bank.colOffsets[c]!;
            const g = bank.key[bank.colItem[c]!]!;
            const y = argmaxAt(bank.q, j * width + bank.colOffsets[c]!, K) === g;
            pred.cell(j, c, p);
            let W = 0;
            for (let kk = 0; kk < K; kk++) if (kk !== g) W += p[kk]!;
            ll -= Math.log(Math.max(y ? p[g]! : W, P_FLOOR));
            cnt++;
          }
        losses[mi]![si]!.push(ll / cnt);
      });
    });
  }
  const points: CalibrationPoint[] = [];
  specs.forEach((spec, mi) =>
    sizes.forEach((n, si) => {
      const per = losses[mi]![si]!;
      points.push({ name: spec.name, model: spec.model, n, logLoss: meanSd(per), perRepeat: per });
    }),
  );
  return { sizes, repeats, heldOut: nHeld, seed, points };
}
