import { describe, expect, it } from 'vitest';
import { simulateFleet } from '@llm-nrm/core';
import { calibratedLlmFolds, heldOutThetas } from './calibratedLlmFolds.js';

describe('calibratedLlmFolds', () => {
  const { bank } = simulateFleet({ models: 12, items: 30, seed: 5 });
  const spec = { name: 'llm-nrm', model: 'llm-nrm' as const };
  const fitOptions = { maxIterations: 20 };

  it('splits LLMs into disjoint folds, calibrates on the training ones, and `only` yields a fold exactly as a full run does', () => {
    const all = [...calibratedLlmFolds(bank, spec, { folds: 3, seed: 2, fitOptions })];
    expect(all.map((f) => f.index)).toEqual([0, 1, 2]);
    expect(all.flatMap((f) => f.heldList).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, j) => j));
    for (const f of all) {
      expect(f.trainList.length + f.heldList.length).toBe(12);
      expect(f.trainList.some((j) => f.heldList.includes(j))).toBe(false);
      expect([...f.perm].sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    }
    const [one, ...rest] = [...calibratedLlmFolds(bank, spec, { folds: 3, seed: 2, fitOptions, only: new Set([2]) })];
    expect(rest).toEqual([]);
    expect(one!.index).toBe(2);
    expect(one!.heldList).toEqual(all[2]!.heldList);
    expect([...one!.perm]).toEqual([...all[2]!.perm]);
    expect([...one!.calib.x]).toEqual([...all[2]!.calib.x]);
    // Held-out thetas: finite for the fold's held-out LLMs only.
    const t = heldOutThetas(bank, one!, spec, undefined, fitOptions);
    for (let j = 0; j < 12; j++) expect(Number.isFinite(t[j]!)).toBe(one!.heldList.includes(j));
  });
});
