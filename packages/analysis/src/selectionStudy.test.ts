import { describe, expect, it } from 'vitest';
import { simulateFleet } from '@llm-nrm/core';
import { runAccuracyStudy } from './runAccuracyStudy.js';
import { selectionStudy } from './selectionStudy.js';

describe('selectionStudy', () => {
  it('+acc predicts accuracy by the run-accuracy model publish writes: runAccuracyStudy on the same folds, items and runs', () => {
    // 40 LLMs, so 40 held out: with 20 one LLM moves a coverage by 0.05.
    const { bank } = simulateFleet({ models: 40, items: 60, seed: 12 });
    const same = { folds: 2, seed: 1, fitOptions: { maxIterations: 100 } };
    const res = selectionStudy(bank, { ...same, budgets: [15], methods: ['range+sharp+acc', 'range+sharp'] });
    const row = (m: string) => res.rows.find((r) => r.method === m)!;
    // Selection and scoring are shared: only the accuracy prediction differs.
    expect(row('range+sharp+acc').kendall).toBe(row('range+sharp').kendall);
    expect(row('range+sharp+acc').accuracyMae).not.toBe(row('range+sharp').accuracyMae);
    const ra = runAccuracyStudy(bank, { ...same, budget: 15 });
    let err = 0;
    let covered = 0;
    ra.predicted.forEach((p, j) => {
      err += Math.abs(p.accuracy - ra.observed[j]!);
      if (ra.observed[j]! >= p.low && ra.observed[j]! <= p.high) covered++;
    });
    expect(row('range+sharp+acc').accuracyMae).toBeCloseTo(err / 40, 12);
    expect(row('range+sharp+acc').coverage).toBe(covered / 40);
    expect(row('range+sharp+acc').coverage).toBeGreaterThan(0.5);
    // The bare curve has no interval.
    expect(row('range+sharp').coverage).toBeNaN();
  }, 300_000);
});
