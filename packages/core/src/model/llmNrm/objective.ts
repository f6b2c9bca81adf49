import type { ResponseBank } from '../../data/bank.js';
import { LlmNrmError } from '../../errors.js';
import { computeDifficulties, difficultyBackward } from '../difficulty.js';
import { sigmoid, softplus, type LlmNrmLayout } from '../layout.js';
import { llmNrmFreeMask } from './layout.js';
import { priorPrecisions, finishLlmNrmPass, type EvalScope, type Objective, type Priors } from '../objective.js';

/**
 * The fused LLM-NRM kernel (paper.md, eqs. for u_jik, G_ji, p_jik): one pass over the ragged f32
 * data with f64 accumulation and an analytic gradient. Parts switched off in the layout cost nothing.
 */
export function llmNrmObjective(bank: ResponseBank, layout: LlmNrmLayout, priors: Priors = {}): Objective {
  const free = llmNrmFreeMask(layout);
  const prec = priorPrecisions(priors);
  const { llm: lamLlm, sharpness: lamS } = prec;
  const J = layout.nModels;
  const I = layout.nItems;
  const Kmax = layout.kMax;
  const { sharpness: useS, position: usePos, fallback: useFb } = layout.parts;
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC]!;
  const { observed, colItem, colOffsets, itemOffsets, colPosition } = bank;
  let targets = bank.q;
  const b = new Float64Array(I);
  const aux = new Float64Array(3 * I);
  const wts = new Float64Array(layout.sumK);
  const gb = new Float64Array(I);
  const v = new Float64Array(Kmax);
  const zd = new Float64Array(Kmax);
  const pos = new Int32Array(Kmax);
  const A = layout.a;
  const Cc = layout.c;

  function lossAndGrad(x: Float64Array, g: Float64Array, scope: EvalScope = {}): number {
    const q = targets;
    const r0 = scope.rowStart ?? 0;
    const r1 = scope.rowEnd ?? J;
    const tp = scope.thetaPrior === false ? 0 : 1;
    g.fill(0);
    if (useFb) {
      computeDifficulties(bank, x, A, Cc, b, aux, wts);
      gb.fill(0);
    }
    const w0 = x[layout.w0]!;
    const kappa = useFb ? softplus(x[layout.kbar]!) : 0;
    let gw0 = 0;
    let gkappa = 0;
    let loss = 0;
    for (let j = r0; j < r1; j++) {
      const th = x[layout.theta + j]!;
      const s = useS ? softplus(x[layout.sbar + j]!) : 1;
      const dOff = layout.delta + j * Kmax;
      const rOff = layout.rho + j * Kmax;
      let gth = 0;
      let gs = 0;
      let lossJ = 0;
      const rowObs = j * nC;
      const rowQ = j * width;
      for (let col = 0; col < nC; col++) {
        if (observed[rowObs + col] === 0) continue;
        const i = colItem[col]!;
        const io = itemOffsets[i]!;
        const co = colOffsets[col]!;
        const K = colOffsets[col + 1]! - co;
        const qo = rowQ + co;
        // Gate G_ji = sigmoid(w0 - kappa (theta_j - b_i)).
        let G = 0;
        if (useFb) G = sigmoid(w0 - kappa * (th - b[i]!));
        const oneMinusG = 1 - G;
        let vmax = -Infinity;
        for (let k = 0; k < K; k++) {
          const p = colPosition === null ? k : colPosition[co + k]!;
          pos[k] = p;
          // z + delta at the displayed position; u = s (z + delta); v = (1 - G) u + G rho.
          const z = x[A + io + k]! * th + x[Cc + io + k]! + (usePos ? x[dOff + p]! : 0);
          zd[k] = z;
          const vk = useFb ? oneMinusG * s * z + G * x[rOff + p]! : s * z;
          v[k] = vk;
          if (vk > vmax) vmax = vk;
        }
        let sum = 0;
        let Q = 0;
        let qv = 0;
        for (let k = 0; k < K; k++) {
          const e = Math.exp(v[k]! - vmax);
          sum += e;
          const qk = q[qo + k]!;
          Q += qk;
          qv += qk * v[k]!;
          v[k] = e; // v now holds unnormalised probabilities
        }
        const lse = vmax + Math.log(sum);
        lossJ += Q * lse - qv;
        // r_k = dL/dv_k = Q p_k - q_k; backprop through v = (1 - G) s z + G rho.
        const inv = Q / sum;
        let gG = 0;
        for (let k = 0; k < K; k++) {
          const r = v[k]! * inv - q[qo + k]!;
          const ru = oneMinusG * r; // dL/du_k
          const rz = ru * s; // dL/dz_k
          g[A + io + k]! += rz * th;
          g[Cc + io + k]! += rz;
          gth += rz * x[A + io + k]!;
          if (useS) gs += ru * zd[k]!;
          if (usePos) g[dOff + pos[k]!]! += rz;
          if (useFb) {
            g[rOff + pos[k]!]! += G * r;
            gG += r * (x[rOff + pos[k]!]! - s * zd[k]!);
          }
        }
        if (useFb) {
          const geta = gG * G * oneMinusG; // dL/d(eta), eta = w0 - kappa (theta - b)
          gw0 += geta;
          gkappa -= geta * (th - b[i]!);
          gth -= geta * kappa;
          gb[i]! += geta * kappa;
        }
      }
      loss += lossJ;
      // Priors: theta ~ N(0, 1); log s ~ N(0, sharpnessSd^2); delta, rho ~ N(0, llmSd^2).
      loss += 0.5 * tp * th * th;
      gth += tp * th;
      g[layout.theta + j]! += gth;
      if (useS) {
        const sb = x[layout.sbar + j]!;
        const ls = Math.log(s);
        loss += 0.5 * lamS * ls * ls;
        // d log s / d sbar = sigmoid(sbar) / s.
        g[layout.sbar + j]! += (gs + (lamS * ls) / s) * sigmoid(sb);
      }
      if (usePos) {
        for (let k = 0; k < Kmax; k++) {
          const d = x[dOff + k]!;
          loss += 0.5 * lamLlm * d * d;
          g[dOff + k]! += lamLlm * d;
        }
      }
      if (useFb) {
        for (let k = 0; k < Kmax; k++) {
          const r = x[rOff + k]!;
          loss += 0.5 * lamLlm * r * r;
          g[rOff + k]! += lamLlm * r;
        }
      }
    }
    if (useFb) {
      difficultyBackward(bank, x, A, gb, aux, wts, g, Cc);
      g[layout.w0]! += gw0;
      g[layout.kbar]! += gkappa * sigmoid(x[layout.kbar]!);
    }
    return finishLlmNrmPass(layout, x, g, free, prec, loss, scope);
  }
  const retarget = (q: Float32Array): void => {
    if (q.length !== bank.q.length) throw new LlmNrmError('INVALID_OPTION', `retarget: q has ${q.length} entries, the bank ${bank.q.length}`);
    targets = q;
  };
  return { layout, free, lossAndGrad, retarget };
}
