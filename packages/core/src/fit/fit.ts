import type { ResponseBank } from '../data/bank.js';
import { LlmNrmError } from '../errors.js';
import type { ModelFamily } from '../model/family.js';
import type { Layout } from '../model/layout.js';
import type { Priors } from '../model/objective.js';
import type { LlmNrmParts, ModelName } from '../model/types.js';
import { fitStandardErrors } from './fitStandardErrors.js';
import { gateRestart, type Restarted } from './gateRestart.js';
import { identify, type FitProblem, type IdentifyOptions } from './identify.js';
import { optimize, type OptimizeStageOptions, type Optimized } from './optimize.js';
import type { OptimizerName } from './optimizer.js';
import { twinStandardErrors, type TwinCheck } from './twin.js';

/** The SE modes of a fleet fit (FitOptions.seMode). */
export const SE_MODES = ['quasi', 'twin'] as const;
export type SeMode = (typeof SE_MODES)[number];

/** Every stage's options (identify, optimize) and the SEs'. */
export interface FitOptions extends IdentifyOptions, OptimizeStageOptions {
  /** Compute per-LLM standard errors of theta (default true). */
  standardErrors?: boolean;
  /**
   * How the SEs of a fleet fit are computed (scoring, fixItems, always uses 'fisher'). 'twin'
   * (default; soft option-level families, LLM-NRM and NRM, else 'quasi'): refit the model's own
   * predictions from the estimate (one more L-BFGS run from the fit's end, stopped at 0.1 SE) and
   * take max(prior term, TWIN_BIAS_SCALE b^2) as the bias term, b the twin's bias (fit/twinBias.ts).
   * 'quasi': thetaStandardErrors' 'quasi' SE alone. Coverage and cost: BENCHMARKS.md, "Cheap twin".
   */
  seMode?: SeMode;
}

/** The outcome of a fit: the flat parameters, their layout, and diagnostics. */
export interface FitResult {
  model: ModelName;
  parts: LlmNrmParts;
  /** The family fitted (layout, forward model, curvature). */
  family: ModelFamily;
  layout: Layout;
  x: Float64Array;
  /**
   * Standard error of theta per LLM (`seMode`: by default 'twin', thetaStandardErrors' 'quasi' SE
   * with the twin's bias term: the MAP's mean squared error from the profiled expected information,
   * the responses' measured dispersion and the priors' and the fleet's bias; 'fisher' under
   * fixItems, as scoring's other modes; NaN where not computed; Infinity where theta is not
   * identified by the LLM's cells and the priors).
   */
  se: Float64Array;
  /** The SE mode that ran ('fisher' under fixItems; absent without SEs). */
  seMode?: SeMode | 'fisher';
  /** The twin's bias check where it ran (seMode 'twin'): its passes and seconds, and theta_twin - theta per LLM. */
  twin?: TwinCheck;
  loss: number;
  iterations: number;
  passes: number;
  seconds: number;
  converged: boolean;
  /** The criterion that stopped the fit ('distance', 'tolerance', 'gradient', 'max-iterations', 'steps', ...). */
  reason: string;
  /** Estimated distance to the optimum at the end, in standard errors (L-BFGS's Newton decrement; NaN for Adam). */
  distance: number;
  /** The optimizer that ran: 'lbfgs' or 'adam'. */
  optimizer: OptimizerName;
  /** Name of the engine that computed loss and gradient ('ts', 'tfjs', ...). */
  engine: string;
  trace: number[];
  /** Seconds and passes at each trace entry. */
  traceSeconds: number[];
  tracePasses: number[];
  /** The bank the objective saw (hardened for nrm-hard). */
  bank: ResponseBank;
  priors: Priors;
}

/**
 * Fit a model to a bank by MAP (paper.md, "Fitting"): minimise the soft cross-entropy plus
 * theta ~ N(0, 1) (and weak priors, see Priors). The default L-BFGS reaches the loss of the paper's
 * Adam recipe in far fewer passes; `optimizer: 'adam'` runs the recipe itself. The stages: identify
 * the objective, optimize, restart from a degenerate gate basin, standard errors, the twin's bias term.
 */
export function fit(bank: ResponseBank, options: FitOptions = {}): FitResult {
  const optimizer = options.optimizer ?? 'lbfgs';
  if (optimizer !== 'lbfgs' && optimizer !== 'adam') {
    throw new LlmNrmError('INVALID_OPTION', `unknown optimizer: ${JSON.stringify(optimizer)} (lbfgs or adam)`);
  }
  // The SE stage would profile the frozen thetas: their SEs are the calibration's.
  if (options.fixLlms === true && options.standardErrors !== false) {
    throw new LlmNrmError('INVALID_OPTION', "fixLlms fits items only: pass standardErrors: false (theta's SEs are the calibration's)");
  }
  const p = identify(bank, options);
  const optimized = optimize(p, options);
  const ended = gateRestart(p, optimized);
  const { res } = ended;
  const x = p.toModel(res.x);
  const { se, seMode, twin } = standardErrorsOf(p, x, ended, optimized, options);
  const { loss, iterations, passes, seconds, converged, reason, trace, traceSeconds, tracePasses } = res;
  const run = { loss, iterations, passes, seconds, converged, reason, distance: res.distance ?? NaN, optimizer, engine: p.base.engine ?? p.engine.name };
  return {
    model: p.model,
    parts: p.parts,
    family: p.family,
    layout: p.layout,
    x,
    se,
    ...(seMode ? { seMode } : {}),
    ...(twin ? { twin } : {}),
    ...run,
    trace,
    traceSeconds,
    tracePasses,
    bank: p.bank,
    priors: p.priors,
  };
}

/**
 * The SE stages of a fit at its point x (model space): the SEs from the LLMs' own blocks, then, in
 * seMode 'twin' (soft option-level families' fleet fits), the twin's bias term.
 */
function standardErrorsOf(
  p: FitProblem,
  x: Float64Array,
  ended: Restarted,
  optimized: Optimized,
  options: FitOptions,
): { se: Float64Array; seMode: FitResult['seMode']; twin: TwinCheck | null } {
  if (options.standardErrors === false) return { se: new Float64Array(p.J).fill(NaN), seMode: undefined, twin: null };
  const twinMode = !p.fixItems && (options.seMode ?? 'twin') === 'twin' && p.family.kind === 'option-level' && !p.family.hardened;
  const seParts = fitStandardErrors(p, x, { twin: twinMode });
  if (!twinMode) return { se: seParts.se, seMode: p.fixItems ? 'fisher' : 'quasi', twin: null };
  const { seMode: _mode, onProgress: _p, ...rest } = options;
  const { se, twin } = twinStandardErrors(p, ended, x, seParts, {
    lbfgs: optimized.lbfgs?.run ?? null,
    // Adam, engines without retarget: a whole fit of the twin bank from x.
    refit: (twinBank, init, distanceTolerance) => fit(twinBank, { ...rest, init, standardErrors: false, distanceTolerance }),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  return { se, seMode: 'twin', twin };
}
