import type { ResponseBank } from '../../data/bank.js';
import { Blocks } from '../../internal/blocks.js';
import { sigmoid, type BinaryLayout } from '../layout.js';
import { priorPrecisions, type Priors } from '../objective.js';
import type { CurvatureAt, CurvatureOptions } from '../family.js';
import { itemMajorBlocks } from './itemBlocks.js';
import type { BinaryCells } from './kernel.js';

/**
 * Block curvature of the binary objective at x: one block per LLM (theta), one per item; Fisher
 * for the SEs (`llm`, `itemGN`, `llmItem`), the observed Hessian for 3PL/4PL's preconditioner blocks.
 * `cells` (kernel.ts's lists of y's observed cells): where they are item-major, the preconditioner's
 * blocks (no `cross`, no `itemInverse`) are summed item by item, to the same bits.
 */
export function binaryCurvature(
  bank: ResponseBank,
  L: BinaryLayout,
  x: Float64Array,
  free: Uint8Array,
  priors: Priors,
  y: Uint8Array,
  opts: CurvatureOptions = {},
  cells?: BinaryCells,
): CurvatureAt {
  const inv = opts.itemInverse;
  const lamItem = priorPrecisions(priors).item;
  const J = L.nModels;
  const I = L.nItems;
  const nC = bank.colItem.length;
  const HI = new Float64Array(I * 16);
  const Ht = new Float64Array(J);
  const pl = L.pl;
  // Item parameters the layout uses (slope from 2PL, guess from 3PL, slip at 4PL).
  const used = [pl >= 2, true, pl >= 3, pl >= 4];
  // With itemInverse: theta_j's cross block with each item (4 per item) and sum_i B D^-1 B^T.
  const B = inv ? new Float64Array(4 * I) : null;
  const llmItem: Float64Array[] = [];
  const seen: number[] = [];
  const stamp = new Int32Array(I).fill(-1);
  // Per-item values at x, read once (the cell loop then costs one exp).
  const A = new Float64Array(I);
  const Bt = new Float64Array(I);
  const LO = new Float64Array(I);
  const HIv = new Float64Array(I);
  for (let i = 0; i < I; i++) {
    A[i] = pl >= 2 ? x[L.slope + i]! : 1;
    Bt[i] = x[L.intercept + i]!;
    LO[i] = pl >= 3 ? sigmoid(x[L.guess + i]!) : 0;
    HIv[i] = pl >= 4 ? 1 - sigmoid(x[L.slip + i]!) : 1;
  }
  const jv = new Float64Array(4);
  // The preconditioner's blocks (not the SEs' Fisher blocks) come from the observed Hessian
  // D2 (dP)(dP)^T + D1 d2P for 3PL: not a canonical link, so Fisher differs from the Hessian wherever
  // the fit is off and L-BFGS crawls (BENCHMARKS.md). 4PL keeps Fisher (no gain there); 1PL/2PL: equal.
  // An indefinite block gets Blocks' Cholesky jitter; theta's keeps at least a tenth of its Fisher value.
  const observedBlocks = pl === 3 && !opts.cross && !inv;
  const HO = observedBlocks ? new Float64Array(I * 16) : HI;
  const HtO = observedBlocks ? new Float64Array(J) : Ht;
  const h2 = new Float64Array(16);
  // One column per item: the refresh's sums item by item (itemBlocks.ts, the same bits).
  const byItem = cells !== undefined && cells.itemMajor && !opts.cross && !inv;
  if (byItem) itemMajorBlocks(cells, L, x, A, Bt, LO, HIv, observedBlocks, HI, Ht, HO, HtO);
  for (let j = 0; j < (byItem ? 0 : J); j++) {
    const th = x[L.theta + j]!;
    seen.length = 0;
    for (let col = 0; col < nC; col++) {
      if (y[j * nC + col] === 255) continue;
      const i = bank.colItem[col]!;
      const a = A[i]!;
      const sg = sigmoid(a * th + Bt[i]!);
      const lo = LO[i]!;
      const hi = HIv[i]!;
      const P = Math.min(1 - 1e-12, Math.max(1e-12, lo + (hi - lo) * sg));
      // Fisher information of a Bernoulli in P: (dP)^2 / (P (1 - P)).
      const fi = 1 / (P * (1 - P));
      const deta = (hi - lo) * sg * (1 - sg);
      jv[0] = deta * th; // slope
      jv[1] = deta; // intercept
      jv[2] = pl >= 3 ? (1 - sg) * lo * (1 - lo) : 0;
      jv[3] = pl >= 4 ? -sg * (1 - hi) * hi : 0;
      const o = i * 16;
      for (let r = 0; r < 4; r++) {
        const fr = fi * jv[r]!;
        for (let c = 0; c < 4; c++) HI[o + r * 4 + c]! += fr * jv[c]!;
      }
      Ht[j]! += fi * deta * a * deta * a;
      if (observedBlocks) {
        const yy = y[j * nC + col]!;
        const D2 = yy === 1 ? 1 / (P * P) : 1 / ((1 - P) * (1 - P));
        const D1 = yy === 1 ? -1 / P : 1 / (1 - P);
        const R = hi - lo;
        const s1 = sg * (1 - sg);
        const s2 = s1 * (1 - 2 * sg);
        const gl = lo * (1 - lo);
        const sh = hi * (1 - hi);
        // d2P over (slope, intercept, guess logit, slip logit); P = lo + (hi - lo) sigmoid(a theta + beta).
        h2[0] = R * s2 * th * th;
        h2[1] = h2[4] = R * s2 * th;
        h2[5] = R * s2;
        h2[2] = h2[8] = -s1 * th * gl;
        h2[6] = h2[9] = -s1 * gl;
        h2[3] = h2[12] = -s1 * th * sh;
        h2[7] = h2[13] = -s1 * sh;
        h2[10] = (1 - sg) * gl * (1 - 2 * lo);
        h2[11] = h2[14] = 0;
        h2[15] = sg * sh * (1 - 2 * hi);
        const o = i * 16;
        for (let r = 0; r < 4; r++) for (let c = 0; c < 4; c++) HO[o + r * 4 + c]! += D2 * jv[r]! * jv[c]! + D1 * h2[r * 4 + c]!;
        HtO[j]! += D2 * deta * a * deta * a + D1 * R * s2 * a * a;
      }
      if (B !== null) {
        if (stamp[i] !== j) {
          stamp[i] = j;
          seen.push(i);
        }
        for (let r = 0; r < 4; r++) if (used[r]) B[4 * i + r]! += fi * deta * a * jv[r]!;
      }
    }
    if (B !== null) {
      let corr = 0;
      for (const i of seen) {
        const D = inv![i]!;
        for (let r = 0; r < 4; r++) for (let c = 0; c < 4; c++) corr += B[4 * i + r]! * D[r * 4 + c]! * B[4 * i + c]!;
        B.fill(0, 4 * i, 4 * i + 4);
      }
      llmItem.push(Float64Array.of(corr));
    }
  }
  const blocks = new Blocks(L.size);
  const llm: Float64Array[] = [];
  for (let j = 0; j < J; j++) {
    llm.push(Float64Array.of(Ht[j]!));
    blocks.add([L.theta + j], Float64Array.of(Math.max(HtO[j]!, 0.1 * Ht[j]!) + 1), free, 0);
  }
  for (let i = 0; i < I; i++) {
    blocks.add([L.slope + i, L.intercept + i, L.guess + i, L.slip + i], HO.slice(i * 16, i * 16 + 16), free, lamItem);
  }
  const out: CurvatureAt = { blocks, llm };
  if (opts.cross) {
    out.itemGN = Array.from({ length: I }, (_, i) => {
      const H = HI.slice(i * 16, i * 16 + 16);
      for (let r = 0; r < 4; r++) {
        for (let c = 0; c < 4; c++) if (!used[r] || !used[c]) H[r * 4 + c] = 0;
        H[r * 4 + r] = used[r] ? H[r * 4 + r]! + lamItem : 1;
      }
      return H;
    });
  }
  if (inv) out.llmItem = llmItem;
  return out;
}
