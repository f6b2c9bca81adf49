import { familyOfLayout, softplus } from '@llm-nrm/core';
import type { FitLike } from './fitting.js';

/**
 * Mean log sharpness of the LLMs `rows` (ascending) in a calibration: the centre of a tiny run's
 * log-normal sharpness prior (the fleet's, as core's scoring centres it). 0 for families without
 * sharpness, or no rows.
 */
export function meanLogSharpness(calib: FitLike, rows: readonly number[]): number {
  const L = calib.layout;
  const sharpness = familyOfLayout(L).sharpnessIndex;
  if (sharpness === null || rows.length === 0) return 0;
  let s = 0;
  for (const j of rows) s += Math.log(softplus(calib.x[sharpness(L, j)]!));
  return s / rows.length;
}
