import { llmParamIndices, type EvalScope, type Objective } from '@llm-nrm/core';

/** Standard errors of one LLM's parameters, items held fixed (NaN where a part is off). */
export interface LlmParameterErrors {
  theta: number;
  /** SE of the centred positional bias delta_jk - mean_k delta_jk, per displayed position. */
  positionBias: Float64Array;
  /** SE of the centred fallback rho_jk - mean_k rho_jk, per displayed position. */
  fallback: Float64Array;
}

/** Inverse of a symmetric positive (semi-)definite P x P matrix by Gauss-Jordan with a tiny ridge. */
function invert(H: Float64Array, P: number): Float64Array {
  const A = Float64Array.from(H);
  let scale = 0;
  for (let p = 0; p < P; p++) scale = Math.max(scale, Math.abs(A[p * P + p]!));
  for (let p = 0; p < P; p++) A[p * P + p]! += 1e-10 * (scale || 1);
  const inv = new Float64Array(P * P);
  for (let p = 0; p < P; p++) inv[p * P + p] = 1;
  for (let c = 0; c < P; c++) {
    let piv = c;
    for (let r = c + 1; r < P; r++) if (Math.abs(A[r * P + c]!) > Math.abs(A[piv * P + c]!)) piv = r;
    if (piv !== c) {
      for (let t = 0; t < P; t++) {
        [A[c * P + t], A[piv * P + t]] = [A[piv * P + t]!, A[c * P + t]!];
        [inv[c * P + t], inv[piv * P + t]] = [inv[piv * P + t]!, inv[c * P + t]!];
      }
    }
    const d = A[c * P + c]!;
    if (d === 0) return inv.fill(NaN);
    for (let t = 0; t < P; t++) {
      A[c * P + t]! /= d;
      inv[c * P + t]! /= d;
    }
    for (let r = 0; r < P; r++) {
      if (r === c) continue;
      const f = A[r * P + c]!;
      if (f === 0) continue;
      for (let t = 0; t < P; t++) {
        A[r * P + t]! -= f * A[c * P + t]!;
        inv[r * P + t]! -= f * inv[c * P + t]!;
      }
    }
  }
  return inv;
}

/**
 * Standard errors of each LLM's theta, positional biases and fallback from the observed information
 * of its own block (items and globals fixed), as core's thetaStandardErrors forms it: the Hessian
 * of the MAP loss by forward differences of the analytic gradient (step 1e-5 max(1, |x|)), inverted
 * whole, so each SE accounts for the trade-offs within the block (theta against sharpness, bias
 * against fallback). With items fixed, LLM j's block gradient depends on its own parameters only,
 * so one parameter of every LLM is stepped at once: P + 1 passes over the bank in all, not
 * J (P + 1) (the difference between 2 s and 150 s at 189 x 31,554). Biases and fallbacks are
 * reported centred (they sum to zero in the bundle), with the variance of the centred contrast,
 * e_k' C Sigma C e_k, C = I - 11'/K. `scope` defaults to { thetaPrior: false }, the standardised
 * calibration's. `rows` (default all) are the LLMs to report, in that order.
 */
export function llmParameterErrors(obj: Objective, x: Float64Array, rows?: number[], scope: EvalScope = { thetaPrior: false }): LlmParameterErrors[] {
  const layout = obj.layout;
  const J = layout.nModels;
  const list = rows ?? Array.from({ length: J }, (_, j) => j);
  if (list.length === 0) return [];
  const sc: EvalScope = { ...scope, itemPrior: false };
  const idxOf = list.map((j) => llmParamIndices(layout, j).filter((t) => obj.free[t]));
  const P = idxOf[0]!.length;
  const xx = Float64Array.from(x);
  const g0 = new Float64Array(layout.size);
  const g1 = new Float64Array(layout.size);
  obj.lossAndGrad(xx, g0, sc);
  const H = list.map(() => new Float64Array(P * P));
  for (let p = 0; p < P; p++) {
    const steps = idxOf.map((idx) => {
      const t = idx[p]!;
      const h = 1e-5 * Math.max(1, Math.abs(xx[t]!));
      xx[t] = x[t]! + h;
      return h;
    });
    obj.lossAndGrad(xx, g1, sc);
    idxOf.forEach((idx, n) => {
      xx[idx[p]!] = x[idx[p]!]!;
      for (let r = 0; r < P; r++) H[n]![r * P + p] = (g1[idx[r]!]! - g0[idx[r]!]!) / steps[n]!;
    });
  }
  return list.map((j, n) => blockErrors(layout, j, idxOf[n]!, H[n]!, P));
}

function blockErrors(layout: Objective['layout'], j: number, idx: number[], H: Float64Array, P: number): LlmParameterErrors {
  for (let r = 0; r < P; r++) for (let c = r + 1; c < P; c++) {
    const m = 0.5 * (H[r * P + c]! + H[c * P + r]!);
    H[r * P + c] = m;
    H[c * P + r] = m;
  }
  const S = invert(H, P);
  const at = new Map(idx.map((t, p) => [t, p]));
  const cov = (a: number, b: number) => {
    const pa = at.get(a);
    const pb = at.get(b);
    return pa === undefined || pb === undefined ? NaN : S[pa * P + pb]!;
  };
  const centredSe = (offset: number, K: number): Float64Array => {
    const out = new Float64Array(K);
    const ids = Array.from({ length: K }, (_, k) => offset + k);
    if (ids.some((t) => !at.has(t))) return out.fill(NaN);
    // Var(d_k - mean d) = S_kk - 2/K sum_l S_kl + 1/K^2 sum_lm S_lm.
    let tot = 0;
    const row = new Float64Array(K);
    for (let k = 0; k < K; k++) for (let l = 0; l < K; l++) {
      const s = cov(ids[k]!, ids[l]!);
      row[k]! += s;
      tot += s;
    }
    for (let k = 0; k < K; k++) {
      const v = cov(ids[k]!, ids[k]!) - (2 / K) * row[k]! + tot / (K * K);
      out[k] = v > 0 ? Math.sqrt(v) : 0;
    }
    return out;
  };
  const thetaVar = cov(layout.theta + j, layout.theta + j);
  const theta = thetaVar > 0 ? Math.sqrt(thetaVar) : NaN;
  if (layout.kind !== 'llm-nrm') return { theta, positionBias: new Float64Array(0), fallback: new Float64Array(0) };
  return { theta, positionBias: centredSe(layout.delta + j * layout.kMax, layout.kMax), fallback: centredSe(layout.rho + j * layout.kMax, layout.kMax) };
}
