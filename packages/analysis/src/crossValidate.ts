import { fit as coreFit, familyOfLayout, predictor, type FitOptions, type ModelName, type ResponseBank } from '@llm-nrm/core';
import { argmaxAt, wrongOptionShares } from '@llm-nrm/core/engine';
import { cellFolds, foldMask } from './cellFolds.js';
import { fitOnMask, type FitFn } from './internal/fitting.js';
import { P_FLOOR, meanSd } from './internal/stats.js';
import { modelSpecs, type ModelSpec } from './modelSpec.js';

/** Held-out metrics of one fold. */
export interface CvFoldMetrics {
  cells: number;
  /** Option channel: top-1 accuracy of predicting the observed argmax option, and its log-loss. */
  optionAccuracy: number;
  optionLogLoss: number;
  /** Correctness channel for y = [argmax q = key] and P(correct) = p_key: accuracy (p_key > 0.5), log-loss, Brier. */
  correctAccuracy: number;
  correctLogLoss: number;
  correctBrier: number;
  fitSeconds: number;
  /** Whether the fit met its stopping rule (false: it ran into the iteration cap first). */
  converged: boolean;
  /** The fit's estimated distance to its optimum at the end, in SEs (NaN where the fit gives none). */
  distance: number;
}

export interface MeanSd {
  mean: number;
  sd: number;
}

export interface CvRow {
  name: string;
  model: ModelName;
  parts?: ModelSpec['parts'];
  option: { accuracy: MeanSd; logLoss: MeanSd };
  correctness: { accuracy: MeanSd; logLoss: MeanSd; brier: MeanSd };
  folds: CvFoldMetrics[];
  seconds: number;
}

export interface CrossValidation {
  folds: number;
  seed: number;
  /** Observed cells partitioned. */
  cells: number;
  rows: CvRow[];
}

export interface CrossValidateOptions {
  /** Models to compare (names or specs). Default ['llm-nrm']. */
  models?: readonly (ModelName | ModelSpec)[];
  /** Add the ablation rows (LLM-NRM without sharpness / position / fallback, and soft NRM). Default false. */
  ablations?: boolean;
  /** Number of folds (default 5). */
  folds?: number;
  /** Seed of the fold assignment (default 1). */
  seed?: number;
  /** Passed to every fit (optimizer, maxIterations, tolerance, priors). */
  fitOptions?: Omit<FitOptions, 'model' | 'parts' | 'init' | 'fixItems' | 'onProgress'>;
  onProgress?: (msg: string) => void;
  /** The fitting function (default core's `fit`); injectable for other engines and for tests. */
  fit?: FitFn;
}

/** One fold of `crossValidate` as a unit of work: the model and the held-out fold. */
export interface CvTask {
  spec: ModelSpec;
  fold: number;
}

/** Options of one fold's fit (`crossValidateFold`): those of `crossValidate` that reach a fit. */
export type CvFoldOptions = Pick<CrossValidateOptions, 'fitOptions' | 'onProgress' | 'fit'>;

/**
 * The plan of a cross-validation: the model specs, the fold of every observed cell (`cellFolds`),
 * and the (model, fold) tasks in row order. Each task depends only on the bank, the fold assignment
 * and its own model, so the tasks may run in any order or in parallel (the CLI runs them on worker
 * threads) and `crossValidationOf` assembles the same result.
 */
export function crossValidationPlan(bank: ResponseBank, options: CrossValidateOptions = {}): { specs: ModelSpec[]; folds: Uint8Array; tasks: CvTask[] } {
  const k = options.folds ?? 5;
  const specs = modelSpecs(options.models ?? ['llm-nrm'], options.ablations ?? false);
  const folds = cellFolds(bank, k, options.seed ?? 1);
  return { specs, folds, tasks: specs.flatMap((spec) => Array.from({ length: k }, (_, fold) => ({ spec, fold }))) };
}

/**
 * Fit `task.spec` on every cell outside fold `task.fold` (`withObserved(bank, trainMask)`: no
 * held-out response reaches the objective, the start values included) and score the held-out
 * cells. No standard errors: the metrics use point estimates only.
 */
export function crossValidateFold(bank: ResponseBank, folds: Uint8Array, task: CvTask, options: CvFoldOptions = {}): CvFoldMetrics {
  const { spec, fold: f } = task;
  const fitFn = options.fit ?? coreFit;
  const say = options.onProgress ?? (() => {});
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC]!;
  const p = new Float64Array(bank.kMax);
  const train = foldMask(folds, f, 'train');
  const t1 = Date.now();
  // The fit's own stop: within 0.01 SE of the optimum (core's distanceTolerance). The held-out
  // figures are then the model's, not the optimiser path's: at 189 x 2,000 and on NAEP every
  // model's mean figures lie within 6e-6 of fits run to 1e-4 SE, where the 1e-7 relative-loss stop
  // used before left LLM-NRM's option log-loss 9e-5 away, moved by any change of path
  // (packages/analysis/BENCHMARKS.md, "CV at the fit's own stop"). fitOptions override it.
  const res = fitOnMask(bank, train, spec, options.fitOptions, fitFn, say, `cv ${spec.name}: fold ${f + 1}, `);
  const fitSeconds = (Date.now() - t1) / 1000;
  const shares = familyOfLayout(res.layout).kind === 'option-level' ? undefined : wrongOptionShares(bank, train);
  const pred = predictor(bank, res.layout, res.x, shares);
  let n = 0;
  let oAcc = 0;
  let oLL = 0;
  let cAcc = 0;
  let cLL = 0;
  let brier = 0;
  for (let j = 0; j < bank.models.length; j++) {
    for (let c = 0; c < nC; c++) {
      if (folds[j * nC + c] !== f) continue;
      const i = bank.colItem[c]!;
      const K = bank.colOffsets[c + 1]! - bank.colOffsets[c]!;
      const target = argmaxAt(bank.q, j * width + bank.colOffsets[c]!, K);
      pred.cell(j, c, p);
      const top = argmaxAt(p, 0, K);
      n++;
      if (top === target) oAcc++;
      oLL -= Math.log(Math.max(p[target]!, P_FLOOR));
      const g = bank.key[i]!;
      const y = target === g ? 1 : 0;
      const pk = p[g]!;
      if ((pk > 0.5 ? 1 : 0) === y) cAcc++;
      cLL -= Math.log(Math.max(y ? pk : 1 - pk, P_FLOOR));
      brier += (pk - y) * (pk - y);
    }
  }
  return {
    cells: n,
    optionAccuracy: oAcc / n,
    optionLogLoss: oLL / n,
    correctAccuracy: cAcc / n,
    correctLogLoss: cLL / n,
    correctBrier: brier / n,
    fitSeconds,
    converged: res.converged,
    distance: res.distance ?? Number.NaN,
  };
}

/**
 * Assemble a cross-validation from its plan and each task's metrics (`metrics[t]` of
 * `plan.tasks[t]`). `seconds` of a row: its folds' seconds, given or summed from the folds (when
 * the folds ran in parallel, the sum of their times, not the wall time).
 */
export function crossValidationOf(
  plan: { specs: ModelSpec[]; folds: Uint8Array; tasks: CvTask[] },
  seed: number,
  metrics: readonly CvFoldMetrics[],
  seconds?: readonly number[],
): CrossValidation {
  let cells = 0;
  for (let t = 0; t < plan.folds.length; t++) if (plan.folds[t] !== 255) cells++;
  const k = plan.tasks.filter((t) => t.spec === plan.specs[0]).length;
  const rows = plan.specs.map((spec, r): CvRow => {
    const perFold = plan.tasks.map((t, i) => (t.spec === spec ? metrics[i]! : null)).filter((m): m is CvFoldMetrics => m !== null);
    const col = (key: keyof CvFoldMetrics) => meanSd(perFold.map((m) => m[key] as number));
    return {
      name: spec.name,
      model: spec.model,
      ...(spec.parts ? { parts: spec.parts } : {}),
      option: { accuracy: col('optionAccuracy'), logLoss: col('optionLogLoss') },
      correctness: { accuracy: col('correctAccuracy'), logLoss: col('correctLogLoss'), brier: col('correctBrier') },
      folds: perFold,
      seconds: seconds?.[r] ?? perFold.reduce((a, m) => a + m.fitSeconds, 0),
    };
  });
  return { folds: k, seed, cells, rows };
}

/**
 * Cell-level k-fold cross-validation (paper.md, experiment 1 / Table 1). The observed cells are
 * partitioned into folds (`cellFolds`); for each fold every model is fitted on the other folds' cells
 * only (`withObserved(bank, trainMask)`, so no held-out response reaches the objective) and predicts
 * the held-out cells. Binary models spread wrong mass over distractors with `wrongOptionShares` of the
 * training cells. Metrics are means and SDs over folds. One thread; `crossValidationPlan`,
 * `crossValidateFold` and `crossValidationOf` are the same in parts, for running folds in parallel.
 */
export function crossValidate(bank: ResponseBank, options: CrossValidateOptions = {}): CrossValidation {
  const plan = crossValidationPlan(bank, options);
  const say = options.onProgress ?? (() => {});
  const k = options.folds ?? 5;
  const metrics: CvFoldMetrics[] = [];
  const seconds: number[] = [];
  let r = -1;
  let t0 = 0;
  for (const task of plan.tasks) {
    if (task.fold === 0) {
      if (r >= 0) seconds.push((Date.now() - t0) / 1000);
      r++;
      t0 = Date.now();
    }
    say(`cv ${task.spec.name}: fold ${task.fold + 1}/${k}`);
    metrics.push(crossValidateFold(bank, plan.folds, task, options));
  }
  if (r >= 0) seconds.push((Date.now() - t0) / 1000);
  return crossValidationOf(plan, options.seed ?? 1, metrics, seconds);
}
