import { describe, expect, it } from 'vitest';
import { simulateFleet } from '@llm-nrm/core';
import { selectionStudy } from './selectionStudy.js';

describe('selectionStudy', () => {
  it('scores held-out LLMs from tiny tests by every asked method, with Kendall and accuracy error', () => {
    const { bank } = simulateFleet({ models: 30, items: 120, seed: 11 });
    const res = selectionStudy(bank, {
      budgets: [10, 40],
      folds: 3,
      seed: 1,
      methods: ['range+sharp', 'range+sharp+acc', 'random+sharp', 'accuracy'],
      fitOptions: { maxIterations: 150 },
    });
    expect(res.rows.map((r) => `${r.method}@${r.budget}`)).toEqual([
      'range+sharp@10',
      'range+sharp@40',
      'range+sharp+acc@10',
      'range+sharp+acc@40',
      'random+sharp@10',
      'random+sharp@40',
      'accuracy@10',
      'accuracy@40',
    ]);
    for (const r of res.rows) {
      expect(r.kendall).toBeGreaterThan(0.4);
      expect(r.kendall).toBeLessThanOrEqual(1);
      expect(r.accuracyMae).toBeGreaterThanOrEqual(0);
      expect(r.accuracyMae).toBeLessThan(0.3);
    }
    // More items rank better.
    const k = (m: string, b: number) => res.rows.find((r) => r.method === m && r.budget === b)!.kendall;
    expect(k('range+sharp', 40)).toBeGreaterThan(k('range+sharp', 10));
  }, 300_000);

  it('cross-fits the estimator (+xacc): the same thetas, out-of-sample accuracy and an interval whose coverage it reports', () => {
    const { bank } = simulateFleet({ models: 20, items: 60, seed: 12 });
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
