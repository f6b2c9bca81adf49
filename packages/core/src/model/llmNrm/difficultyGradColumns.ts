// The finite-difference columns of the gate difficulty's Hessian in a curvature item block: the
// bits of 2K + 1 fresh difficultyGradBase calls per item, sharing their exps and log.
import { difficultyGradTail } from '../difficulty.js';

/**
 * The unperturbed state of difficultyGradBase at (a, c) that its finite-difference columns share:
 * m = max_{k != key} c_k, the unnormalised weights exp(c_k - m) (0 at the key), their sum and its log.
 */
export interface DifficultyGradScratch {
  m: number;
  s: number;
  logS: number;
  ew: Float64Array;
  ew2: Float64Array;
  wn: Float64Array;
}

/** The gate difficulty's gradient at (a, c) into grad (difficultyGradTail), keeping its exps and log in `fd` for difficultyGradColumn. */
export function difficultyGradBase(a: Float64Array, c: Float64Array, K: number, g: number, fd: DifficultyGradScratch, grad: Float64Array): void {
  let m = -Infinity;
  for (let k = 0; k < K; k++) if (k !== g && c[k]! > m) m = c[k]!;
  let s = 0;
  const ew = fd.ew;
  for (let k = 0; k < K; k++) {
    ew[k] = k === g ? 0 : Math.exp(c[k]! - m);
    s += ew[k]!;
  }
  fd.m = m;
  fd.s = s;
  fd.logS = Math.log(s);
  difficultyGradTail(a, K, g, ew, s, m + fd.logS - c[g]!, fd.wn, grad);
}

/**
 * difficultyGradBase at (a, c) with coordinate p (a_p for p < K, else c_{p-K}) perturbed from
 * difficultyGradBase's point, the same bits as a fresh call, recomputing only the weights that changed.
 */
export function difficultyGradColumn(a: Float64Array, c: Float64Array, K: number, g: number, p: number, fd: DifficultyGradScratch, grad: Float64Array): void {
  const kk = p - K;
  // a, or the key's c: the distractors' weights are unchanged.
  if (p < K || kk === g) {
    difficultyGradTail(a, K, g, fd.ew, fd.s, fd.m + fd.logS - c[g]!, fd.wn, grad);
    return;
  }
  let m = -Infinity;
  for (let k = 0; k < K; k++) if (k !== g && c[k]! > m) m = c[k]!;
  const ew = fd.ew2;
  let s = 0;
  if (m === fd.m) {
    for (let k = 0; k < K; k++) {
      ew[k] = k === kk ? Math.exp(c[k]! - m) : fd.ew[k]!;
      s += ew[k]!;
    }
  } else {
    for (let k = 0; k < K; k++) {
      ew[k] = k === g ? 0 : Math.exp(c[k]! - m);
      s += ew[k]!;
    }
  }
  difficultyGradTail(a, K, g, ew, s, m + Math.log(s) - c[g]!, fd.wn, grad);
}

/** Scratch for items of up to kMax options. */
export function difficultyGradScratch(kMax: number): DifficultyGradScratch {
  return { m: 0, s: 0, logS: 0, ew: new Float64Array(kMax), ew2: new Float64Array(kMax), wn: new Float64Array(kMax) };
}
