import type { ResponseBank } from '../../data/bank.js';
import { sigmoid, type BinaryLayout } from '../layout.js';
import { binaryFreeMask } from './layout.js';
import { priorPrecisions, checkFinite, type EvalScope, type Objective, type Priors } from '../objective.js';
import { binaryCells, tsBinaryKernel, type BinaryKernelFactory } from './kernel.js';

export interface BinaryObjectiveOptions {
  /** itemMajor false: always the row-by-row pass (the test of the two orders). */
  itemMajor?: boolean;
  /** The cell pass (default core's TypeScript kernel, tsBinaryKernel). */
  kernel?: BinaryKernelFactory;
}

/**
 * Binary IRT objective (1PL-4PL) on correctness y_ji = [argmax q_ji = g_i] (paper.md, baselines):
 * P_ji = lo_i + (hi_i - lo_i) sigmoid(a_i theta_j + beta_i), lo = sigmoid(guess) (3PL+),
 * hi = 1 - sigmoid(slip) (4PL), and L = -sum [y log P + (1 - y) log(1 - P)] + priors.
 * `y` is J x C with 255 for unobserved cells (see `correctness`). The per-item values are read once
 * per pass; the cell pass is the kernel's (kernel.ts), every sum in one order whichever kernel runs.
 */
export function binaryObjective(bank: ResponseBank, layout: BinaryLayout, y: Uint8Array, priors: Priors = {}, options: BinaryObjectiveOptions = {}): Objective {
  const free = binaryFreeMask(layout);
  const lamItem = priorPrecisions(priors).item;
  const J = layout.nModels;
  const I = layout.nItems;
  const pl = layout.pl;
  const kernel = (options.kernel ?? tsBinaryKernel)(binaryCells(bank, layout, y, options.itemMajor !== false));
  const { a: A, beta: B, lo: LO, range: RANGE, sg: SG, ss: SS, theta, gA, gB, gLo, gHi, gTheta } = kernel;

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
    for (let j = r0; j < r1; j++) theta[j] = x[layout.theta + j]!;
    let loss = kernel.pass(r0, r1, tp);
    for (let j = r0; j < r1; j++) g[layout.theta + j]! += gTheta[j]!;
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
