import type { ResponseBank } from '../data/bank.js';
import type { LlmNrmParts } from './types.js';

/**
 * Flat parameter layout of the LLM-NRM family (NRM is LLM-NRM with every part off). All parameters
 * live in one Float64Array so that every optimizer and engine shares one `lossAndGrad` seam:
 *
 *   theta[J] | sbar[J] | delta[J*Kmax] | rho[J*Kmax] | a[sumK] | c[sumK] | w0 | kbar
 *
 * s_j = softplus(sbar_j), kappa = softplus(kbar). delta and rho index the displayed position;
 * a and c the option's content (item offsets `bank.itemOffsets`).
 */
export interface LlmNrmLayout {
  kind: 'llm-nrm';
  nModels: number;
  nItems: number;
  kMax: number;
  sumK: number;
  theta: number;
  sbar: number;
  delta: number;
  rho: number;
  a: number;
  c: number;
  w0: number;
  kbar: number;
  size: number;
  parts: LlmNrmParts;
  /** LLMs whose sharpness is held at s = 1 (hardOnlyModels.ts: all-hard rows cannot identify it). Absent: none. */
  fixedSharpness?: readonly number[];
}

/**
 * Flat parameter layout of the binary IRT family on correctness:
 *   theta[J] | slope[I] | intercept[I] | guess[I] | slip[I]
 * P(correct) = c_i + (d_i - c_i) sigmoid(a_i theta + beta_i), c_i = sigmoid(guess_i),
 * d_i = 1 - sigmoid(slip_i); 1PL fixes a_i = 1, 1PL/2PL fix c = 0 and d = 1, 3PL fixes d = 1.
 */
export interface BinaryLayout {
  kind: 'binary';
  nModels: number;
  nItems: number;
  /** Number of item parameters: 1 to 4. */
  pl: 1 | 2 | 3 | 4;
  theta: number;
  slope: number;
  intercept: number;
  guess: number;
  slip: number;
  size: number;
}

export type Layout = LlmNrmLayout | BinaryLayout;

export function llmNrmLayout(bank: ResponseBank, parts: LlmNrmParts): LlmNrmLayout {
  const J = bank.models.length;
  const I = bank.items.length;
  const kMax = bank.kMax;
  const sumK = bank.itemOffsets[I]!;
  const theta = 0;
  const sbar = J;
  const delta = 2 * J;
  const rho = delta + J * kMax;
  const a = rho + J * kMax;
  const c = a + sumK;
  const w0 = c + sumK;
  const kbar = w0 + 1;
  return { kind: 'llm-nrm', nModels: J, nItems: I, kMax, sumK, theta, sbar, delta, rho, a, c, w0, kbar, size: kbar + 1, parts: { ...parts } };
}

export function binaryLayout(bank: ResponseBank, pl: 1 | 2 | 3 | 4): BinaryLayout {
  const J = bank.models.length;
  const I = bank.items.length;
  return { kind: 'binary', nModels: J, nItems: I, pl, theta: 0, slope: J, intercept: J + I, guess: J + 2 * I, slip: J + 3 * I, size: J + 4 * I };
}

/** softplus(x) = log(1 + e^x), stable for large |x|. */
export function softplus(x: number): number {
  return x > 30 ? x : x < -30 ? Math.exp(x) : Math.log1p(Math.exp(x));
}

/** Inverse of softplus for y > 0. */
export function softplusInv(y: number): number {
  return y > 30 ? y : Math.log(Math.expm1(y));
}

/** The logistic function, stable at both ends (one exp either way). */
export function sigmoid(x: number): number {
  if (x >= 0) return 1 / (1 + Math.exp(-x));
  const e = Math.exp(x);
  return e / (1 + e);
}

/** v[0..K) replaced by softmax(v), shifted by the largest entry (the sum is then >= 1 and no exp overflows). */
export function softmaxInPlace(v: Float64Array, K: number): void {
  let m = -Infinity;
  for (let k = 0; k < K; k++) if (v[k]! > m) m = v[k]!;
  let s = 0;
  for (let k = 0; k < K; k++) {
    v[k] = Math.exp(v[k]! - m);
    s += v[k]!;
  }
  for (let k = 0; k < K; k++) v[k]! /= s;
}
