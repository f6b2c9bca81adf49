import type { ResponseBank } from '../../data/bank.js';
import type { BinaryLayout } from '../layout.js';

/**
 * The observed cells of a binary objective, listed once: row by row (cells of row j:
 * [rowStart[j], rowStart[j + 1]), columns ascending) with their item and y, and, for banks with one
 * column per item (no rotations), item by item (cells of item i: [colStart[i], colStart[i + 1]),
 * LLMs ascending), each with its LLM, its row-major position and its y.
 */
export interface BinaryCells {
  readonly nModels: number;
  readonly nItems: number;
  readonly pl: 1 | 2 | 3 | 4;
  readonly rowStart: Int32Array;
  readonly cellItem: Int32Array;
  readonly cellY: Uint8Array;
  /** Whether the item-major lists below are filled (else they are empty). */
  readonly itemMajor: boolean;
  readonly colStart: Int32Array;
  readonly cmRow: Int32Array;
  readonly cmPos: Int32Array;
  readonly cmY: Uint8Array;
}

/**
 * The cell pass of a binary objective (binaryObjective's seam between engines), owning its arrays.
 * Per item in: a, beta, lo = sigmoid(guess), range = hi - lo, sg, ss; out: the sums of dL/da,
 * dL/dbeta, dL/dguess, dL/dslip. Per LLM: theta in, gTheta = dL/dtheta_j + tp theta_j out (rows
 * [r0, r1) only). Every implementation sums in tsBinaryKernel's order, so engines agree bit for bit.
 */
export interface BinaryKernel {
  readonly a: Float64Array;
  readonly beta: Float64Array;
  readonly lo: Float64Array;
  readonly range: Float64Array;
  readonly sg: Float64Array;
  readonly ss: Float64Array;
  readonly theta: Float64Array;
  readonly gA: Float64Array;
  readonly gB: Float64Array;
  readonly gLo: Float64Array;
  readonly gHi: Float64Array;
  readonly gTheta: Float64Array;
  /**
   * The cells of rows [r0, r1): item by item where the cells allow it and the pass covers every
   * row, else row by row. Returns their loss -sum [y log P + (1 - y) log(1 - P)] plus each row's
   * theta prior 0.5 tp theta^2.
   */
  pass(r0: number, r1: number, tp: number): number;
}

/** Builds a kernel on the cells (an engine's implementation of the binary cell pass). */
export type BinaryKernelFactory = (cells: BinaryCells) => BinaryKernel;

/**
 * The observed cells of `y` (J x C, 255 unobserved) in both orders. `itemMajor` false: the
 * row-major list only (the test of the two orders).
 */
export function binaryCells(bank: ResponseBank, layout: BinaryLayout, y: Uint8Array, itemMajor = true): BinaryCells {
  const J = layout.nModels;
  const I = layout.nItems;
  const nC = bank.colItem.length;
  const { colItem } = bank;
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
  // Item-major order of the same cells, for banks with one column per item (no rotations).
  const oneColumnPerItem = itemMajor && nC === I && colItem.every((i, c) => i === c);
  const colStart = new Int32Array(I + 1);
  const cmRow = new Int32Array(oneColumnPerItem ? rowStart[J]! : 0);
  const cmPos = new Int32Array(cmRow.length);
  const cmY = new Uint8Array(cmRow.length);
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
  return { nModels: J, nItems: I, pl: layout.pl, rowStart, cellItem, cellY, itemMajor: oneColumnPerItem, colStart, cmRow, cmPos, cmY };
}

/**
 * The binary cell pass in TypeScript (the 'ts' engine's, and the reference every engine matches).
 * Summed item by item, every item sum still runs over the LLMs ascending, every theta sum over the
 * columns ascending and the loss terms in row-major order: the same bits as the row pass.
 */
export function tsBinaryKernel(cells: BinaryCells): BinaryKernel {
  const { nModels: J, nItems: I, pl, rowStart, cellItem, cellY, colStart, cmRow, cmPos, cmY } = cells;
  const A = new Float64Array(I);
  const B = new Float64Array(I);
  const LO = new Float64Array(I);
  const RANGE = new Float64Array(I);
  const SG = new Float64Array(I);
  const SS = new Float64Array(I);
  const gA = new Float64Array(I);
  const gB = new Float64Array(I);
  const gLo = new Float64Array(I); // dL/dguess
  const gHi = new Float64Array(I); // dL/dslip
  const theta = new Float64Array(J);
  const gTheta = new Float64Array(J);
  const term = new Float64Array(cmRow.length);
  const gT = new Float64Array(J);
  const pl4 = pl >= 4;

  /** The cell pass item by item (cells.itemMajor); returns the loss of the rows, theta priors included. */
  function itemMajorPass(tp: number): number {
    gT.fill(0);
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
        const th = theta[j]!;
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
      const th = theta[j]!;
      loss += 0.5 * tp * th * th;
      gTheta[j] = gT[j]! + tp * th;
    }
    return loss;
  }

  function pass(r0: number, r1: number, tp: number): number {
    if (cells.itemMajor && r0 === 0 && r1 === J) return itemMajorPass(tp);
    gA.fill(0);
    gB.fill(0);
    gLo.fill(0);
    gHi.fill(0);
    let loss = 0;
    for (let j = r0; j < r1; j++) {
      const th = theta[j]!;
      let gth = 0;
      const e1 = rowStart[j + 1]!;
      // Two specialised loops (no per-cell pl tests; sigmoid written out): the general form's operations
      // in its order, so the same bits. 1PL/2PL: lo = 0 and range = 1 exactly.
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
          // dP/dguess = (1 - sg) lo (1 - lo), dP/dslip = -sg ss (1 - ss), in the general form's order of products.
          const sl = SG[i]!;
          gLo[i]! += dP * (1 - sg) * sl * (1 - sl);
          if (pl4) {
            const ss = SS[i]!;
            gHi[i]! += -dP * sg * ss * (1 - ss);
          }
        }
      }
      loss += 0.5 * tp * th * th;
      gTheta[j] = gth + tp * th;
    }
    return loss;
  }
  return { a: A, beta: B, lo: LO, range: RANGE, sg: SG, ss: SS, theta, gA, gB, gLo, gHi, gTheta, pass };
}
