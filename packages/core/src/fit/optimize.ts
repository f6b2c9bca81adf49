import { blockPreconditioner, type BlockPreconditioner } from './blockPreconditioner.js';
import { standardizeInto } from '../internal/standardized.js';
import { minimizeAdam } from './adam.js';
import type { FitProblem } from './identify.js';
import { minimizeLbfgs } from './lbfgs.js';
import type { OptimizeOptions, OptimizeProgress, OptimizeResult, OptimizerName } from './optimizer.js';

/**
 * Default L-BFGS stop: every parameter estimated within 0.01 of its standard error of the optimum
 * (predicted remaining decrease 5e-5 nats); why not 0.05: BENCHMARKS.md "Stopping in units of standard error".
 */
export const DISTANCE_TOLERANCE = 0.01;

/**
 * The iteration from which the fit's line search starts from Nocedal and Wright's eq. 3.60 step
 * (fit/lbfgs.ts, OptimizeOptions.decreaseStepFrom); the twin, a refit from the optimum, uses it from
 * its first. Why 30, not 0: BENCHMARKS.md "The first trial step".
 */
const DECREASE_STEP_FROM = 30;

/** What `optimize` reads of FitOptions. */
export interface OptimizeStageOptions {
  /** 'lbfgs' (default: block-preconditioned L-BFGS) or 'adam' (the paper's recipe). */
  optimizer?: OptimizerName;
  /** Adam steps (default 2500) and learning rate (default 0.05). */
  steps?: number;
  lr?: number;
  /** L-BFGS iteration cap (default 1000). */
  maxIterations?: number;
  /**
   * L-BFGS stops once the estimated distance to the optimum (the Newton decrement in its Hessian
   * model, in units of standard error: every parameter within that many of its SEs) is below this.
   * Default 0.01. 0 turns it off (then `tolerance` or the gradient criterion stop the fit).
   */
  distanceTolerance?: number;
  /** Also stop when the loss falls by less than tolerance x |loss| over 5 iterations (default 0: off). */
  tolerance?: number;
  /**
   * The `tolerance` stop counts only once the estimated distance to the optimum is below this many
   * SEs (default: the family's `toleranceDistance`, else Infinity: always).
   */
  toleranceDistance?: number;
  onProgress?: (p: OptimizeProgress & { phase: string }) => void;
  now?: () => number;
}

/** An L-BFGS run on the problem's objective from `start`, preconditioned by `pc` (refreshed in model space). */
export type LbfgsRun = (start: Float64Array, pc: BlockPreconditioner, more?: OptimizeOptions) => OptimizeResult;

/** The optimizer's run; under L-BFGS also its runner and first preconditioner, for the stages after it. */
export interface Optimized {
  res: OptimizeResult;
  lbfgs: { run: LbfgsRun; pc: BlockPreconditioner } | null;
}

/**
 * Minimise the problem's objective from its start: Adam (the paper's recipe) or block-preconditioned
 * L-BFGS (the default), which stops at the SE distance `distanceTolerance`.
 */
export function optimize(p: FitProblem, options: OptimizeStageOptions): Optimized {
  const progress = options.onProgress ? (q: OptimizeProgress) => options.onProgress!({ ...q, phase: 'fit' }) : undefined;
  const common = { ...(progress ? { onProgress: progress } : {}), ...(options.now ? { now: options.now } : {}) };
  if ((options.optimizer ?? 'lbfgs') === 'adam') {
    return { res: minimizeAdam(p.objective, p.start, { ...common, steps: options.steps ?? 2500, lr: options.lr ?? 0.05 }), lbfgs: null };
  }
  const run = lbfgsRunner(p, options, common);
  const pc = blockPreconditioner(p.bank, p.family, p.priorObjective, p.priors, { engine: p.engine });
  return { res: run(p.start, pc), lbfgs: { run, pc } };
}

function lbfgsRunner(p: FitProblem, options: OptimizeStageOptions, common: OptimizeOptions): LbfgsRun {
  const { J, layout, family } = p;
  const standardize = p.identification === 'standardize';
  // Checked after every accepted step: the standardised copy into one buffer, not a fresh
  // 371,000-entry array per iteration at paper scale (the same values; deg keeps no reference).
  const degX = standardize ? new Float64Array(layout.size) : null;
  const degModel = (x: Float64Array): Float64Array => {
    if (degX === null) return x;
    standardizeInto(x, J, degX);
    return degX;
  };
  const degenerate = p.fixItems ? null : (x: Float64Array) => family.degenerate(p.bank, layout, degModel(x));
  // Standardised theta lives in x as raw t: the family's curvature reads the model's values.
  const refreshOf = (pc: BlockPreconditioner) => (standardize ? (x: Float64Array) => pc.refresh(p.toModel(x)) : pc.refresh);
  const lossNoise = p.base.lossNoise;
  return (start, pc, more = {}) =>
    minimizeLbfgs(p.objective, start, {
      ...common,
      preconditioner: { apply: pc.apply, applyPair: pc.applyPair, refresh: refreshOf(pc) },
      refreshEvery: 10,
      ...(lossNoise ? { lossNoise } : {}),
      maxIterations: options.maxIterations ?? 1000,
      tolerance: options.tolerance ?? 0,
      distanceTolerance: options.distanceTolerance ?? DISTANCE_TOLERANCE,
      toleranceDistance: options.toleranceDistance ?? family.toleranceDistance,
      decreaseStepFrom: DECREASE_STEP_FROM,
      ...(p.engine.vectors ? { vectors: p.engine.vectors } : {}),
      ...(degenerate ? { stop: degenerate } : {}),
      ...more,
    });
}
