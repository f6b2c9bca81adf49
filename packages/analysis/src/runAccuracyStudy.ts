import { randomSource, type ResponseBank } from '@llm-nrm/core';
import { calibratedLlmFolds } from './calibratedLlmFolds.js';
import type { ExperimentFitOptions, FitFn } from './internal/fitting.js';
import { accuracyOn, chanceOn, foldTinyRun, tinyColumns } from './internal/tinyRunScoring.js';
import { fitRunAccuracy, predictRunAccuracy, type RunAccuracyPrediction } from './runAccuracy.js';
import { selectForRange } from './selectForRange.js';

export interface RunAccuracyStudyOptions {
  /** Items of the tiny benchmark (default 41). */
  budget?: number;
  /** LLM folds (default: one per LLM, leave-one-LLM-out). */
  folds?: number;
  seed?: number;
  fitOptions?: ExperimentFitOptions;
  fit?: FitFn;
  onProgress?: (msg: string) => void;
}

export interface RunAccuracyStudy {
  /** Per LLM (bank order): the full-bank accuracy observed and predicted from its tiny run. */
  observed: Float64Array;
  predicted: RunAccuracyPrediction[];
  /** Per fold: a run of random answers (softmax of uniform(0, 1) log-probabilities, as lm-eval's dummy model) and the chance level. */
  randomRuns: { prediction: RunAccuracyPrediction; chance: number }[];
}

/**
 * The user's path for accuracy (issue 30): per LLM fold calibrate on the rest, select `budget` items
 * (`selectForRange`), fit the run-accuracy model on the calibrated LLMs scored as tiny runs, score
 * each held-out LLM from one presentation of each selected item, and predict its full-bank accuracy.
 */
export function runAccuracyStudy(bank: ResponseBank, options: RunAccuracyStudyOptions = {}): RunAccuracyStudy {
  const J = bank.models.length;
  const budget = Math.min(options.budget ?? 41, bank.items.length);
  const seed = options.seed ?? 1;
  const rng = randomSource(seed + 271);
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC]!;
  const observed = Float64Array.from({ length: J }, (_, j) => accuracyOn(bank, j));
  const predicted: RunAccuracyPrediction[] = Array.from({ length: J }, () => ({ accuracy: NaN, low: NaN, high: NaN }));
  const randomRuns: RunAccuracyStudy['randomRuns'] = [];
  const spec = { name: 'llm-nrm', model: 'llm-nrm' as const };
  for (const fold of calibratedLlmFolds(bank, spec, {
    folds: options.folds ?? J,
    seed,
    ...(options.fitOptions ? { fitOptions: options.fitOptions } : {}),
    ...(options.fit ? { fit: options.fit } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    label: 'run-accuracy fold',
  })) {
    const { calib, trainRows, trainList, heldList } = fold;
    const L = calib.layout;

    const items = selectForRange(bank, L, calib.x, budget, { rows: trainList }).forms[0]!;
    const cols = tinyColumns(bank, items);
    const tiny = foldTinyRun(bank, calib, trainRows, trainList, new Uint8Array(J).fill(1));
    const run = (j: number) => {
      const r = tiny.score(j, cols);
      return { theta: r.theta, logSharpness: r.u, tinyAccuracy: accuracyOn(bank, j, cols), hard: r.hard };
    };
    const model = fitRunAccuracy(
      trainList.map((j) => ({ ...run(j), fullTheta: calib.x[L.theta + j]!, fullAccuracy: observed[j]! })),
      { chanceTiny: chanceOn(bank, cols), chanceFull: chanceOn(bank), items: items.length },
    );
    for (const j of heldList) predicted[j] = predictRunAccuracy(model, model.curve, run(j));
    // A random-answer run in the first held-out LLM's row (restored after).
    const j0 = heldList[0]!;
    const saved = bank.q.slice(j0 * width, (j0 + 1) * width);
    for (let c = 0; c < nC; c++) {
      const o = j0 * width + bank.colOffsets[c]!;
      const K = bank.colOffsets[c + 1]! - bank.colOffsets[c]!;
      let s = 0;
      for (let k = 0; k < K; k++) s += bank.q[o + k] = Math.exp(rng.uniform());
      for (let k = 0; k < K; k++) bank.q[o + k]! /= s;
    }
    randomRuns.push({ prediction: predictRunAccuracy(model, model.curve, run(j0)), chance: model.chanceFull });
    bank.q.set(saved, j0 * width);
  }
  return { observed, predicted, randomRuns };
}
