import type { ResponseBank } from '../data/bank.js';
import { blockPreconditioner } from './blockPreconditioner.js';
import type { Restarted } from './gateRestart.js';
import type { FitProblem } from './identify.js';
import type { LbfgsRun } from './optimize.js';
import type { OptimizeProgress, OptimizeResult } from './optimizer.js';
import type { ThetaStandardErrors } from './standardErrors.js';
import { TWIN_BIAS_SCALE, twinBank, twinBiasSe } from './twinBias.js';

/** The twin's stopping distance, in SEs (fit/twinBias.ts): its bias need not be finer than a tenth of an SE. */
const TWIN_DISTANCE = 0.1;

/** The twin's L-BFGS memory: more pairs carry more of its slow direction (BENCHMARKS.md "The twin's memory and targets"). */
const TWIN_MEMORY = 24;

/** The twin's bias check: its passes and seconds, and theta_twin - theta per LLM. */
export interface TwinCheck {
  passes: number;
  seconds: number;
  bias: Float64Array;
}

/** What `twinStandardErrors` needs beside the problem. */
export interface TwinOptions {
  /** The fit's L-BFGS runner (null after Adam: the twin is then a whole refit). */
  lbfgs: LbfgsRun | null;
  onProgress?: (p: OptimizeProgress & { phase: string }) => void;
  now?: () => number;
  /** A whole fit of `bank` from `init` (model space) to `distanceTolerance`: its thetas' point and passes. */
  refit(bank: ResponseBank, init: Float64Array, distanceTolerance: number): { x: Float64Array; passes: number };
}

/**
 * seMode 'twin' (fit/twinBias.ts): refit the model's own predictions from the fit's point x and take
 * max(prior term, TWIN_BIAS_SCALE b^2) as the bias term, b the twin's bias; stopped at TWIN_DISTANCE.
 */
export function twinStandardErrors(
  p: FitProblem,
  fitEnd: Restarted,
  x: Float64Array,
  seParts: ThetaStandardErrors,
  options: TwinOptions,
): { se: Float64Array; twin: TwinCheck } {
  const now = options.now ?? Date.now;
  const t0 = now();
  const { J, layout } = p;
  const { retarget, predictTargets } = p.base;
  let twinX: Float64Array;
  let twinPasses: number;
  if (options.lbfgs !== null && retarget !== undefined) {
    // From the fit's end: its objective retargeted to the twin's q, its last blocks and its L-BFGS
    // memory. An engine that predicts the targets itself does so in its own lanes (no second q).
    let tb: ResponseBank | null = null;
    const twinOf = (): ResponseBank => (tb ??= twinBank(p.bank, layout, x));
    try {
      if (predictTargets !== undefined) predictTargets.call(p.base, x);
      else retarget.call(p.base, twinOf().q);
      const tw = warmTwin(p, fitEnd, options.lbfgs, twinOf, options.onProgress);
      twinX = p.toModel(tw.x);
      twinPasses = tw.passes;
    } finally {
      retarget.call(p.base, p.bank.q);
    }
  } else {
    // Adam, engines without retarget: a whole fit of the twin bank from x.
    const tw = options.refit(twinBank(p.bank, layout, x), x, TWIN_DISTANCE);
    twinX = tw.x;
    twinPasses = tw.passes;
  }
  const se = twinBiasSe(seParts.se, seParts.priorVariance, x.subarray(0, J), twinX.subarray(0, J), TWIN_BIAS_SCALE);
  return { se, twin: { passes: twinPasses, seconds: (now() - t0) / 1000, bias: Float64Array.from(twinX.subarray(0, J), (t, j) => t - x[j]!) } };
}

/**
 * The twin's L-BFGS run from the fit's end on its retargeted objective, preconditioned by the fit's
 * last blocks without refresh: their GN part reads the targets only through each cell's mass Q,
 * which the twin keeps, so they only precondition (BENCHMARKS.md "Cheap twin"). After a gate restart
 * that won (its blocks are not kept) the twin refreshes its own blocks as a fit does.
 */
function warmTwin(p: FitProblem, fitEnd: Restarted, run: LbfgsRun, twinOf: () => ResponseBank, onProgress: TwinOptions['onProgress']): OptimizeResult {
  const kept = fitEnd.endPc;
  const pc = kept ?? blockPreconditioner(twinOf(), p.family, p.priorObjective, p.priors, { engine: p.engine });
  return run(fitEnd.res.x, pc, {
    distanceTolerance: TWIN_DISTANCE,
    memory: TWIN_MEMORY,
    decreaseStepFrom: 0,
    ...(kept !== null ? { refreshed: true, refreshEvery: Infinity } : {}),
    onProgress: onProgress ? (q) => onProgress({ ...q, phase: 'twin' }) : undefined,
    ...(fitEnd.res.lbfgsMemory ? { startMemory: fitEnd.res.lbfgsMemory } : {}),
  });
}
