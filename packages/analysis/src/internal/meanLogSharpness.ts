import { familyOfLayout, softplus } from '@llm-nrm/core';
import type { FitLike } from './fitting.js';

/**
 * Mean log sharpness of the LLMs `rows` (ascending) in a calibration: the centre of a tiny run's
 * log-normal sharpness prior (the fleet's, as core's scoring centres it). 0 for families without
 * sharpness, or no rows.
 */
export function meanLogSharpness(calib: FitLike, rows: readonly number[]): number {
  const L = calib.layout;
  const family = familyOfLayout(L);
  if (family.kind !== 'option-level' || rows.length === 0) return 0;
  let s = 0;
  for (const j of rows) s += Math.log(softplus(calib.x[family.sharpnessIndex(L, j)]!));
  return s / rows.length;
}
