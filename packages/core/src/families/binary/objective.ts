import type { ResponseBank } from '../../bank.js';
import { sigmoid, type BinaryLayout } from '../../layout.js';
import { binaryFreeMask } from './layout.js';
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
 * gradient bit for bit. The cells are listed once (observed only); banks with one column per item
 * (no rotations) are summed item by item, the rest row by row, both in the old order of every sum
 * (bench/core/binary-kernel.js: 4PL about 1.3x, 3PL 1.1x cheaper per pass; the same loss and
 * gradient bits as the row-by-row form, checked on NAEP and on a CV fold's training cells).
 */
export function binaryObjective(
  bank: ResponseBank,
  layout: BinaryLayout,
  y: Uint8Array,
  priors: Priors = {},
  /** itemMajor false: always the row-by-row pass (the test of the two orders). */
  options: { itemMajor?: boolean } = {},
): Objective {
  const free = binaryFreeMask(layout);
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
  const pl4 = pl >= 4;
  // The observed cells row by row (cells of row j: [rowStart[j], rowStart[j + 1]), columns
  // ascending), with their item and y: the pass skips no unobserved cell.
  const rowStart = new Int32Array(J + 1);
  for (let j = 0; j < J; j++) {
    let n = 0;
    for (let col = 0; col < nC; col++) if (y[j * nC + col] !== 255) n++;
    rowStart[j + 1] = rowStart[j]! + n;
  }
  const cellItem = new Int32Array(rowStart[J]!);
  const cellY = new Uint8Array(rowStart[J]!);
  for (let j = 0, e = 0; j < J; j++)
    for (let col = 0; col < nC; col++) {
      const yy = y[j * nC + col]!;
      if (yy === 255) continue;
      cellItem[e] = colItem[col]!;
      cellY[e++] = yy;
    }
  // Item-major order of the same cells, for banks with one column per item (no rotations): item
  // i's cells [colStart[i], colStart[i + 1]), LLMs ascending, each with its row-major position.
  // Summed item by item, every item sum still runs over the LLMs ascending and every theta sum
  // over the columns ascending, and the per-cell loss terms are added up afterwards in row-major
  // order: the same bits as the row pass, with an item's four sums held in registers.
  const oneColumnPerItem = options.itemMajor !== false && nC === I && colItem.every((i, c) => i === c);
  const colStart = new Int32Array(I + 1);
  const cmRow = new Int32Array(oneColumnPerItem ? rowStart[J]! : 0);
  const cmPos = new Int32Array(cmRow.length);
  const cmY = new Uint8Array(cmRow.length);
  const term = new Float64Array(cmRow.length);
  const gT = new Float64Array(J);
  if (oneColumnPerItem) {
    for (let e = 0; e < cellItem.length; e++) colStart[cellItem[e]! + 1]!++;
    for (let i = 0; i < I; i++) colStart[i + 1]! += colStart[i]!;
    const at = Int32Array.from(colStart.subarray(0, I));
    for (let j = 0; j < J; j++)
      for (let e = rowStart[j]!; e < rowStart[j + 1]!; e++) {
        const k = at[cellItem[e]!]!++;
        cmRow[k] = j;
        cmPos[k] = e;
        cmY[k] = cellY[e]!;
      }
  }

  /** The cell pass item by item (see oneColumnPerItem); returns the loss of the rows, theta priors included. */
  function itemMajorPass(x: Float64Array, g: Float64Array, tp: number): number {
    gT.fill(0);
    const t0 = layout.theta;
    for (let i = 0; i < I; i++) {
      const a = A[i]!;
      const b = B[i]!;
      const lo = LO[i]!;
      const range = RANGE[i]!;
      const sl = SG[i]!;
      const ss = SS[i]!;
      let ga = 0;
      let gb = 0;
      let glo = 0;
      let ghi = 0;
      const e1 = colStart[i + 1]!;
      for (let e = colStart[i]!; e < e1; e++) {
        const j = cmRow[e]!;
        const th = x[t0 + j]!;
        const z = a * th + b;
        let sg: number;
        if (z >= 0) sg = 1 / (1 + Math.exp(-z));
        else {
          const ez = Math.exp(z);
          sg = ez / (1 + ez);
        }
        const P = lo + range * sg;
        const Pc = P < 1e-300 ? 1e-300 : P > 1 - 1e-16 ? 1 - 1e-16 : P;
        let dP: number;
        if (cmY[e] === 1) {
          term[cmPos[e]!] = Math.log(Pc);
          dP = -1 / Pc;
        } else {
          term[cmPos[e]!] = Math.log1p(-Pc);
          dP = 1 / (1 - Pc);
        }
        const deta = dP * range * sg * (1 - sg);
        gT[j]! += deta * a;
        gb += deta;
        ga += deta * th;
        if (pl >= 3) glo += dP * (1 - sg) * sl * (1 - sl);
        if (pl4) ghi += -dP * sg * ss * (1 - ss);
      }
      gA[i] = ga;
      gB[i] = gb;
      gLo[i] = glo;
      gHi[i] = ghi;
    }
    let loss = 0;
    for (let j = 0; j < J; j++) {
      for (let e = rowStart[j]!; e < rowStart[j + 1]!; e++) loss -= term[e]!;
      const th = x[t0 + j]!;
      loss += 0.5 * tp * th * th;
      g[t0 + j]! += gT[j]! + tp * th;
    }
    return loss;
  }

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
    if (oneColumnPerItem && r0 === 0 && r1 === J) loss = itemMajorPass(x, g, tp);
    else
      for (let j = r0; j < r1; j++) {
        const th = x[layout.theta + j]!;
        let gth = 0;
        const e1 = rowStart[j + 1]!;
        // Two specialised loops over the row's observed cells (no per-cell pl tests; sigmoid written
        // out, as V8 did not inline it into this function): the same operations in the same order
        // as the general form, so the same bits. 1PL/2PL: lo = 0 and range = 1 exactly, so
        // P = sg and deta = dP sg (1 - sg) are what the general expressions give.
        if (pl <= 2) {
          for (let e = rowStart[j]!; e < e1; e++) {
            const i = cellItem[e]!;
            const a = A[i]!;
            const z = a * th + B[i]!;
            let sg: number;
            if (z >= 0) sg = 1 / (1 + Math.exp(-z));
            else {
              const ez = Math.exp(z);
              sg = ez / (1 + ez);
            }
            const Pc = sg < 1e-300 ? 1e-300 : sg > 1 - 1e-16 ? 1 - 1e-16 : sg;
            let dP: number;
            if (cellY[e] === 1) {
              loss -= Math.log(Pc);
              dP = -1 / Pc;
            } else {
              loss -= Math.log1p(-Pc);
              dP = 1 / (1 - Pc);
            }
            const deta = dP * sg * (1 - sg);
            gth += deta * a;
            gB[i]! += deta;
            gA[i]! += deta * th;
          }
        } else {
          for (let e = rowStart[j]!; e < e1; e++) {
            const i = cellItem[e]!;
            const a = A[i]!;
            const z = a * th + B[i]!;
            let sg: number;
            if (z >= 0) sg = 1 / (1 + Math.exp(-z));
            else {
              const ez = Math.exp(z);
              sg = ez / (1 + ez);
            }
            const range = RANGE[i]!;
            const P = LO[i]! + range * sg;
            // dL/dP for L = -[y log P + (1 - y) log(1 - P)]; clamp keeps log finite at the edges.
            const Pc = P < 1e-300 ? 1e-300 : P > 1 - 1e-16 ? 1 - 1e-16 : P;
            let dP: number;
            if (cellY[e] === 1) {
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
            const sl = SG[i]!;
            gLo[i]! += dP * (1 - sg) * sl * (1 - sl);
            if (pl4) {
              const ss = SS[i]!;
              gHi[i]! += -dP * sg * ss * (1 - ss);
            }
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
