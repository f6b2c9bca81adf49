import { describe, expect, it } from 'vitest';
import { fit, simulateFleet, thetaStandardErrors } from '@llm-nrm/core';
import { inverseSpd, llmParamIndices, modelObjective } from '@llm-nrm/core/engine';
import { llmParameterErrors } from './llmParameterErrors.js';

describe('llmParameterErrors', () => {
  it("gives theta SEs near fit's (observed information) and finite centred bias and fallback SEs that shrink with more items", () => {
    const small = simulateFleet({ models: 12, items: 60, seed: 5, rotations: 4, optionWeights: { 4: 1 } });
    const big = simulateFleet({ models: 12, items: 240, seed: 5, rotations: 4, optionWeights: { 4: 1 } });
    const errs = (fleet: typeof small) => {
      // fit has no random path (so no seed). Its SEs profile theta over the items too; the
      // items-fixed ones are this module's quantity.
      const fitted = fit(fleet.bank);
      const free = modelObjective(fitted.bank, fitted.model, fitted.parts, fitted.priors).objective.free;
      const res = { ...fitted, se: thetaStandardErrors(fitted.family, fitted.bank, fitted.layout, fitted.x, free, fitted.priors, 0).se };
      return { res, e: llmParameterErrors(res.bank, res.layout, res.x, { priors: res.priors }) };
    };
    const a = errs(small);
    for (let j = 0; j < 12; j++) {
      // Expected (Fisher) vs observed information: close, not equal.
      expect(a.e[j]!.theta / a.res.se[j]!).toBeGreaterThan(0.8);
      expect(a.e[j]!.theta / a.res.se[j]!).toBeLessThan(1.25);
      expect(a.e[j]!.positionBias.length).toBe(4);
      for (const v of [...a.e[j]!.positionBias, ...a.e[j]!.fallback]) expect(v > 0 && Number.isFinite(v)).toBe(true);
    }
    // A subset of rows, in the order asked, gives the same numbers.
    const some = llmParameterErrors(a.res.bank, a.res.layout, a.res.x, { rows: [5, 2], priors: a.res.priors });
    expect(some[0]!.theta).toBeCloseTo(a.e[5]!.theta, 10);
    expect(Array.from(some[1]!.fallback)).toEqual(Array.from(a.e[2]!.fallback));
    const b = errs(big);
    const mean = (x: typeof a.e) => x.reduce((s, e) => s + e.positionBias[0]!, 0) / x.length;
    expect(mean(b.e)).toBeLessThan(mean(a.e) * 0.8);
  });

  it('agrees with the observed information (finite differences of the gradient) on the bias SEs', () => {
    const fleet = simulateFleet({ models: 10, items: 150, seed: 9, rotations: 4, optionWeights: { 4: 1 } });
    const res = fit(fleet.bank);
    const { objective } = modelObjective(res.bank, res.model, res.parts, res.priors);
    const j = 3;
    const idx = llmParamIndices(res.layout, j).filter((t) => objective.free[t]);
    const P = idx.length;
    const g0 = new Float64Array(res.layout.size);
    const g1 = new Float64Array(res.layout.size);
    const x = Float64Array.from(res.x);
    const scope = { rowStart: j, rowEnd: j + 1, itemPrior: false, thetaPrior: false };
    objective.lossAndGrad(x, g0, scope);
    const H = new Float64Array(P * P);
    idx.forEach((t, p) => {
      const h = 1e-5;
      x[t]! += h;
      objective.lossAndGrad(x, g1, scope);
      x[t]! -= h;
      idx.forEach((r, q) => (H[q * P + p] = (g1[r]! - g0[r]!) / h));
    });
    // [H^-1]_pp of the symmetrised H.
    const observedVar = (p: number) => inverseSpd(Float64Array.from(H, (_, t) => 0.5 * (H[t]! + H[(t % P) * P + Math.floor(t / P)]!)))[p * P + p]!;
    const e = llmParameterErrors(res.bank, res.layout, res.x, { rows: [j], priors: res.priors })[0]!;
    expect(e.theta / Math.sqrt(observedVar(0))).toBeCloseTo(1, 1);
    // The centred delta_0 - mean(delta): c' H^-1 c with c = e_0 - 1/K over the delta block (a plain solve).
    const L = res.layout;
    if (L.kind !== 'llm-nrm') throw new Error(`expected an llm-nrm layout, got ${L.kind}`);
    const K = L.kMax;
    const c = new Float64Array(P);
    for (let k = 0; k < K; k++) c[idx.indexOf(L.delta + j * K + k)] = (k === 0 ? 1 : 0) - 1 / K;
    const A = Array.from({ length: P }, (_, r) => [...Array.from({ length: P }, (_, q) => 0.5 * (H[r * P + q]! + H[q * P + r]!)), c[r]!]);
    for (let col = 0; col < P; col++) {
      let piv = col;
      for (let r = col + 1; r < P; r++) if (Math.abs(A[r]![col]!) > Math.abs(A[piv]![col]!)) piv = r;
      [A[col], A[piv]] = [A[piv]!, A[col]!];
      for (let r = 0; r < P; r++) {
        if (r === col) continue;
        const f = A[r]![col]! / A[col]![col]!;
        for (let q = col; q <= P; q++) A[r]![q]! -= f * A[col]![q]!;
      }
    }
    const observedCentred = Math.sqrt(c.reduce((sum, ci, r) => sum + (ci * A[r]![P]!) / A[r]![r]!, 0));
    expect(e.positionBias[0]! / observedCentred).toBeGreaterThan(0.8);
    expect(e.positionBias[0]! / observedCentred).toBeLessThan(1.25);
  });
});
