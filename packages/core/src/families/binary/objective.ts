import type { ResponseBank } from '../../bank.js';
import { freeMask, sigmoid, type BinaryLayout } from '../../layout.js';
import { DEFAULT_PRIORS, checkFinite, type EvalScope, type Objective, type Priors } from '../../objective.js';

/**
 * Binary IRT kernel (1PL-4PL) on correctness y_ji = [argmax q_ji = g_i] (paper.md, baselines).
 * `y` is J x C with 255 for unobserved cells (see `correctness`).
 */
export function binaryObjective(bank: ResponseBank, layout: BinaryLayout, y: Uint8Array, priors: Priors = {}): Objective {
  const free = freeMask(layout);
  const { itemSd } = { ...DEFAULT_PRIORS, ...priors };
  const lamItem = 1 / (itemSd * itemSd);
  const J = layout.nModels;
  const I = layout.nItems;
  const nC = bank.colItem.length;
  const { colItem } = bank;
  const pl = layout.pl;

  function lossAndGrad(x: Float64Array, g: Float64Array, scope: EvalScope = {}): number {
    const r0 = scope.rowStart ?? 0;
    const r1 = scope.rowEnd ?? J;
    const tp = scope.thetaPrior === false ? 0 : 1;
    g.fill(0);
    let loss = 0;
    for (let j = r0; j < r1; j++) {
      const th = x[layout.theta + j]!;
      let gth = 0;
      for (let col = 0; col < nC; col++) {
        const yy = y[j * nC + col]!;
        if (yy === 255) continue;
        const i = colItem[col]!;
        const a = pl >= 2 ? x[layout.slope + i]! : 1;
        const eta = a * th + x[layout.intercept + i]!;
        const sg = sigmoid(eta);
        const lo = pl >= 3 ? sigmoid(x[layout.guess + i]!) : 0;
        const hi = pl >= 4 ? 1 - sigmoid(x[layout.slip + i]!) : 1;
        const P = lo + (hi - lo) * sg;
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
        const deta = dP * (hi - lo) * sg * (1 - sg);
        gth += deta * a;
        g[layout.intercept + i]! += deta;
        if (pl >= 2) g[layout.slope + i]! += deta * th;
        if (pl >= 3) {
          const gl = x[layout.guess + i]!;
          const sl = sigmoid(gl);
          g[layout.guess + i]! += dP * (1 - sg) * sl * (1 - sl);
        }
        if (pl >= 4) {
          const gs = x[layout.slip + i]!;
          const ss = sigmoid(gs);
          g[layout.slip + i]! += -dP * sg * ss * (1 - ss);
        }
      }
      loss += 0.5 * tp * th * th;
      g[layout.theta + j]! += gth + tp * th;
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
