import type { FitLike } from './fitting.js';

/**
 * A copy of the calibrated parameters whose held-out LLMs (or the rows with `setRows[j]` = 1) carry
 * the training LLMs' mean nuisance parameters.
 */
export function neutralLlms(calib: FitLike, trainRows: Uint8Array, setRows?: Uint8Array): Float64Array {
  const xs = Float64Array.from(calib.x);
  const L = calib.layout;
  if (L.kind !== 'llm-nrm') return xs;
  const J = L.nModels;
  const Km = L.kMax;
  const mean = new Float64Array(1 + 2 * Km);
  let n = 0;
  for (let j = 0; j < J; j++) {
    if (!trainRows[j]) continue;
    n++;
    mean[0]! += xs[L.sbar + j]!;
    for (let t = 0; t < Km; t++) {
      mean[1 + t]! += xs[L.delta + j * Km + t]!;
      mean[1 + Km + t]! += xs[L.rho + j * Km + t]!;
    }
  }
  for (let t = 0; t < mean.length; t++) mean[t]! /= Math.max(1, n);
  for (let j = 0; j < J; j++) {
    if (setRows ? !setRows[j] : trainRows[j]) continue;
    xs[L.sbar + j] = mean[0]!;
    for (let t = 0; t < Km; t++) {
      xs[L.delta + j * Km + t] = mean[1 + t]!;
      xs[L.rho + j * Km + t] = mean[1 + Km + t]!;
    }
  }
  return xs;
}
