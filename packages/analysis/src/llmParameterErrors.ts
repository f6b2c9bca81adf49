import { familyOfLayout, optionLevelLayout, type Layout, type Priors, type ResponseBank } from '@llm-nrm/core';
import { inverseSpd } from '@llm-nrm/core/engine';

/** Standard errors of one LLM's parameters, items held fixed (NaN where a part is off). */
export interface LlmParameterErrors {
  theta: number;
  /** SE of the centred positional bias delta_jk - mean_k delta_jk, per displayed position. */
  positionBias: Float64Array;
  /** SE of the centred fallback rho_jk - mean_k rho_jk, per displayed position. */
  fallback: Float64Array;
}

/**
 * Standard errors of each LLM's theta, sharpness, positional biases and fallback, items and globals
 * fixed, from the Fisher (expected) information of its own block (paper.md, LLM-NRM): the family's
 * Gauss-Newton block over `llmIndices` (core's curvature, `CurvatureAt.llm`; for a softmax
 * I = Q J' (diag(p) - p p') J, J = dv/d(theta, sbar, delta, rho), with the priors on sharpness,
 * bias and fallback, theta's left out: the calibration standardises it instead), restricted to the
 * free parameters and inverted whole, so each SE accounts for the trade-offs within the block. The
 * observed information (core's thetaStandardErrors, by finite differences) costs a pass per
 * parameter: 23 passes of the 189 x 31,554 bank, about 100 s; this is one. Biases and fallbacks are
 * reported centred (they sum to zero in the bundle), with the variance of the centred contrast
 * e_k' C Sigma C e_k, C = I - 11'/K. Binary families: theta only, I = sum (dP/dtheta)^2 / (P (1 - P)).
 * `rows` (default all) are the LLMs to report, in that order.
 */
export function llmParameterErrors(
  bank: ResponseBank,
  layout: Layout,
  x: Float64Array,
  options: { rows?: number[]; priors?: Priors } = {},
): LlmParameterErrors[] {
  const family = familyOfLayout(layout);
  const list = options.rows ?? Array.from({ length: layout.nModels }, (_, j) => j);
  const free = family.freeMask(layout);
  // Only the LLM blocks are read: the preconditioner's factorisations are skipped.
  const { llm } = family.curvature(bank, layout, options.priors ?? {})(x, free, { blocksUnused: true });
  return list.map((j) => blockErrors(layout, j, family.llmIndices(layout, j), llm[j]!, free));
}

/** The SEs of LLM j from its GN block H over `all` (its llmIndices), kept to the free parameters. */
function blockErrors(layout: Layout, j: number, all: number[], H: Float64Array, free: Uint8Array): LlmParameterErrors {
  const P0 = all.length;
  const keep: number[] = [];
  for (let r = 0; r < P0; r++) if (free[all[r]!]) keep.push(r);
  const P = keep.length;
  const Hs = new Float64Array(P * P);
  for (let a = 0; a < P; a++) for (let c = 0; c < P; c++) Hs[a * P + c] = H[keep[a]! * P0 + keep[c]!]!;
  // No information on theta (no observed cells): no finite SE, rather than the inverse of a jitter.
  const S = P > 0 && Hs[0]! > 0 ? inverseSpd(Hs) : new Float64Array(P * P).fill(NaN);
  const at = new Map(keep.map((r, p) => [all[r]!, p]));
  const cov = (a: number, b: number) => {
    const pa = at.get(a);
    const pb = at.get(b);
    return pa === undefined || pb === undefined ? NaN : S[pa * P + pb]!;
  };
  const centredSe = (offset: number, K: number): Float64Array => {
    const out = new Float64Array(K);
    for (let k = 0; k < K; k++) if (!at.has(offset + k)) return out.fill(NaN);
    // Var(d_k - mean d) = S_kk - 2/K sum_l S_kl + 1/K^2 sum_lm S_lm.
    let tot = 0;
    const row = new Float64Array(K);
    for (let k = 0; k < K; k++)
      for (let l = 0; l < K; l++) {
        const s = cov(offset + k, offset + l);
        row[k]! += s;
        tot += s;
      }
    for (let k = 0; k < K; k++) {
      const v = cov(offset + k, offset + k) - (2 / K) * row[k]! + tot / (K * K);
      out[k] = v > 0 ? Math.sqrt(v) : 0;
    }
    return out;
  };
  const thetaVar = cov(layout.theta + j, layout.theta + j);
  const theta = thetaVar > 0 ? Math.sqrt(thetaVar) : NaN;
  if (!optionLevelLayout(layout)) return { theta, positionBias: new Float64Array(0), fallback: new Float64Array(0) };
  return { theta, positionBias: centredSe(layout.delta + j * layout.kMax, layout.kMax), fallback: centredSe(layout.rho + j * layout.kMax, layout.kMax) };
}
