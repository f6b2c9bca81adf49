import type { BinaryLayout } from '../layout.js';
import type { BinaryCells } from './kernel.js';

/**
 * The preconditioner's sums of binaryCurvature (curvature.ts) item by item, for banks with one
 * column per item (`cells.itemMajor`): per item the Fisher entries (dP)(dP)^T / (P (1 - P)) and, for
 * 3PL (`observed`), the observed-Hessian entries D2 (dP)(dP)^T + D1 d2P, held in registers over
 * the item's LLMs ascending; per LLM its theta sums. Every term and sum in the row loop's order, so
 * the same bits (curvature.test.ts); lower triangle only. Fills Ht and HI or, when `observed`, HO
 * and HtO instead of HI (all zero on entry).
 */
export function itemMajorBlocks(
  cells: BinaryCells,
  L: BinaryLayout,
  x: Float64Array,
  A: Float64Array,
  Bt: Float64Array,
  LO: Float64Array,
  HIv: Float64Array,
  observed: boolean,
  HI: Float64Array,
  Ht: Float64Array,
  HO: Float64Array,
  HtO: Float64Array,
): void {
  const { colStart, cmRow, cmY, nItems: I, pl } = cells;
  const theta = x.subarray(L.theta, L.theta + L.nModels);
  const pl3 = pl >= 3;
  const pl4 = pl >= 4;
  for (let i = 0; i < I; i++) {
    const a = A[i]!;
    const bt = Bt[i]!;
    const lo = LO[i]!;
    const hi = HIv[i]!;
    let f00 = 0,
      f10 = 0,
      f11 = 0,
      f20 = 0,
      f21 = 0,
      f22 = 0,
      f30 = 0,
      f31 = 0,
      f32 = 0,
      f33 = 0;
    let o00 = 0,
      o10 = 0,
      o11 = 0,
      o20 = 0,
      o21 = 0,
      o22 = 0,
      o30 = 0,
      o31 = 0,
      o32 = 0,
      o33 = 0;
    for (let k = colStart[i]!, k1 = colStart[i + 1]!; k < k1; k++) {
      const j = cmRow[k]!;
      const th = theta[j]!;
      // sigmoid(a theta + beta), written out as layout.ts's sigmoid.
      const z = a * th + bt;
      let sg: number;
      if (z >= 0) sg = 1 / (1 + Math.exp(-z));
      else {
        const e = Math.exp(z);
        sg = e / (1 + e);
      }
      const P = Math.min(1 - 1e-12, Math.max(1e-12, lo + (hi - lo) * sg));
      const fi = 1 / (P * (1 - P));
      const deta = (hi - lo) * sg * (1 - sg);
      const j0 = deta * th;
      const j1 = deta;
      const j2 = pl3 ? (1 - sg) * lo * (1 - lo) : 0;
      const j3 = pl4 ? -sg * (1 - hi) * hi : 0;
      Ht[j]! += fi * deta * a * deta * a;
      if (observed) {
        const yy = cmY[k]!;
        const D2 = yy === 1 ? 1 / (P * P) : 1 / ((1 - P) * (1 - P));
        const D1 = yy === 1 ? -1 / P : 1 / (1 - P);
        const R = hi - lo;
        const s1 = sg * (1 - sg);
        const s2 = s1 * (1 - 2 * sg);
        const gl = lo * (1 - lo);
        const sh = hi * (1 - hi);
        // d2P, as curvature.ts's h2 (row-major 4 x 4 over slope, intercept, guess, slip logits).
        const h0 = R * s2 * th * th;
        const h1 = R * s2 * th;
        const h5 = R * s2;
        const h2 = -s1 * th * gl;
        const h6 = -s1 * gl;
        const h3 = -s1 * th * sh;
        const h7 = -s1 * sh;
        const h10 = (1 - sg) * gl * (1 - 2 * lo);
        const h15 = sg * sh * (1 - 2 * hi);
        let dr = D2 * j0;
        o00 += dr * j0 + D1 * h0;
        dr = D2 * j1;
        o10 += dr * j0 + D1 * h1;
        o11 += dr * j1 + D1 * h5;
        dr = D2 * j2;
        o20 += dr * j0 + D1 * h2;
        o21 += dr * j1 + D1 * h6;
        o22 += dr * j2 + D1 * h10;
        dr = D2 * j3;
        o30 += dr * j0 + D1 * h3;
        o31 += dr * j1 + D1 * h7;
        o32 += dr * j2 + D1 * 0;
        o33 += dr * j3 + D1 * h15;
        HtO[j]! += D2 * deta * a * deta * a + D1 * R * s2 * a * a;
      } else {
        let fr = fi * j0;
        f00 += fr * j0;
        fr = fi * j1;
        f10 += fr * j0;
        f11 += fr * j1;
        fr = fi * j2;
        f20 += fr * j0;
        f21 += fr * j1;
        f22 += fr * j2;
        fr = fi * j3;
        f30 += fr * j0;
        f31 += fr * j1;
        f32 += fr * j2;
        f33 += fr * j3;
      }
    }
    const o = i * 16;
    if (!observed) {
      HI[o] = f00;
      HI[o + 1] = f10;
      HI[o + 2] = f20;
      HI[o + 3] = f30;
      HI[o + 4] = f10;
      HI[o + 5] = f11;
      HI[o + 6] = f21;
      HI[o + 7] = f31;
      HI[o + 8] = f20;
      HI[o + 9] = f21;
      HI[o + 10] = f22;
      HI[o + 11] = f32;
      HI[o + 12] = f30;
      HI[o + 13] = f31;
      HI[o + 14] = f32;
      HI[o + 15] = f33;
    } else {
      HO[o] = o00;
      HO[o + 1] = o10;
      HO[o + 2] = o20;
      HO[o + 3] = o30;
      HO[o + 4] = o10;
      HO[o + 5] = o11;
      HO[o + 6] = o21;
      HO[o + 7] = o31;
      HO[o + 8] = o20;
      HO[o + 9] = o21;
      HO[o + 10] = o22;
      HO[o + 11] = o32;
      HO[o + 12] = o30;
      HO[o + 13] = o31;
      HO[o + 14] = o32;
      HO[o + 15] = o33;
    }
  }
}
