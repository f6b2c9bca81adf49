// Issue 30's accuracy targets on the real NAEP fixture (18 LLMs x 297 items x 4 rotations, read in
// place), leave-one-LLM-out as `publish` then `score` predict them: calibrate on 17, select 41 items
// (selectForRange's default, the fleet and below it), fit the run-accuracy model on the 17 scored as
// tiny runs, predict the held-out LLM's full-bank accuracy from its tiny run. Also a random-answer
// run per fold. About 150 s on the 2-core machine: `npm run test:e2e`.
import { describe, expect, it } from 'vitest';
import type { RunAccuracyStudy } from '@llm-nrm/analysis';
import { inWorkerThread } from '@llm-nrm/tooling/test';

const NAEP = new URL('../../../../../shared/fixtures/response-matrices/mainlp-llm-psychometrics', import.meta.url).pathname;

describe('predicted full-bank accuracy of 41-item tiny runs, leave-one-LLM-out on NAEP', () => {
  it('within 4 points on average and 10 for any LLM, 90% intervals covering 80-100%, random-answer runs at chance on average', async () => {
    // On a worker thread (the built packages): the study computes for minutes without awaiting.
    const { res, J } = await inWorkerThread<{ res: RunAccuracyStudy; J: number }>(`
      const [core, adapters, analysis] = await Promise.all([load('core'), load('adapters'), load('analysis')]);
      const records = [];
      for await (const r of adapters.readNaepRotations(${JSON.stringify(NAEP)})) records.push(r);
      const { bank } = core.bankFromRecords(records);
      return { res: analysis.runAccuracyStudy(bank, { budget: 41 }), J: bank.models.length };
    `);
    expect(J).toBe(18);
    const errors = res.predicted.map((p, j) => Math.abs(p.accuracy - res.observed[j]!));
    const covered = res.predicted.filter((p, j) => res.observed[j]! >= p.low && res.observed[j]! <= p.high).length;
    expect(errors.reduce((s, e) => s + e, 0) / J).toBeLessThanOrEqual(0.04);
    expect(Math.max(...errors)).toBeLessThanOrEqual(0.1);
    expect(covered / J).toBeGreaterThanOrEqual(0.8);
    // Each random-answer run's own accuracy on 41 items scatters by its binomial SD (about 7 points);
    // the predictions, monotone in it, are at chance on average.
    const offChance = res.randomRuns.map((r) => r.prediction.accuracy - r.chance);
    expect(offChance).toHaveLength(J);
    expect(Math.abs(offChance.reduce((s, v) => s + v, 0) / J)).toBeLessThanOrEqual(0.05);
  });
});
