// Gradient checks of the fused analytic kernels (objective.ts, difficulty.ts) against central finite
// differences, for every model of `modelObjective`, on small seeded banks with ragged option counts
// (2..7), missing cells, hard cells and rotated presentations. Also the sum-to-zero invariances that
// the identification relies on. The tfjs autograd cross-check lives in packages/engine-tfjs.
// GRADIENT_REPORT=1 prints the largest discrepancy per model.
import { describe, expect, it } from 'vitest';
import type { ResponseBank } from '../data/bank.js';
import { computeDifficulties, DIFFICULTY_EPS } from './difficulty.js';
import { modelObjective } from '../fit/modelObjective.js';
import type { Layout } from './layout.js';
import type { EvalScope, Objective, Priors } from './objective.js';
import { randomSource } from '../simulate/random.js';
import { GRADIENT_CASES, gradientFleet, placeDenominators, randomPoint } from '@llm-nrm/tooling/gradient';

const smallBank = (seed: number): ResponseBank => gradientFleet(seed).bank;

/**
 * Fourth-order central differences of L at every coordinate; the largest |fd - g| / (atol + rtol |g|)
 * (must be <= 1) and the largest absolute difference, for the report.
 */
function checkGradient(obj: Objective, x: Float64Array, scope: EvalScope = {}, h = 1e-4): { scaled: number; abs: number; worst: string } {
  const n = x.length;
  const g = new Float64Array(n);
  const tmp = new Float64Array(n);
  obj.lossAndGrad(x, g, scope);
  const xp = Float64Array.from(x);
  const f = (t: number, d: number): number => {
    xp[t] = x[t]! + d;
    const v = obj.lossAndGrad(xp, tmp, scope);
    xp[t] = x[t]!;
    return v;
  };
  const atol = 1e-6;
  const rtol = 1e-6;
  let scaled = 0;
  let abs = 0;
  let worst = '';
  for (let t = 0; t < n; t++) {
    // Fixed parameters: the kernel reports 0, and the loss must not depend on them either.
    const fd = (-f(t, 2 * h) + 8 * f(t, h) - 8 * f(t, -h) + f(t, -2 * h)) / (12 * h);
    const err = Math.abs(fd - g[t]!);
    const s = err / (atol + rtol * Math.abs(g[t]!));
    if (err > abs) abs = err;
    if (s > scaled) {
      scaled = s;
      worst = `index ${t}: analytic ${g[t]}, finite difference ${fd}`;
    }
  }
  return { scaled, abs, worst };
}

describe('smallBank', () => {
  it('has ragged option counts 2..7, missing, hard and rotated cells', () => {
    const bank = smallBank(11);
    const ks = new Set(bank.items.map((it) => it.nOptions));
    expect(Math.min(...ks)).toBe(2);
    expect(Math.max(...ks)).toBe(7);
    expect(bank.colPosition).not.toBeNull();
    expect(bank.colItem.length).toBe(24);
    const missing = bank.observed.length - bank.observed.reduce((s, v) => s + v, 0);
    expect(missing).toBeGreaterThan(0);
    expect(bank.hard.reduce((s, v) => s + v, 0)).toBeGreaterThan(0);
  });
});

describe('analytic gradient vs finite differences', () => {
  for (const c of GRADIENT_CASES) {
    it(`${c.name}: at the truth and at random points (atol 1e-6, rtol 1e-6)`, () => {
      let maxAbs = 0;
      let maxScaled = 0;
      for (const seed of [11, 12]) {
        const fleet = gradientFleet(seed);
        const { objective } = modelObjective(fleet.bank, c.model, c.parts ?? {});
        const rng = randomSource(100 + seed);
        const points: Float64Array[] = [randomPoint(objective.layout, rng), randomPoint(objective.layout, rng)];
        if (objective.layout.kind === 'llm-nrm') points.push(Float64Array.from(fleet.truth));
        for (const x of points) {
          const r = checkGradient(objective, x);
          expect(r.scaled, `${c.name} seed ${seed}: ${r.worst}`).toBeLessThanOrEqual(1);
          maxAbs = Math.max(maxAbs, r.abs);
          maxScaled = Math.max(maxScaled, r.scaled);
        }
      }
      if (process.env.GRADIENT_REPORT) console.log(`FD ${c.name}: max |fd - g| ${maxAbs.toExponential(2)}, max scaled ${maxScaled.toFixed(3)}`);
    });
  }

  it('llm-nrm: where the gate difficulty denominator D_i is near 0 (smooth guard)', () => {
    const bank = smallBank(11);
    for (const model of ['llm-nrm', 'nrm'] as const) {
      const { objective } = modelObjective(bank, model);
      const x = randomPoint(objective.layout, randomSource(7));
      // D exactly 0, tiny, inside and at the guard's scale EPS, of both signs.
      placeDenominators(bank, objective.layout, x, [0, 1e-9, -1e-4, 0.3 * DIFFICULTY_EPS, -DIFFICULTY_EPS, 2 * DIFFICULTY_EPS]);
      const r = checkGradient(objective, x);
      expect(r.scaled, r.worst).toBeLessThanOrEqual(1);
      if (process.env.GRADIENT_REPORT) console.log(`FD ${model} near D = 0: max |fd - g| ${r.abs.toExponential(2)}, max scaled ${r.scaled.toFixed(3)}`);
    }
  });

  it("llm-nrm: the gate globals' prior adds 1/2 lam [(w0 - w0c)^2 + (kbar - kbarc)^2] with the item prior, and nothing without it", () => {
    const bank = smallBank(12);
    const gate: Priors = { gateSd: 0.7, gateW0: -0.5, gateKappa: 2 };
    const flat = modelObjective(bank, 'llm-nrm', {}, { gateSd: 1e9 }).objective;
    const withGate = modelObjective(bank, 'llm-nrm', {}, gate).objective;
    const L = withGate.layout;
    if (L.kind !== 'llm-nrm') throw new Error('expected an LLM-NRM layout');
    const x = randomPoint(L, randomSource(5));
    const g0 = new Float64Array(x.length);
    const g1 = new Float64Array(x.length);
    const lam = 1 / 0.49;
    const dw = x[L.w0]! + 0.5;
    const dk = x[L.kbar]! - Math.log(Math.expm1(2));
    const l0 = flat.lossAndGrad(x, g0);
    const l1 = withGate.lossAndGrad(x, g1);
    expect(l1 - l0).toBeCloseTo(0.5 * lam * (dw * dw + dk * dk), 8);
    expect(g1[L.w0]! - g0[L.w0]!).toBeCloseTo(lam * dw, 8);
    expect(g1[L.kbar]! - g0[L.kbar]!).toBeCloseTo(lam * dk, 8);
    for (let t = 0; t < x.length; t++) if (t !== L.w0 && t !== L.kbar) expect(g1[t]).toBe(g0[t]);
    // The gate globals are fleet parameters: with the item prior off (LLM blocks only) their prior is off too.
    expect(withGate.lossAndGrad(x, g1, { itemPrior: false })).toBe(flat.lossAndGrad(x, g0, { itemPrior: false }));
    // Without the fallback there is no gate and no gate prior.
    const nf = (p: Priors): Objective => modelObjective(bank, 'llm-nrm', { fallback: false }, p).objective;
    const xn = randomPoint(nf({}).layout, randomSource(6));
    expect(nf(gate).lossAndGrad(xn, new Float64Array(xn.length))).toBe(nf({ gateSd: 1e9 }).lossAndGrad(xn, new Float64Array(xn.length)));
    expect(checkGradient(withGate, x).scaled).toBeLessThanOrEqual(1);
  });

  it('llm-nrm: row ranges and the item prior switched off', () => {
    const bank = smallBank(12);
    const { objective } = modelObjective(bank, 'llm-nrm', {}, { itemSd: 2, llmSd: 1.5 });
    const x = randomPoint(objective.layout, randomSource(8));
    for (const scope of [{ rowStart: 1, rowEnd: 4 }, { itemPrior: false }, { rowStart: 3, rowEnd: 6, itemPrior: false }]) {
      const r = checkGradient(objective, x, scope);
      expect(r.scaled, `${JSON.stringify(scope)}: ${r.worst}`).toBeLessThanOrEqual(1);
    }
    // Rows outside the range contribute nothing: their theta gradient is exactly 0.
    const g = new Float64Array(x.length);
    objective.lossAndGrad(x, g, { rowStart: 1, rowEnd: 4 });
    expect(g[objective.layout.theta + 0]).toBe(0);
    expect(g[objective.layout.theta + 5]).toBe(0);
    expect(g[objective.layout.theta + 2]).not.toBe(0);
  });

  it('binary models with a strong item prior', () => {
    const bank = smallBank(12);
    for (const model of ['2pl', '4pl'] as const) {
      const { objective } = modelObjective(bank, model, {}, { itemSd: 0.7 });
      const x = randomPoint(objective.layout, randomSource(9));
      const r = checkGradient(objective, x, { rowStart: 2, rowEnd: 5 });
      expect(r.scaled, `${model}: ${r.worst}`).toBeLessThanOrEqual(1);
    }
  });
});

describe('sum-to-zero identification', () => {
  // Without the ridges (item prior off, llmSd = Infinity), L is invariant to a common shift of an
  // item's a (or c) and of an LLM's delta (or rho); so the gradient sums to 0 over each such block.
  const priors: Priors = { llmSd: Infinity };
  const scope: EvalScope = { itemPrior: false };

  function blocks(bank: ResponseBank, layout: Layout): { name: string; start: number; len: number }[] {
    if (layout.kind !== 'llm-nrm') return [];
    const out: { name: string; start: number; len: number }[] = [];
    for (let i = 0; i < layout.nItems; i++) {
      const o = bank.itemOffsets[i]!;
      const K = bank.itemOffsets[i + 1]! - o;
      out.push({ name: `a of item ${i}`, start: layout.a + o, len: K }, { name: `c of item ${i}`, start: layout.c + o, len: K });
    }
    for (let j = 0; j < layout.nModels; j++) {
      if (layout.parts.position) out.push({ name: `delta of LLM ${j}`, start: layout.delta + j * layout.kMax, len: layout.kMax });
      if (layout.parts.fallback) out.push({ name: `rho of LLM ${j}`, start: layout.rho + j * layout.kMax, len: layout.kMax });
    }
    return out;
  }

  for (const model of ['llm-nrm', 'nrm'] as const) {
    it(`${model}: loss unchanged by a shift of each block; gradient sums to ~0 per block`, () => {
      const bank = smallBank(11);
      const { objective } = modelObjective(bank, model, {}, priors);
      const x = randomPoint(objective.layout, randomSource(21));
      placeDenominators(bank, objective.layout, x, [0, 0.05]);
      const g = new Float64Array(x.length);
      const tmp = new Float64Array(x.length);
      const L = objective.lossAndGrad(x, g, scope);
      const bs = blocks(bank, objective.layout);
      expect(bs.length).toBeGreaterThanOrEqual(24);
      let gmax = 0;
      for (const v of g) gmax = Math.max(gmax, Math.abs(v));
      for (const b of bs) {
        let sum = 0;
        for (let t = 0; t < b.len; t++) sum += g[b.start + t]!;
        expect(Math.abs(sum), b.name).toBeLessThan(1e-12 * Math.max(1, gmax) * 100);
        const xs = Float64Array.from(x);
        for (let t = 0; t < b.len; t++) xs[b.start + t]! += 0.7;
        const Ls = objective.lossAndGrad(xs, tmp, scope);
        expect(Math.abs(Ls - L), b.name).toBeLessThan(1e-12 * Math.abs(L));
      }
    });
  }

  it('llm-nrm with default priors: gradient sums to ~0 per block at a sum-to-zero point (the truth)', () => {
    const fleet = gradientFleet(11);
    const { objective } = modelObjective(fleet.bank, 'llm-nrm');
    const g = new Float64Array(fleet.truth.length);
    objective.lossAndGrad(fleet.truth, g);
    for (const b of blocks(fleet.bank, objective.layout)) {
      let sum = 0;
      for (let t = 0; t < b.len; t++) sum += g[b.start + t]!;
      expect(Math.abs(sum), b.name).toBeLessThan(1e-10);
    }
  });

  it('the guard keeps the objective finite where D_i = 0 exactly', () => {
    const bank = smallBank(11);
    const { objective } = modelObjective(bank, 'llm-nrm');
    const layout = objective.layout;
    const x = randomPoint(layout, randomSource(5));
    placeDenominators(bank, layout, x, [0, 0, 0]);
    if (layout.kind !== 'llm-nrm') throw new Error('expected an llm-nrm layout');
    const b = new Float64Array(layout.nItems);
    computeDifficulties(bank, x, layout.a, layout.c, b, new Float64Array(3 * layout.nItems), new Float64Array(layout.sumK));
    // N_i D_i / (D_i^2 + EPS^2) -> 0 as D_i -> 0: the gate difficulty of such an item is ~0.
    for (let i = 0; i < 3; i++) expect(Math.abs(b[i]!)).toBeLessThan(1e-12);
    const g = new Float64Array(x.length);
    expect(Number.isFinite(objective.lossAndGrad(x, g))).toBe(true);
    expect(g.every(Number.isFinite)).toBe(true);
  });
});
