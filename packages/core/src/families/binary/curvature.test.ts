// The binary family's preconditioner blocks: for 3PL (a non-canonical link) each item block is the
// observed Hessian of the objective (checked against central differences of the analytic
// gradient); for 2PL (logit link) and 4PL they are the Fisher blocks the SEs use.
import { describe, expect, it } from 'vitest';
import { getFamily } from '../registry.js';
import { randomSource } from '../../random.js';
import { gradientFleet, randomPoint } from '@llm-nrm/tooling/gradient';
import type { BinaryLayout } from '../../layout.js';
import type { Blocks } from '../../internal/blocks.js';

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
