import { describe, expect, it } from 'vitest';
import { simulateFleet } from '@llm-nrm/core';
import { adaptiveStudy, adaptiveStudyFolds, adaptiveStudyOf } from './adaptiveStudy.js';

describe('adaptiveStudy', () => {
  // A small soft fleet: 16 LLMs x 100 items, 4 LLM folds (kept small: the study runs synchronously,
  // and a worker blocked for a minute times out vitest's RPC on a loaded machine).
  const { bank } = simulateFleet({ models: 16, items: 100, seed: 3 });
  const J = bank.models.length;
  const res = adaptiveStudy(bank, { budgets: [6, 12], folds: 4, seed: 2, batch: 3, se: 0.4, minItems: 6, maxItems: 15, randomDraws: 2 });

  it('replays every held-out LLM: one point per budget with its length, and an SE-stopped run each', () => {
    expect(res.points.map((p) => p.budget)).toEqual([6, 12]);
    expect(res.points.map((p) => p.meanItems)).toEqual([6, 12]);
    expect(res.full.every((t) => Number.isFinite(t))).toBe(true);
    for (const r of res.seRuns) {
      expect(Number.isFinite(r.theta)).toBe(true);
      expect(r.items).toBeGreaterThanOrEqual(6);
      expect(r.items).toBeLessThanOrEqual(15);
      if (r.stop === 'se') expect(r.se).toBeLessThanOrEqual(0.4);
    }
    const s = res.seStop;
    expect(s.meanItems).toBeCloseTo(res.seRuns.reduce((a, r) => a + r.items, 0) / J, 9);
    expect(s.coverage95).toBeGreaterThan(0);
    expect(s.coverage95).toBeLessThanOrEqual(1);
  });

  it('adaptive runs rank held-out LLMs ahead of random items of the same length', () => {
    for (const p of res.points) expect(p.kendall).toBeGreaterThan(p.kendallRandom);
  });

  it('gives the same study from its folds run apart and joined in any order (the CLI runs them on worker threads)', () => {
    // A smaller fleet than the others' (the study runs twice). The last fold alone: the random draws
    // of the folds before it are drawn and dropped first.
    const small = simulateFleet({ models: 9, items: 40, seed: 4 }).bank;
    const o = { budgets: [4, 8], folds: 3, seed: 5, batch: 2, se: 0.5, minItems: 4, maxItems: 8, randomDraws: 3, fitOptions: { maxIterations: 60 } };
    const parts = [2, 0, 1].map((f) => adaptiveStudyFolds(small, { ...o, only: new Set([f]) }));
    expect(adaptiveStudyOf(small, o, parts)).toEqual(adaptiveStudy(small, o));
    const partial = adaptiveStudyOf(small, o, [parts[0]!]);
    expect(partial.full.filter((t) => Number.isFinite(t)).length).toBe(3);
  });

  it("a point's coverage is the share of LLMs whose full-bank theta is in theta +/- 1.96 SE", () => {
    for (const p of res.points) {
      let inside = 0;
      for (let j = 0; j < J; j++) if (Math.abs(p.thetas[j]! - res.full[j]!) <= 1.96 * p.ses[j]!) inside++;
      expect(p.coverage95).toBe(inside / J);
    }
  });
});
