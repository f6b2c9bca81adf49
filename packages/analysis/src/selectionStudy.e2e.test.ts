// The study at a study's size (30 LLMs x 120 items, 3 folds, two budgets, four methods): about 60 s
// on the 2-core machine, so under `npm run test:e2e`; selectionStudy.test.ts keeps a small study.
import { describe, expect, it } from 'vitest';
import { inWorkerThread } from '@llm-nrm/tooling/test';
import type { SelectionStudy } from './selectionStudy.js';

describe('selectionStudy (study-sized)', () => {
  it('scores held-out LLMs from tiny tests by every asked method, with Kendall and accuracy error', async () => {
    // On a worker thread (the built packages): the study computes for about a minute without awaiting.
    const res = await inWorkerThread<SelectionStudy>(`
      const [core, analysis] = await Promise.all([load('core'), load('analysis')]);
      const { bank } = core.simulateFleet({ models: 30, items: 120, seed: 11 });
      return analysis.selectionStudy(bank, {
        budgets: [10, 40],
        folds: 3,
        seed: 1,
        methods: ['range+sharp', 'range+sharp+acc', 'random+sharp', 'accuracy'],
        fitOptions: { maxIterations: 150 },
      });
    `);
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
});
