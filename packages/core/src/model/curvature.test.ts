// The block Gauss-Newton curvature of every family (model/*/curvature.ts) against a brute-force
// GN matrix: J^T Q diag(p) J summed over cells, J = d log p / dx by central differences of the
// family's forward model (LLM-NRM, NRM), or (dP)(dP)^T / (P (1 - P)) on correctness (binary), plus
// the priors' curvature; and the profiled SEs against the dense inverse of that matrix over (LLM j,
// every item, the globals), other LLMs held fixed.
import { describe, expect, it } from 'vitest';
import { GRADIENT_CASES, gradientFleet, randomPoint } from '@llm-nrm/tooling/gradient';
import { correctness, type ResponseBank } from '../data/bank.js';
import type { ModelFamily } from './family.js';
import { getFamily } from './registry.js';
import { thetaStandardErrors } from '../fit/standardErrors.js';
import { cholesky, cholSolve } from '../internal/cholesky.js';
import { sigmoid, softplus, type Layout } from './layout.js';
import { DEFAULT_PRIORS } from './objective.js';
import { randomSource } from '../simulate/random.js';

/** Brute-force GN matrix (n x n) of the likelihood plus the priors' curvature (theta's left out). */
function bruteGn(family: ModelFamily, bank: ResponseBank, L: Layout, x: Float64Array): Float64Array {
  const n = L.size;
  const J = bank.models.length;
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC]!;
  const H = new Float64Array(n * n);
  const h = 1e-6;
  const xp = Float64Array.from(x);
  const y = correctness(bank);
  const cellsOf = (j: number) => Array.from({ length: nC }, (_, c) => c).filter((c) => bank.observed[j * nC + c]);
  const out = new Float64Array(bank.kMax);
  for (let j = 0; j < J; j++) {
    for (const col of cellsOf(j)) {
      const K = bank.colOffsets[col + 1]! - bank.colOffsets[col]!;
      let Q = 0;
      for (let k = 0; k < K; k++) Q += bank.q[j * width + bank.colOffsets[col]! + k]!;
      // Jacobian column by column (d log p_k / dx_t, or dP/dx_t for binary).
      const rows: Float64Array[] = [];
      const base = new Float64Array(K);
      const pr = family.predictor(bank, L, x);
      pr.cell(j, col, base);
      const Pk = pr.pKey(j, col);
      if (family.kind === 'option-level') {
        for (let t = 0; t < n; t++) {
          xp[t] = x[t]! + h;
          family.predictor(bank, L, xp).cell(j, col, out);
          const up = Float64Array.from(out.subarray(0, K));
          xp[t] = x[t]! - h;
          family.predictor(bank, L, xp).cell(j, col, out);
          xp[t] = x[t]!;
          rows.push(Float64Array.from({ length: K }, (_, k) => (Math.log(up[k]!) - Math.log(out[k]!)) / (2 * h)));
        }
        for (let a = 0; a < n; a++)
          for (let b = 0; b < n; b++) {
            let s = 0;
            for (let k = 0; k < K; k++) s += base[k]! * rows[a]![k]! * rows[b]![k]!;
            H[a * n + b]! += Q * s;
          }
      } else {
        if (y[j * nC + col] === 255) continue;
        const d = new Float64Array(n);
        for (let t = 0; t < n; t++) {
          xp[t] = x[t]! + h;
          const up = family.predictor(bank, L, xp).pKey(j, col);
          xp[t] = x[t]! - h;
          const dn = family.predictor(bank, L, xp).pKey(j, col);
          xp[t] = x[t]!;
          d[t] = (up - dn) / (2 * h);
        }
        const fi = 1 / (Pk * (1 - Pk));
        for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) H[a * n + b]! += fi * d[a]! * d[b]!;
      }
    }
  }
  // Priors (GN form): items lamItem; LLM-NRM sharpness lamS (d log s / d sbar)^2, delta and rho lamLlm, the gate globals lamGate.
  const lamItem = 1 / DEFAULT_PRIORS.itemSd ** 2;
  if (L.kind === 'llm-nrm') {
    for (let t = 0; t < L.sumK; t++) {
      H[(L.a + t) * n + L.a + t]! += lamItem;
      H[(L.c + t) * n + L.c + t]! += lamItem;
    }
    for (let j = 0; j < J; j++) {
      const s = softplus(x[L.sbar + j]!);
      if (L.parts.sharpness) H[(L.sbar + j) * n + L.sbar + j]! += (sigmoid(x[L.sbar + j]!) / s) ** 2 / DEFAULT_PRIORS.sharpnessSd ** 2;
      for (let k = 0; k < L.kMax; k++) {
        if (L.parts.position) H[(L.delta + j * L.kMax + k) * n + L.delta + j * L.kMax + k]! += 1 / DEFAULT_PRIORS.llmSd ** 2;
        if (L.parts.fallback) H[(L.rho + j * L.kMax + k) * n + L.rho + j * L.kMax + k]! += 1 / DEFAULT_PRIORS.llmSd ** 2;
      }
    }
    // The gate globals' priors: w0, kbar ~ N(centre, gateSd^2).
    if (L.parts.fallback) for (const t of [L.w0, L.kbar]) H[t * n + t]! += 1 / DEFAULT_PRIORS.gateSd ** 2;
  } else {
    for (let i = 0; i < L.nItems; i++) {
      for (const [off, on] of [
        [L.slope, L.pl >= 2],
        [L.intercept, true],
        [L.guess, L.pl >= 3],
        [L.slip, L.pl >= 4],
      ] as const) {
        if (on) H[(off + i) * n + off + i]! += lamItem;
      }
    }
  }
  return H;
}

function sub(H: Float64Array, n: number, idx: readonly number[]): Float64Array {
  const m = idx.length;
  const out = new Float64Array(m * m);
  for (let a = 0; a < m; a++) for (let b = 0; b < m; b++) out[a * m + b] = H[idx[a]! * n + idx[b]!]!;
  return out;
}

function expectClose(got: Float64Array, want: Float64Array, what: string): void {
  let scale = 0;
  for (const v of want) scale = Math.max(scale, Math.abs(v));
  for (let t = 0; t < want.length; t++) {
    if (Math.abs(got[t]! - want[t]!) > 1e-5 * scale + 1e-7) throw new Error(`${what}[${t}]: ${got[t]} vs brute force ${want[t]} (scale ${scale})`);
  }
}

/** Item parameter indices of item i in the order of the family's item blocks. */
function itemIndices(L: Layout, bank: ResponseBank, i: number): number[] {
  if (L.kind === 'binary') return [L.slope + i, L.intercept + i, L.guess + i, L.slip + i];
  const io = bank.itemOffsets[i]!;
  const K = bank.itemOffsets[i + 1]! - io;
  return [...Array.from({ length: K }, (_, k) => L.a + io + k), ...Array.from({ length: K }, (_, k) => L.c + io + k)];
}

describe('block Gauss-Newton curvature against a brute-force GN matrix', () => {
  for (const c of GRADIENT_CASES) {
    it(`${c.name}: LLM, item and globals blocks, and profiled SEs`, () => {
      const family = getFamily(c.model, c.parts ?? {});
      const bank = family.prepare(gradientFleet(31).bank);
      const L = family.layout(bank);
      const n = L.size;
      const x = randomPoint(L, randomSource(9));
      const free = new Uint8Array(n).fill(1);
      const H = bruteGn(family, bank, L, x);
      const curv = family.curvature(bank, L, {})(x, free, { cross: true });
      for (let j = 0; j < L.nModels; j++) expectClose(curv.llm[j]!, sub(H, n, family.llmIndices(L, j)), `llm[${j}]`);
      for (let i = 0; i < L.nItems; i++) {
        const want = sub(H, n, itemIndices(L, bank, i));
        if (L.kind === 'binary') {
          // Unused parameters are identity rows in the family's block.
          const used = [L.pl >= 2, true, L.pl >= 3, L.pl >= 4];
          for (let r = 0; r < 4; r++) for (let q = 0; q < 4; q++) if (!used[r] || !used[q]) want[r * 4 + q] = r === q ? 1 : 0;
        }
        expectClose(curv.itemGN![i]!, want, `itemGN[${i}]`);
      }
      if (curv.globalIndices) expectClose(curv.globals!, sub(H, n, curv.globalIndices), 'globals');

      // SEs: dense inverse over (LLM j's free parameters, every used item parameter, the globals).
      const fm = family.objective(bank, L, {}).free;
      const se = thetaStandardErrors(family, bank, L, x, fm, {}, 0, { profileItems: true }).se;
      const itemsFree = Array.from({ length: n }, (_, t) => t).filter(
        (t) =>
          fm[t] &&
          t >= L.nModels &&
          !Array.from({ length: L.nModels }, (_, j) => family.llmIndices(L, j))
            .flat()
            .includes(t),
      );
      for (let j = 0; j < L.nModels; j++) {
        const idx = [...family.llmIndices(L, j).filter((t) => fm[t]), ...itemsFree];
        const m = idx.length;
        const Hs = sub(H, n, idx);
        const e = new Float64Array(m);
        e[0] = 1;
        cholSolve(cholesky(Hs, m), m, e);
        expect(se[j]).toBeGreaterThan(0);
        expect(Math.abs(se[j]! - Math.sqrt(e[0]!))).toBeLessThan(1e-4 * Math.sqrt(e[0]!));
      }
    });
  }
});
