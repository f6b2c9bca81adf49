import { describe, expect, it } from 'vitest';
import { fit, modelObjective, simulateFleet } from '@llm-nrm/core';
import { llmParameterErrors } from './llmParameterErrors.js';

describe('llmParameterErrors', () => {
  it('matches fit\'s theta SE and gives finite centred bias and fallback SEs that shrink with more items', () => {
    const small = simulateFleet({ models: 12, items: 60, seed: 5, rotations: 4, optionWeights: { 4: 1 } });
    const big = simulateFleet({ models: 12, items: 240, seed: 5, rotations: 4, optionWeights: { 4: 1 } });
    const errs = (fleet: typeof small) => {
      const res = fit(fleet.bank, { seed: 1 });
      const { objective } = modelObjective(res.bank, res.model, res.parts, res.priors);
      return { res, e: llmParameterErrors(objective, res.x) };
    };
    const a = errs(small);
    for (let j = 0; j < 12; j++) {
      expect(a.e[j]!.theta).toBeCloseTo(a.res.se[j]!, 6);
      expect(a.e[j]!.positionBias.length).toBe(4);
      for (const v of [...a.e[j]!.positionBias, ...a.e[j]!.fallback]) expect(v > 0 && Number.isFinite(v)).toBe(true);
    }
    // A subset of rows, in the order asked, gives the same numbers.
    const { objective } = modelObjective(a.res.bank, a.res.model, a.res.parts, a.res.priors);
    const some = llmParameterErrors(objective, a.res.x, [5, 2]);
    expect(some[0]!.theta).toBeCloseTo(a.e[5]!.theta, 10);
    expect(Array.from(some[1]!.fallback)).toEqual(Array.from(a.e[2]!.fallback));
    const b = errs(big);
    const mean = (x: typeof a.e) => x.reduce((s, e) => s + e.positionBias[0]!, 0) / x.length;
    expect(mean(b.e)).toBeLessThan(mean(a.e) * 0.8);
  });
});
