import { gridGoldenMinimum } from '@llm-nrm/core/engine';

/**
 * One-dimensional MAP of theta: minimise nll(theta) + theta^2 / 2 (the N(0, 1) prior) on [-6, 6]:
 * a grid at step 0.25 finds the basin, golden-section search refines it to 1e-7. Robust to the
 * flat or one-sided likelihoods of few or all-correct responses, where Newton steps wander.
 */
export function mapTheta(nll: (theta: number) => number, lo = -6, hi = 6): number {
  return gridGoldenMinimum((t) => nll(t) + 0.5 * t * t, lo, hi, 0.25, 1e-7, true);
}
