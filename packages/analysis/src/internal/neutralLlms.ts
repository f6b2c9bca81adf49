import { familyOfLayout } from '@llm-nrm/core';
import type { FitLike } from './fitting.js';

/**
 * A copy of the calibrated parameters whose held-out LLMs (or the rows with `setRows[j]` = 1) carry
 * the training LLMs' mean nuisance parameters: every per-LLM parameter of the family but theta
 * (`llmIndices`, theta first; LLM-NRM: sharpness, position bias, fallback; binary: none).
 */
export function neutralLlms(calib: FitLike, trainRows: Uint8Array, setRows?: Uint8Array): Float64Array {
  const xs = Float64Array.from(calib.x);
  const L = calib.layout;
  const family = familyOfLayout(L);
  const J = L.nModels;
  const idx = Array.from({ length: J }, (_, j) => family.llmIndices(L, j));
  const P = idx[0]?.length ?? 1;
  if (P <= 1) return xs;
  const mean = new Float64Array(P - 1);
  let n = 0;
  for (let j = 0; j < J; j++) {
    if (!trainRows[j]) continue;
    n++;
    for (let t = 1; t < P; t++) mean[t - 1]! += xs[idx[j]![t]!]!;
  }
  for (let t = 0; t < mean.length; t++) mean[t]! /= Math.max(1, n);
  for (let j = 0; j < J; j++) {
    if (setRows ? !setRows[j] : trainRows[j]) continue;
    for (let t = 1; t < P; t++) xs[idx[j]![t]!] = mean[t - 1]!;
  }
  return xs;
}
