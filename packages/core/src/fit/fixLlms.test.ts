// FitOptions.fixLlms: the items fitted with every LLM parameter and the globals held at `init`
// (new items into a calibrated bank). Frozen parameters must not move, and the free items must
// reach the conditional optimum given the LLMs: the full fit's items, from a cold item start.
import { describe, expect, it } from 'vitest';
import { LlmNrmError } from '../errors.js';
import { simulateFleet } from '../simulate/simulate.js';
import { fit } from './fit.js';
import { modelObjective } from './modelObjective.js';

describe('fit with fixLlms', () => {
  const fleet = simulateFleet({ models: 20, items: 40, seed: 3 });
  const full = fit(fleet.bank, { standardErrors: false, distanceTolerance: 0, tolerance: 1e-12 });
  const L = full.layout;
  if (L.kind !== 'llm-nrm') throw new Error('layout');
  const { objective, family } = modelObjective(fleet.bank, 'llm-nrm');
  // The full fit's LLMs and globals, the items at the family's cold start.
  const start = family.start(fleet.bank, L);
  const init = Float64Array.from(full.x);
  for (let t = L.a; t < L.w0; t++) init[t] = start[t]!;
  const r = fit(fleet.bank, { init, fixLlms: true, standardErrors: false, distanceTolerance: 0, tolerance: 1e-12 });

  it('leaves every LLM parameter and the globals bit for bit as given', () => {
    for (let t = 0; t < L.a; t++) expect(r.x[t]).toBe(init[t]);
    expect(r.x[L.w0]).toBe(init[L.w0]);
    expect(r.x[L.kbar]).toBe(init[L.kbar]);
  });

  it("reaches the items' conditional optimum: zero item gradient, the full fit's items", () => {
    const g = new Float64Array(L.size);
    objective.lossAndGrad(r.x, g);
    let gmax = 0;
    for (let t = L.a; t < L.w0; t++) gmax = Math.max(gmax, Math.abs(g[t]!));
    expect(gmax).toBeLessThan(1e-3);
    // At the joint optimum the items are also optimal given the LLMs: the same point, from a cold start.
    let dmax = 0;
    for (let t = L.a; t < L.w0; t++) dmax = Math.max(dmax, Math.abs(r.x[t]! - full.x[t]!));
    expect(dmax).toBeLessThan(1e-3);
    expect(r.converged).toBe(true);
  });

  it('refuses what it cannot honour', () => {
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e instanceof LlmNrmError ? e.code : 'other';
      }
      return 'none';
    };
    expect(code(() => fit(fleet.bank, { fixLlms: true, standardErrors: false }))).toBe('INVALID_OPTION');
    expect(code(() => fit(fleet.bank, { init, fixLlms: true }))).toBe('INVALID_OPTION');
    expect(code(() => fit(fleet.bank, { init, fixLlms: true, fixItems: true, standardErrors: false }))).toBe('INVALID_OPTION');
    expect(code(() => fit(fleet.bank, { init, fixLlms: true, identification: 'standardize', standardErrors: false }))).toBe('INVALID_OPTION');
  });
});
