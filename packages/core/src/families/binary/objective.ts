import type { ResponseBank } from '../../bank.js';
import { freeMask, sigmoid, type BinaryLayout } from '../../layout.js';
import { priorPrecisions, checkFinite, type EvalScope, type Objective, type Priors } from '../../objective.js';

/**
 * Binary IRT kernel (1PL-4PL) on correctness y_ji = [argmax q_ji = g_i] (paper.md, baselines):
 * P_ji = lo_i + (hi_i - lo_i) sigmoid(a_i theta_j + beta_i), lo = sigmoid(guess) (3PL+),
 * hi = 1 - sigmoid(slip) (4PL), and L = -sum [y log P + (1 - y) log(1 - P)] + priors.
 * `y` is J x C with 255 for unobserved cells (see `correctness`).
 *
 * Speed: everything that depends on the item alone (a, beta, lo, hi) is read once per pass into
 * per-item arrays; a cell then costs one exp and one log (the old kernel took three sigmoids, each
 * up to two exps, per cell). Every sum is formed as before, in the same order: the same loss and
 * gradient bit for bit.
 */
export function binaryObjective(bank: ResponseBank, layout: BinaryLayout, y: Uint8Array, priors: Priors = {}): Objective {
  const free = freeMask(layout);
  const lamItem = priorPrecisions(priors).item;
  const J = layout.nModels;
  const I = layout.nItems;
  const nC = bank.colItem.length;
  const { colItem } = bank;
  const pl = layout.pl;
  // Per-item values at x, and per-item gradient sums (reused across passes).
  const A = new Float64Array(I);
  const B = new Float64Array(I);
  const LO = new Float64Array(I);
  const RANGE = new Float64Array(I);
  // sigmoid(guess) and sigmoid(slip) (= 1 - hi).
  const SG = new Float64Array(I);
  const SS = new Float64Array(I);
  const gA = new Float64Array(I);
  const gB = new Float64Array(I);
  const gLo = new Float64Array(I); // dL/dguess
  const gHi = new Float64Array(I); // dL/dslip

  function lossAndGrad(x: Float64Array, g: Float64Array, scope: EvalScope = {}): number {
    const r0 = scope.rowStart ?? 0;
    const r1 = scope.rowEnd ?? J;
    const tp = scope.thetaPrior === false ? 0 : 1;
    g.fill(0);
    for (let i = 0; i < I; i++) {
      A[i] = pl >= 2 ? x[layout.slope + i]! : 1;
      B[i] = x[layout.intercept + i]!;
      const lo = pl >= 3 ? sigmoid(x[layout.guess + i]!) : 0;
      const ss = pl >= 4 ? sigmoid(x[layout.slip + i]!) : 0;
      const hi = 1 - ss;
      SG[i] = lo;
      SS[i] = ss;
      LO[i] = lo;
      RANGE[i] = hi - lo;
    }
    gA.fill(0);
    gB.fill(0);
    gLo.fill(0);
    gHi.fill(0);
    let loss = 0;
    for (let j = r0; j < r1; j++) {
      const th = x[layout.theta + j]!;
      let gth = 0;
      const row = j * nC;
      for (let col = 0; col < nC; col++) {
        const yy = y[row + col]!;
        if (yy === 255) continue;
        const i = colItem[col]!;
        const a = A[i]!;
        const sg = sigmoid(a * th + B[i]!);
        const range = RANGE[i]!;
        const P = LO[i]! + range * sg;
        // dL/dP for L = -[y log P + (1 - y) log(1 - P)]; clamp keeps log finite at the edges.
        const Pc = P < 1e-300 ? 1e-300 : P > 1 - 1e-16 ? 1 - 1e-16 : P;
        let dP: number;
        if (yy === 1) {
          loss -= Math.log(Pc);
          dP = -1 / Pc;
        } else {
          loss -= Math.log1p(-Pc);
          dP = 1 / (1 - Pc);
        }
        const deta = dP * range * sg * (1 - sg);
        gth += deta * a;
        gB[i]! += deta;
        gA[i]! += deta * th;
        // dP/dguess = (1 - sg) lo (1 - lo), dP/dslip = -sg ss (1 - ss), in the old per-cell order
        // of the products (the same bits as before).
        if (pl >= 3) {
          const sl = SG[i]!;
          gLo[i]! += dP * (1 - sg) * sl * (1 - sl);
        }
        if (pl >= 4) {
          const ss = SS[i]!;
          gHi[i]! += -dP * sg * ss * (1 - ss);
        }
      }
      loss += 0.5 * tp * th * th;
      g[layout.theta + j]! += gth + tp * th;
    }
    for (let i = 0; i < I; i++) {
      g[layout.intercept + i] = gB[i]!;
      if (pl >= 2) g[layout.slope + i] = gA[i]!;
      if (pl >= 3) g[layout.guess + i] = gLo[i]!;
      if (pl >= 4) g[layout.slip + i] = gHi[i]!;
    }
    if (scope.itemPrior !== false) {
      for (let i = 0; i < I; i++) {
        // Slope prior centred on 1 (the 1PL value); logits of guess/slip and intercepts on 0.
        if (pl >= 2) {
          const d = x[layout.slope + i]! - 1;
          loss += 0.5 * lamItem * d * d;
          g[layout.slope + i]! += lamItem * d;
        }
        const it = x[layout.intercept + i]!;
        loss += 0.5 * lamItem * it * it;
        g[layout.intercept + i]! += lamItem * it;
        if (pl >= 3) {
          const gl = x[layout.guess + i]!;
          loss += 0.5 * lamItem * gl * gl;
          g[layout.guess + i]! += lamItem * gl;
        }
        if (pl >= 4) {
          const sl = x[layout.slip + i]!;
          loss += 0.5 * lamItem * sl * sl;
          g[layout.slip + i]! += lamItem * sl;
        }
      }
    }
    for (let t = 0; t < g.length; t++) if (free[t] === 0) g[t] = 0;
    return checkFinite(loss);
  }
  return { layout, free, lossAndGrad };
}
