import { LlmNrmError, MODEL_NAMES, getFamily, predictor, type ModelName, type ResponseBank } from '@llm-nrm/core';
import { argmaxAt, minimiseTheta } from '@llm-nrm/core/engine';
import { llmFolds } from './cellFolds.js';
import { fitFixedItems, fitOnMask, type ExperimentFitOptions, type FitFn } from './internal/fitting.js';
import { neutralLlms } from './internal/neutralLlms.js';
import { rowMask } from './internal/masks.js';
import { thetaAlone } from './internal/tinyRunScoring.js';
import { P_FLOOR } from './internal/stats.js';
import type { ModelSpec } from './modelSpec.js';
import { pearson } from './pearson.js';
import { spearmanRho } from './spearmanRho.js';

export type ThetaEstimator = 'correctness' | 'incorrect-only' | 'options';

export interface LlmCvRow {
  estimator: ThetaEstimator;
  /** Correlations with the full-information theta over all held-out LLMs (pooled over folds). */
  pearson: number;
  spearman: number;
  n: number;
}

export interface LlmCrossValidation {
  folds: number;
  seed: number;
  model: ModelName;
  models: string[];
  /** Fold of each LLM. */
  fold: Int32Array;
  /** Held-out thetas per LLM: full information (fixed-item fit of all per-LLM parameters on all cells), and each estimator. */
  full: Float64Array;
  correctness: Float64Array;
  incorrectOnly: Float64Array;
  options: Float64Array;
  /** Wrongly answered cells per LLM (the data of 'incorrect-only'). */
  wrongCells: Int32Array;
  rows: LlmCvRow[];
}

export interface LlmCrossValidateOptions {
  /** 'llm-nrm' (default) or 'nrm' (or an LLM-NRM ablation spec). */
  model?: ModelName | ModelSpec;
  folds?: number;
  seed?: number;
  fitOptions?: ExperimentFitOptions;
  onProgress?: (msg: string) => void;
  fit?: FitFn;
}

/**
 * LLM-level k-fold cross-validation, "ability from errors alone" (paper.md, experiment 4 / Table 3).
 * For each fold the item parameters are calibrated on the training LLMs only (held-out rows masked
 * out) and held fixed. For each held-out LLM:
 * - full: core's fixed-item fit of all its per-LLM parameters on all its cells (the reference);
 * - correctness: theta from the Bernoulli likelihood of y = [argmax q = key] under the LLM-NRM's own
 *   p_key, prod p_key^y (1 - p_key)^(1 - y) (the choice we document: no separate binary model, so the
 *   three estimators share one calibrated bank and differ only in the data they read);
 * - incorrect-only: theta from which distractor was chosen on wrongly answered cells only,
 *   prod p_t / (1 - p_key) (t the chosen distractor; 1 - p_key formed as the sum over distractors);
 * - options: theta from the full soft option likelihood sum q log p (a same-footing check).
 * The three estimators are 1-D MAPs of theta (N(0, 1) prior, core's `minimiseTheta`); the LLM's sharpness,
 * position bias and fallback, unknown without its data, are set to the training LLMs' means.
 */
export function llmCrossValidate(bank: ResponseBank, options: LlmCrossValidateOptions = {}): LlmCrossValidation {
  const k = options.folds ?? 5;
  const seed = options.seed ?? 1;
  const spec: ModelSpec = typeof options.model === 'object' ? options.model : { name: options.model ?? 'llm-nrm', model: options.model ?? 'llm-nrm' };
  // Option-level and fitted on the soft responses as read (llm-nrm, nrm; not nrm-hard, not binary).
  const family = MODEL_NAMES.includes(spec.model) ? getFamily(spec.model, spec.parts) : null;
  if (family?.kind !== 'option-level' || family.hardened) {
    throw new LlmNrmError('INVALID_OPTION', `ability from errors needs an option-level model (llm-nrm or nrm), got ${JSON.stringify(spec.model)}`);
  }
  const say = options.onProgress ?? (() => {});
  const J = bank.models.length;
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC]!;
  const fold = llmFolds(J, k, seed);
  const full = new Float64Array(J).fill(NaN);
  const correctness = new Float64Array(J).fill(NaN);
  const incorrectOnly = new Float64Array(J).fill(NaN);
  const optionsTheta = new Float64Array(J).fill(NaN);
  const wrongCells = new Int32Array(J);
  const p = new Float64Array(bank.kMax);
  const allCols = new Uint8Array(nC).fill(1);
  for (let f = 0; f < k; f++) {
    const trainRows = Uint8Array.from(fold, (v) => (v === f ? 0 : 1));
    const heldRows = Uint8Array.from(fold, (v) => (v === f ? 1 : 0));
    say(`by-llm fold ${f + 1}/${k}: calibrating items on ${J - countOnes(heldRows)} LLMs`);
    const calib = fitOnMask(bank, rowMask(bank, trainRows), spec, options.fitOptions, options.fit, say, `by-llm fold ${f + 1}/${k}: `);
    say(`by-llm fold ${f + 1}/${k}: scoring held-out LLMs`);
    const ref = fitFixedItems(bank, rowMask(bank, heldRows), spec, calib, options.fitOptions, options.fit);
    const xs = neutralLlms(calib, trainRows);
    const pred = predictor(bank, calib.layout, xs);
    const thetaAt = calib.layout.theta;
    for (let j = 0; j < J; j++) {
      if (!heldRows[j]) continue;
      full[j] = ref.x[ref.layout.theta + j]!;
      const cols: number[] = [];
      const target: number[] = [];
      for (let c = 0; c < nC; c++) {
        if (!bank.observed[j * nC + c]) continue;
        cols.push(c);
        target.push(argmaxAt(bank.q, j * width + bank.colOffsets[c]!, bank.colOffsets[c + 1]! - bank.colOffsets[c]!));
      }
      // One pass over LLM j's cells at theta: the negative log-likelihood of its correctness, or of
      // its distractor choices on wrongly answered cells.
      const nll = (theta: number, which: 'correctness' | 'incorrect-only'): number => {
        xs[thetaAt + j] = theta;
        let s = 0;
        for (let t = 0; t < cols.length; t++) {
          const c = cols[t]!;
          const K = bank.colOffsets[c + 1]! - bank.colOffsets[c]!;
          const g = bank.key[bank.colItem[c]!]!;
          pred.cell(j, c, p);
          let W = 0;
          for (let kk = 0; kk < K; kk++) if (kk !== g) W += p[kk]!;
          const y = target[t] === g;
          if (which === 'correctness') s -= Math.log(Math.max(y ? p[g]! : W, P_FLOOR));
          else if (!y) s -= Math.log(Math.max(p[target[t]!]!, P_FLOOR)) - Math.log(Math.max(W, P_FLOOR));
        }
        return s;
      };
      for (let t = 0; t < cols.length; t++) if (target[t] !== bank.key[bank.colItem[cols[t]!]!]) wrongCells[j]!++;
      correctness[j] = minimiseTheta((th) => nll(th, 'correctness') + 0.5 * th * th).theta;
      incorrectOnly[j] = minimiseTheta((th) => nll(th, 'incorrect-only') + 0.5 * th * th).theta;
      // The soft option likelihood is the tiny-run scorers' (core's llmCrossEntropy), on every observed cell.
      optionsTheta[j] = thetaAlone(bank, calib.layout, xs, j, allCols, 1).theta;
    }
  }
  const row = (estimator: ThetaEstimator, est: Float64Array): LlmCvRow => ({
    estimator,
    pearson: pearson(est, full),
    spearman: spearmanRho(est, full),
    n: J,
  });
  return {
    folds: k,
    seed,
    model: spec.model,
    models: bank.models.slice(),
    fold,
    full,
    correctness,
    incorrectOnly,
    options: optionsTheta,
    wrongCells,
    rows: [row('correctness', correctness), row('incorrect-only', incorrectOnly), row('options', optionsTheta)],
  };
}

function countOnes(m: Uint8Array): number {
  let n = 0;
  for (let t = 0; t < m.length; t++) n += m[t]!;
  return n;
}
