import { DEFAULT_PRIORS, itemDifficulties, optionLevelLayout, sigmoid, softplus, type Layout, type Priors, type ResponseBank } from '@llm-nrm/core';
import { freeMask, llmParamIndices } from '@llm-nrm/core/engine';
import { llmInformation } from './llmInformation.js';

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
 * Standard errors of each LLM's theta, sharpness, positional biases and fallback, items and globals
 * fixed, from the Fisher (expected) information of its own block, summed over its observed cells
 * in one pass over the bank (paper.md, LLM-NRM):
 *   v_k = (1 - G) s z_k + G rho_pos(k),  z_k = a_k theta + c_k + delta_pos(k),  G = sigmoid(w0 - kappa (theta - b_i))
 *   I = Q J' (diag(p) - p p') J,  J = dv/d(theta, sbar, delta, rho)   (Q = the cell's probability mass)
 *   dv_k/dtheta = (1 - G) s a_k - kappa G (1 - G) (rho_k - s z_k),  dv_k/dsbar = (1 - G) z_k sigmoid(sbar),
 *   dv_k/ddelta_m = (1 - G) s [pos_k = m],  dv_k/drho_m = G [pos_k = m],
 * plus the priors' curvature (delta, rho ~ N(0, llmSd^2); log s ~ N(0, sharpnessSd^2)), inverted whole
 * so each SE accounts for the trade-offs within the block. The observed information (core's
 * thetaStandardErrors, by finite differences) costs a pass per parameter: 23 passes of the
 * 189 x 31,554 bank, about 100 s; this is one. Biases and fallbacks are reported centred (they sum
 * to zero in the bundle), with the variance of the centred contrast e_k' C Sigma C e_k,
 * C = I - 11'/K. `rows` (default all) are the LLMs to report, in that order.
 */
export function llmParameterErrors(
  bank: ResponseBank,
  layout: Layout,
  x: Float64Array,
  options: { rows?: number[]; priors?: Priors } = {},
): LlmParameterErrors[] {
  const J = layout.nModels;
  const list = options.rows ?? Array.from({ length: J }, (_, j) => j);
  if (!optionLevelLayout(layout)) {
    // Binary families: theta only, I = sum (dP/dtheta)^2 / (P (1 - P)) (analysis' llmInformation).
    return list.map((j) => {
      const info = llmInformation(bank, layout, x, j).total;
      let tot = 0;
      for (let c = 0; c < info.length; c++) if (bank.observed[j * info.length + c]) tot += info[c]!;
      return { theta: tot > 0 ? 1 / Math.sqrt(tot) : NaN, positionBias: new Float64Array(0), fallback: new Float64Array(0) };
    });
  }
  const { llmSd, sharpnessSd } = { ...DEFAULT_PRIORS, ...(options.priors ?? {}) };
  const K0 = layout.kMax;
  const P0 = 2 + 2 * K0;
  const free = freeMask(layout);
  const { sharpness: useS, position: usePos, fallback: useFb } = layout.parts;
  const b = useFb ? itemDifficulties(bank, layout, x) : null;
  const kappa = softplus(x[layout.kbar]!);
  const w0 = x[layout.w0]!;
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC]!;
  const v = new Float64Array(bank.kMax);
  const dth = new Float64Array(bank.kMax);
  const dsb = new Float64Array(bank.kMax);
  const pos = new Int32Array(bank.kMax);
  const u = new Float64Array(P0);
  const nz = new Int32Array(P0);
  const idx4 = new Int32Array(4);
  const val4 = new Float64Array(4);
  return list.map((j) => {
    const H = new Float64Array(P0 * P0);
    const U = new Float64Array(P0 * P0);
    const th = x[layout.theta + j]!;
    const sb = x[layout.sbar + j]!;
    const s = useS ? softplus(sb) : 1;
    const ds = useS ? sigmoid(sb) : 0;
    const dOff = layout.delta + j * K0;
    const rOff = layout.rho + j * K0;
    for (let col = 0; col < nC; col++) {
      if (!bank.observed[j * nC + col]) continue;
      const i = bank.colItem[col]!;
      const io = bank.itemOffsets[i]!;
      const co = bank.colOffsets[col]!;
      const K = bank.colOffsets[col + 1]! - co;
      const qo = j * width + co;
      let Q = 0;
      for (let k = 0; k < K; k++) Q += bank.q[qo + k]!;
      const G = b ? sigmoid(w0 - kappa * (th - b[i]!)) : 0;
      const dG = -kappa * G * (1 - G);
      let m = -Infinity;
      for (let k = 0; k < K; k++) {
        const p = bank.colPosition === null ? k : bank.colPosition[co + k]!;
        pos[k] = p;
        const a = x[layout.a + io + k]!;
        const z = a * th + x[layout.c + io + k]! + (usePos ? x[dOff + p]! : 0);
        const rho = useFb ? x[rOff + p]! : 0;
        v[k] = (1 - G) * s * z + G * rho;
        dth[k] = (1 - G) * s * a + dG * (rho - s * z);
        dsb[k] = (1 - G) * z * ds;
        if (v[k]! > m) m = v[k]!;
      }
      let sum = 0;
      for (let k = 0; k < K; k++) {
        v[k] = Math.exp(v[k]! - m);
        sum += v[k]!;
      }
      // H += Q (sum_k p_k J_k J_k' - u u'), u = J' p; J_k has 4 non-zeros (theta, sbar, delta_pos,
      // rho_pos), so u has at most 2 + 2K (its support nz[0..n)).
      const dd = (1 - G) * s;
      nz[0] = 0;
      nz[1] = 1;
      let n = 2;
      for (let k = 0; k < K; k++) {
        nz[n++] = 2 + pos[k]!;
        nz[n++] = 2 + K0 + pos[k]!;
      }
      for (let t = 0; t < n; t++) u[nz[t]!] = 0;
      for (let k = 0; k < K; k++) {
        const pk = (Q * v[k]!) / sum;
        idx4[0] = 0;
        idx4[1] = 1;
        idx4[2] = 2 + pos[k]!;
        idx4[3] = 2 + K0 + pos[k]!;
        val4[0] = dth[k]!;
        val4[1] = dsb[k]!;
        val4[2] = dd;
        val4[3] = G;
        for (let r = 0; r < 4; r++) {
          u[idx4[r]!]! += (pk / Q) * val4[r]!;
          const row = idx4[r]! * P0;
          const pr = pk * val4[r]!;
          for (let c = 0; c < 4; c++) H[row + idx4[c]!]! += pr * val4[c]!;
        }
      }
      // Q u u', one triangle (a <= c in nz order) into U; U + U' - diag(U) is added at the end.
      // Each index appears once in nz (positions of one presentation are distinct).
      for (let a = 0; a < n; a++) {
        const base = nz[a]! * P0;
        const ur = Q * u[nz[a]!]!;
        for (let c = a; c < n; c++) {
          const t = nz[c]!;
          U[base + t]! += ur * u[t]!;
        }
      }
    }
    for (let r = 0; r < P0; r++) {
      for (let c = 0; c < P0; c++) H[r * P0 + c]! -= r === c ? U[r * P0 + c]! : U[r * P0 + c]! + U[c * P0 + r]!;
    }
    // Priors' curvature (theta carries none: the calibration standardises it instead).
    if (useS) H[1 * P0 + 1]! += ((ds / s) * (ds / s)) / (sharpnessSd * sharpnessSd);
    for (let k = 0; k < K0; k++) {
      H[(2 + k) * P0 + 2 + k]! += 1 / (llmSd * llmSd);
      H[(2 + K0 + k) * P0 + 2 + K0 + k]! += 1 / (llmSd * llmSd);
    }
    // Keep the free parameters only (parts switched off, and their mask in the layout).
    const full = llmParamIndices(layout, j);
    const keep = full.map((t, r) => (free[t] ? r : -1)).filter((r) => r >= 0);
    const P = keep.length;
    const Hs = new Float64Array(P * P);
    keep.forEach((r, a) => keep.forEach((c, bb) => (Hs[a * P + bb] = H[r * P0 + c]!)));
    return blockErrors(
      layout,
      j,
      keep.map((r) => full[r]!),
      Hs,
      P,
    );
  });
}

function blockErrors(layout: Layout, j: number, idx: number[], H: Float64Array, P: number): LlmParameterErrors {
  for (let r = 0; r < P; r++)
    for (let c = r + 1; c < P; c++) {
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
    for (let k = 0; k < K; k++)
      for (let l = 0; l < K; l++) {
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
  if (!optionLevelLayout(layout)) return { theta, positionBias: new Float64Array(0), fallback: new Float64Array(0) };
  return { theta, positionBias: centredSe(layout.delta + j * layout.kMax, layout.kMax), fallback: centredSe(layout.rho + j * layout.kMax, layout.kMax) };
}
