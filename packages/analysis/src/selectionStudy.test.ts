import { describe, expect, it } from 'vitest';
import { simulateFleet } from '@llm-nrm/core';
import { selectionStudy } from './selectionStudy.js';

describe('selectionStudy', () => {
  it('cross-fits the estimator (+xacc): the same thetas, out-of-sample accuracy and an interval whose coverage it reports', () => {
    // 40 LLMs, so 40 held out: with 20 one LLM moved a coverage by 0.05, and across seeds 12-21 the
    // in-sample estimator's 90% coverage ran from 0.5 to 0.95 (mean 0.77) on 20.
    const { bank } = simulateFleet({ models: 40, items: 60, seed: 12 });
    const res = selectionStudy(bank, {
      budgets: [15],
      folds: 2,
      seed: 1,
      methods: ['range+sharp+acc', 'range+sharp+xacc', 'range+sharp'],
      fitOptions: { maxIterations: 100 },
    });
    const row = (m: string) => res.rows.find((r) => r.method === m)!;
    // Selection and scoring are shared: only the accuracy estimator's calibration differs.
    expect(row('range+sharp+xacc').kendall).toBe(row('range+sharp+acc').kendall);
    expect(row('range+sharp+xacc').accuracyMae).not.toBe(row('range+sharp+acc').accuracyMae);
    for (const m of ['range+sharp+acc', 'range+sharp+xacc']) {
      expect(row(m).coverage).toBeGreaterThan(0.5);
      expect(row(m).coverage).toBeLessThanOrEqual(1);
    }
    // The bare curve has no interval.
    expect(row('range+sharp').coverage).toBeNaN();
  }, 300_000);
});
