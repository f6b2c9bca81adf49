import type { ResponseBank } from './bank.js';
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

/** Mask of the parameters that are free (1) vs fixed (0) under the layout's switched-off parts. */
export function freeMask(layout: Layout): Uint8Array {
  const m = new Uint8Array(layout.size).fill(1);
  if (layout.kind === 'llm-nrm') {
    const { parts, nModels: J, kMax } = layout;
    if (!parts.sharpness) m.fill(0, layout.sbar, layout.sbar + J);
    if (!parts.position) m.fill(0, layout.delta, layout.delta + J * kMax);
    if (!parts.fallback) {
      m.fill(0, layout.rho, layout.rho + J * kMax);
      m[layout.w0] = 0;
      m[layout.kbar] = 0;
    }
  } else {
    const I = layout.nItems;
    if (layout.pl < 2) m.fill(0, layout.slope, layout.slope + I);
    if (layout.pl < 3) m.fill(0, layout.guess, layout.guess + I);
    if (layout.pl < 4) m.fill(0, layout.slip, layout.slip + I);
  }
  return m;
}

/** Indices of the per-LLM parameters of model j (theta, sbar, delta_j., rho_j.) or (theta) for binary. */
export function llmParamIndices(layout: Layout, j: number): number[] {
  if (layout.kind === 'binary') return [layout.theta + j];
  const out = [layout.theta + j, layout.sbar + j];
  for (let k = 0; k < layout.kMax; k++) out.push(layout.delta + j * layout.kMax + k);
  for (let k = 0; k < layout.kMax; k++) out.push(layout.rho + j * layout.kMax + k);
  return out;
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
