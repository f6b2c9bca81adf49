import type { CurvatureBuilder } from '../engines.js';
import type { FitProblem } from './identify.js';
import { thetaStandardErrors, type ThetaStandardErrors } from './standardErrors.js';

/** Whether the twin's bias term follows (then the prior term's spread is the measured one). */
export interface FitSeOptions {
  twin: boolean;
}

/**
 * Per-LLM SEs of theta from each LLM's own block at the fit's point x (model space): 'quasi' for
 * fleet fits with the items profiled out, 'fisher' for scoring (fixItems). Under standardisation no
 * theta prior enters the block's information.
 */
export function fitStandardErrors(p: FitProblem, x: Float64Array, options: FitSeOptions): ThetaStandardErrors {
  const thetaPrecision = p.identification === 'standardize' ? 0 : 1 / (p.thetaSd * p.thetaSd);
  // The engine's curvature where it has one for this objective (e.g. engine-wasm's kernel).
  const curvature: CurvatureBuilder | null = p.engine.curvature?.(p.bank, p.family, p.priors, p.base) ?? null;
  return thetaStandardErrors(p.family, p.bank, p.layout, x, p.priorObjective.free, p.priors, thetaPrecision, {
    profileItems: !p.fixItems,
    errorModel: p.fixItems ? 'fisher' : 'quasi',
    ...(options.twin ? { spread: 'measured' as const } : {}),
    ...(curvature === null ? {} : { curvature }),
  });
}
