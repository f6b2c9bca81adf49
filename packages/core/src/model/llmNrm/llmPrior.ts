import { sigmoid, softplus, type LlmNrmLayout } from '../layout.js';
import { DEFAULT_PRIORS, type Priors } from '../objective.js';
import type { LlmPrior } from '../family.js';

/** Prior groups of an LLM-NRM LLM block (one fleet spread is estimated per group, see standardErrors). */
const SHARPNESS = 1;
const POSITION = 2;
const FALLBACK = 3;
const MEASURED: readonly number[] = [SHARPNESS];

/**
 * The priors on LLM j's own parameters, in `llmParamIndices` order (theta, sbar, delta, rho): the
 * same Gauss-Newton prior curvature that `llmNrmCurvature` adds to the LLM block (log s ~ N(0,
 * sharpnessSd^2): (s'/s)^2 / sd^2 on sbar; delta, rho ~ N(0, llmSd^2)), each value in prior SDs,
 * and its group. theta has none here (its prior, if any, is the identification's).
 */
export function llmNrmLlmPrior(L: LlmNrmLayout, x: Float64Array, priors: Priors, j: number): LlmPrior {
  const { llmSd, sharpnessSd } = { ...DEFAULT_PRIORS, ...priors };
  const K = L.kMax;
  const P = 2 + 2 * K;
  const precision = new Float64Array(P);
  const z = new Float64Array(P);
  const group = new Uint8Array(P);
  const { sharpness, position, fallback } = L.parts;
  if (sharpness) {
    const sb = x[L.sbar + j]!;
    const s = softplus(sb);
    const ds = sigmoid(sb) / s; // d log s / d sbar
    precision[1] = (ds * ds) / (sharpnessSd * sharpnessSd);
    z[1] = Math.log(s) / sharpnessSd;
    group[1] = SHARPNESS;
  }
  const lam = 1 / (llmSd * llmSd);
  for (let k = 0; k < K; k++) {
    if (position) {
      precision[2 + k] = lam;
      z[2 + k] = x[L.delta + j * K + k]! / llmSd;
      group[2 + k] = POSITION;
    }
    if (fallback) {
      precision[2 + K + k] = lam;
      z[2 + K + k] = x[L.rho + j * K + k]! / llmSd;
      group[2 + K + k] = FALLBACK;
    }
  }
  // The fleet's sharpness spread is measured (every cell informs it); the positions' and fallbacks'
  // unbiased moments sit at their floor (BENCHMARKS.md).
  return { precision, z, group, ...(sharpness ? { measured: MEASURED } : {}) };
}
