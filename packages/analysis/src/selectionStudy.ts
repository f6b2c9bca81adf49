import { LlmNrmError, type ResponseBank } from '@llm-nrm/core';
import { accuracyCurve, predictAccuracy } from './accuracyCurve.js';
import { calibratedLlmFolds, heldOutThetas } from './calibratedLlmFolds.js';
import { fitOnMask, type ExperimentFitOptions, type FitFn, type FitLike } from './internal/fitting.js';
import { rowMask } from './internal/masks.js';
import { accuracyOn, chanceOn, foldTinyRun, thetaAlone, tinyColumns } from './internal/tinyRunScoring.js';
import { kendallTau } from './kendallTau.js';
import { fitRunAccuracy, predictRunAccuracy } from './runAccuracy.js';
import { selectForRange } from './selectForRange.js';
import { selectItems } from './selectItems.js';

/** One way of making and scoring a tiny benchmark. */
export type StudyMethod =
  | 'range+fleet' // selectForRange, theta alone with the fleet's nuisance parameters (llm-nrm score's default on tiny runs)
  | 'range+sharp' // selectForRange, theta and sharpness (log-normal prior at the fleet's), bias and fallback under the fleet's spread
  | 'range+sharp+acc' // range+sharp, accuracy by the run-accuracy model publish writes (fitRunAccuracy on the training LLMs scored as tiny runs)
  | 'random+sharp+acc' // random items, the same scoring and model
  | 'range+fit' // selectForRange, full fixed-item fit of every per-LLM parameter
  | 'info+fit' // the n items of highest fleet-average information, full fixed-item fit (the old default)
  | 'random+sharp' // random items, theta and sharpness
  | 'random+fleet' // random items, theta alone
  | 'random+fit' // random items, full fixed-item fit
  | '2pl' // a 2PL bank, its own range selection and fixed-item 2PL scoring
  | 'accuracy'; // plain accuracy on the range-selected items

export const STUDY_METHODS: readonly StudyMethod[] = [
  'range+sharp',
  'range+sharp+acc',
  'random+sharp',
  'random+sharp+acc',
  'range+fleet',
  'range+fit',
  'info+fit',
  'random+fleet',
  'random+fit',
  '2pl',
  'accuracy',
];

export interface SelectionStudyOptions {
  budgets?: number[];
  folds?: number;
  seed?: number;
  methods?: readonly StudyMethod[];
  fitOptions?: ExperimentFitOptions;
  onProgress?: (msg: string) => void;
  fit?: FitFn;
}

export interface SelectionStudyRow {
  method: StudyMethod;
  budget: number;
  /** Kendall tau-b of held-out tiny-run scores vs their full-bank thetas (LLM-NRM, fixed items), pooled over folds. */
  kendall: number;
  /** Mean absolute error of the predicted full-bank accuracy (argmax = key) of held-out LLMs, 0-1. */
  accuracyMae: number;
  /** Share of held-out LLMs whose full-bank accuracy lies in the estimator's 90% interval (NaN for methods without one). */
  coverage: number;
}

export interface SelectionStudy {
  folds: number;
  seed: number;
  rows: SelectionStudyRow[];
}

/** A method's held-out estimates at one budget: theta (or accuracy), predicted accuracy, interval hit (1/0). */
interface Slot {
  t: Float64Array;
  a: Float64Array;
  hit: Float64Array;
}

/**
 * The tiny-benchmark study (issue 10): over LLM folds, calibrate on the training LLMs, make a tiny
 * test of each budget by each method, score the held-out LLMs from one presentation of each selected
 * item, and compare with their full-bank thetas (Kendall tau-b, pooled) and their observed full-bank
 * accuracy (MAE of the accuracy predicted by the training LLMs' accuracy curve).
 */
export function selectionStudy(bank: ResponseBank, options: SelectionStudyOptions = {}): SelectionStudy {
  const budgets = options.budgets ?? [10, 20, 41, 100];
  const k = options.folds ?? 5;
  const seed = options.seed ?? 1;
  const methods = options.methods ?? STUDY_METHODS;
  const say = options.onProgress ?? (() => {});
  const J = bank.models.length;
  const I = bank.items.length;
  const full = new Float64Array(J).fill(NaN);
  const fullAcc = Float64Array.from({ length: J }, (_, j) => accuracyOn(bank, j));
  const est = new Map<string, Float64Array>();
  const pAcc = new Map<string, Float64Array>();
  // 1 / 0 where the held-out LLM's full-bank accuracy is inside / outside its 90% interval.
  const inside = new Map<string, Float64Array>();
  const slot = (m: string, b: number): Slot => {
    const key = `${m}@${b}`;
    if (!est.has(key)) {
      est.set(key, new Float64Array(J).fill(NaN));
      pAcc.set(key, new Float64Array(J).fill(NaN));
      inside.set(key, new Float64Array(J).fill(NaN));
    }
    return { t: est.get(key)!, a: pAcc.get(key)!, hit: inside.get(key)! };
  };
  const llm = { name: 'llm-nrm', model: 'llm-nrm' as const };
  const twoPl = { name: '2pl', model: '2pl' as const };
  const fitOpts = { ...(options.fitOptions ? { fitOptions: options.fitOptions } : {}), ...(options.fit ? { fit: options.fit } : {}) };
  for (const fold of calibratedLlmFolds(bank, llm, { folds: k, seed, ...fitOpts, onProgress: say, label: 'study fold' })) {
    const { calib, trainRows, trainList, heldList, perm } = fold;
    const f = fold.index;
    const allFit = heldOutThetas(bank, fold, llm, undefined, options.fitOptions, options.fit);
    for (const j of heldList) full[j] = allFit[j]!;
    const curveOf = (c: FitLike) =>
      accuracyCurve(
        trainList.map((j) => c.x[c.layout.theta + j]!),
        trainList.map((j) => fullAcc[j]!),
      );
    const curve = curveOf(calib);
    // Held-out LLMs with the fleet's nuisances; and every LLM so, for training LLMs scored as tiny runs.
    const heldRun = foldTinyRun(bank, calib, trainRows, trainList);
    const allRun = foldTinyRun(bank, calib, trainRows, trainList, new Uint8Array(J).fill(1));
    const xs = heldRun.xs;
    const maxB = Math.min(I, Math.max(...budgets));
    const info = methods.includes('info+fit') ? selectItems(bank, calib.layout, calib.x, maxB, { rows: trainList }).items : null;
    let pl: { calib: FitLike; curve: ReturnType<typeof accuracyCurve> } | null = null;
    if (methods.includes('2pl')) {
      say(`study fold ${f + 1}/${k}: calibrating 2PL`);
      const c2 = fitOnMask(bank, rowMask(bank, trainRows), twoPl, options.fitOptions, options.fit);
      pl = { calib: c2, curve: curveOf(c2) };
    }
    for (const n of budgets) {
      const m = Math.min(n, I);
      say(`study fold ${f + 1}/${k}: ${m} items`);
      const range = selectForRange(bank, calib.layout, calib.x, m, { rows: trainList }).forms[0]!;
      const scoreFit = (
        items: ArrayLike<number>,
        c: FitLike,
        spec: typeof llm | typeof twoPl,
        into: { t: Float64Array; a: Float64Array },
        cv: ReturnType<typeof accuracyCurve>,
      ) => {
        const t = heldOutThetas(bank, fold, spec, tinyColumns(bank, items), options.fitOptions, options.fit, c);
        for (const j of heldList) {
          into.t[j] = t[j]!;
          into.a[j] = predictAccuracy(cv, into.t[j]!, 0).accuracy;
        }
      };
      const scoreFleet = (items: ArrayLike<number>, into: { t: Float64Array; a: Float64Array }) => {
        const cols = tinyColumns(bank, items);
        for (const j of heldList) {
          into.t[j] = thetaAlone(bank, calib.layout, xs, j, cols).theta;
          into.a[j] = predictAccuracy(curve, into.t[j]!, 0).accuracy;
        }
      };
      const rnd = perm.subarray(0, m);
      const scoreSharp = (items: ArrayLike<number>, into: Slot, withModel: boolean) => {
        const cols = tinyColumns(bank, items);
        const runOf = (j: number, r: { theta: number; u: number; hard: boolean }) => ({
          theta: r.theta,
          logSharpness: r.u,
          tinyAccuracy: accuracyOn(bank, j, cols),
          hard: r.hard,
        });
        // The run-accuracy model `publish` writes: fitted on the training LLMs scored as tiny runs.
        const model = withModel
          ? fitRunAccuracy(
              trainList.map((j) => ({ ...runOf(j, allRun.score(j, cols)), fullTheta: calib.x[calib.layout.theta + j]!, fullAccuracy: fullAcc[j]! })),
              { chanceTiny: chanceOn(bank, cols), chanceFull: chanceOn(bank), items: cols.reduce((n, v) => n + v, 0) },
            )
          : null;
        for (const j of heldList) {
          const r = heldRun.score(j, cols);
          into.t[j] = r.theta;
          if (model) {
            const p = predictRunAccuracy(model, model.curve, runOf(j, r));
            into.a[j] = p.accuracy;
            into.hit[j] = fullAcc[j]! >= p.low && fullAcc[j]! <= p.high ? 1 : 0;
          } else into.a[j] = predictAccuracy(curve, into.t[j]!, 0).accuracy;
        }
      };
      const scoreAccuracy = (items: ArrayLike<number>, into: Slot) => {
        const cols = tinyColumns(bank, items);
        for (const j of heldList) {
          into.t[j] = accuracyOn(bank, j, cols);
          into.a[j] = into.t[j]!;
        }
      };
      // One entry per method: a method missing here, or one too many, is a type error.
      const scorers: Record<StudyMethod, (into: Slot) => void> = {
        'range+fleet': (into) => scoreFleet(range, into),
        'random+fleet': (into) => scoreFleet(rnd, into),
        'range+sharp': (into) => scoreSharp(range, into, false),
        'random+sharp': (into) => scoreSharp(rnd, into, false),
        'range+sharp+acc': (into) => scoreSharp(range, into, true),
        'random+sharp+acc': (into) => scoreSharp(rnd, into, true),
        'range+fit': (into) => scoreFit(range, calib, llm, into, curve),
        'info+fit': (into) => scoreFit(info!.subarray(0, m), calib, llm, into, curve),
        'random+fit': (into) => scoreFit(rnd, calib, llm, into, curve),
        '2pl': (into) => {
          const sel = selectForRange(bank, pl!.calib.layout, pl!.calib.x, m, { rows: trainList }).forms[0]!;
          scoreFit(sel, pl!.calib, twoPl, into, pl!.curve);
        },
        accuracy: (into) => scoreAccuracy(range, into),
      };
      for (const method of methods) {
        // Names can arrive unchecked (bench/tiny-study.mjs reads them from METHODS): fail on a typo.
        if (!Object.hasOwn(scorers, method)) throw new LlmNrmError('INVALID_OPTION', `selectionStudy: unknown method '${method}'`);
        scorers[method](slot(method, n));
      }
    }
  }
  const rows: SelectionStudyRow[] = [];
  for (const method of methods) {
    for (const n of budgets) {
      const { t, a, hit } = slot(method, n);
      let err = 0;
      let cnt = 0;
      let covered = 0;
      let intervals = 0;
      for (let j = 0; j < J; j++) {
        if (!Number.isFinite(a[j]!) || !Number.isFinite(fullAcc[j]!)) continue;
        err += Math.abs(a[j]! - fullAcc[j]!);
        cnt++;
        if (Number.isFinite(hit[j]!)) {
          intervals++;
          covered += hit[j]!;
        }
      }
      rows.push({
        method,
        budget: n,
        kendall: kendallTau(t, full),
        accuracyMae: cnt > 0 ? err / cnt : NaN,
        coverage: intervals > 0 ? covered / intervals : NaN,
      });
    }
  }
  return { folds: k, seed, rows };
}
