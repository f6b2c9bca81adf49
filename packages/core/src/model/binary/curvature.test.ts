// The binary family's preconditioner blocks: for 3PL (a non-canonical link) each item block is the
// observed Hessian of the objective (checked against central differences of the analytic
// gradient); for 2PL (logit link) and 4PL they are the Fisher blocks the SEs use.
import { describe, expect, it } from 'vitest';
import { getFamily } from '../registry.js';
import { randomSource } from '../../simulate/random.js';
import { gradientFleet, randomPoint } from '@llm-nrm/tooling/gradient';
import type { BinaryLayout } from '../layout.js';
import type { Blocks } from '../../internal/blocks.js';
import { correctness, withObserved } from '../../data/bank.js';
import { binaryLayout } from '../layout.js';
import { simulateFleet } from '../../simulate/simulate.js';
import { binaryCurvature } from './curvature.js';
import { binaryCells } from './kernel.js';
import { binaryFreeMask } from './layout.js';
import { binaryStart } from './start.js';

/** L L^T of block b. */
function blockMatrix(blocks: Blocks, b: number): Float64Array {
  const L = blocks.chol[b]!;
  const P = blocks.idx[b]!.length;
  const M = new Float64Array(P * P);
  for (let r = 0; r < P; r++)
    for (let c = 0; c < P; c++) {
      let s = 0;
      for (let k = 0; k < P; k++) s += L[r * P + k]! * L[c * P + k]!;
      M[r * P + c] = s;
    }
  return M;
}

describe('binary preconditioner blocks', () => {
  for (const model of ['2pl', '3pl', '4pl'] as const) {
    it(`${model}: item blocks are the ${model === '3pl' ? 'observed Hessian' : model === '2pl' ? 'Fisher blocks (= the observed Hessian)' : 'Fisher blocks'}`, () => {
      const family = getFamily(model, {});
      const bank = gradientFleet(5).bank;
      const L = family.layout(bank) as BinaryLayout;
      const x = randomPoint(L, randomSource(3));
      const obj = family.objective(bank, L, {});
      const curv = family.curvature(bank, L, {});
      const blocks = curv(x, obj.free, {}).blocks;
      const fisher = curv(x, obj.free, { cross: true }).itemGN!;
      const n = L.size;
      const g1 = new Float64Array(n);
      const g2 = new Float64Array(n);
      const h = 1e-5;
      const used = [L.pl >= 2, true, L.pl >= 3, L.pl >= 4];
      let checked = 0; // blocks without jitter
      let differsFromFisher = 0;
      for (let i = 0; i < L.nItems; i++) {
        const b = L.nModels + i;
        const idx = Array.from(blocks.idx[b]!);
        expect(idx).toEqual([L.slope + i, L.intercept + i, L.guess + i, L.slip + i]);
        const M = blockMatrix(blocks, b);
        if (model === '4pl') {
          // The SEs' Fisher block (prior on the diagonal, identity rows for unused parameters).
          for (let t = 0; t < 16; t++) expect(Math.abs(M[t]! - fisher[i]![t]!), `item ${i} [${t}]`).toBeLessThan(1e-6 * (1 + Math.abs(fisher[i]![t]!)));
          checked++;
          continue;
        }
        // Blocks' Cholesky adds jitter to an indefinite block: only definite ones equal the Hessian.
        const H = new Float64Array(16);
        for (let c = 0; c < 4; c++) {
          if (!used[c]) continue;
          const xp = Float64Array.from(x);
          xp[idx[c]!]! += h;
          obj.lossAndGrad(xp, g1);
          xp[idx[c]!]! -= 2 * h;
          obj.lossAndGrad(xp, g2);
          for (let r = 0; r < 4; r++) H[r * 4 + c] = (g1[idx[r]!]! - g2[idx[r]!]!) / (2 * h);
        }
        // Blocks' Cholesky shifts an indefinite block by a multiple of the identity (jitter): the
        // off-diagonal entries equal the Hessian's, the diagonal ones exceed it by one common shift.
        const first = used.indexOf(true);
        const shift = M[first * 5]! - H[first * 5]!;
        expect(shift).toBeGreaterThan(-1e-5 * (1 + Math.abs(H[first * 5]!)));
        for (let r = 0; r < 4; r++)
          for (let c = 0; c < 4; c++) {
            if (!used[r] || !used[c]) continue;
            const want = H[r * 4 + c]! + (r === c ? shift : 0);
            expect(Math.abs(M[r * 4 + c]! - want), `item ${i} [${r}][${c}]`).toBeLessThan(1e-5 * (1 + Math.abs(want)));
            if (Math.abs(M[r * 4 + c]! - fisher[i]![r * 4 + c]!) > 1e-3 * (1 + Math.abs(want))) differsFromFisher++;
          }
        if (Math.abs(shift) < 1e-5) checked++;
      }
      // Some blocks are definite as they stand (no shift) at this point.
      expect(checked).toBeGreaterThan(0);
      if (model === '3pl') expect(differsFromFisher).toBeGreaterThan(0);
      else expect(differsFromFisher).toBe(0);
    });
  }
});

describe('binary preconditioner blocks, item by item (itemBlocks.ts)', () => {
  const { bank: full } = simulateFleet({ models: 30, items: 50, seed: 5 });
  // About a fifth of the cells held out, as in a CV fold.
  const mask = new Uint8Array(full.models.length * full.colItem.length).map((_, t) => ((t * 7919) % 5 === 2 ? 0 : 1));
  const bank = withObserved(full, mask);
  for (const pl of [1, 2, 3, 4] as const) {
    it(`${pl}PL: the item-major sums give the row loop's blocks bit for bit`, () => {
      const L = binaryLayout(bank, pl);
      const y = correctness(bank);
      const cells = binaryCells(bank, L, y);
      expect(cells.itemMajor).toBe(true);
      const free = binaryFreeMask(L);
      const x = binaryStart(bank, L);
      for (let t = 0; t < x.length; t++) x[t]! += 0.8 * Math.sin(1.7 * t);
      // A few items at the clamps (P within 1e-12 of 0 or 1).
      x[L.intercept] = 40;
      x[L.intercept + 1] = -40;
      const byRow = binaryCurvature(bank, L, x, free, {}, y);
      const byItem = binaryCurvature(bank, L, x, free, {}, y, {}, cells);
      let compared = 0;
      let differ = 0;
      for (let b = 0; b < byRow.blocks.chol.length; b++) {
        expect(Array.from(byItem.blocks.idx[b]!)).toEqual(Array.from(byRow.blocks.idx[b]!));
        const r = byRow.blocks.chol[b]!;
        const c = byItem.blocks.chol[b]!;
        for (let t = 0; t < r.length; t++, compared++) if (!Object.is(r[t], c[t])) differ++;
      }
      for (let j = 0; j < L.nModels; j++, compared++) if (!Object.is(byRow.llm[j]![0], byItem.llm[j]![0])) differ++;
      expect(compared).toBeGreaterThan(L.nItems * 16);
      expect(differ).toBe(0);
      // The SEs' blocks (cross) take the row loop whatever the cells: the same blocks as without them.
      const se = binaryCurvature(bank, L, x, free, {}, y, { cross: true }, cells).itemGN!;
      const se0 = binaryCurvature(bank, L, x, free, {}, y, { cross: true }).itemGN!;
      for (let i = 0; i < L.nItems; i++) for (let t = 0; t < 16; t++) expect(Object.is(se[i]![t], se0[i]![t])).toBe(true);
    });
  }
});
