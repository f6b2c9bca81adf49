import { describe, expect, it } from 'vitest';
import { bankFromRecords, fit, type ResponseRecord } from '@llm-nrm/core';
import { readNaepRotations } from '@llm-nrm/adapters';
import { placeAmong, rankIntervals } from '@llm-nrm/analysis';

// Rank intervals as the site and `score` show them (analysis' rankIntervals, placeAmong), on the real
// NAEP fixture (18 LLMs x 297 items x 4 rotations), read in place.
const NAEP = new URL('../../../../shared/fixtures/response-matrices/mainlp-llm-psychometrics', import.meta.url).pathname;

describe('rank intervals on the NAEP fixture', () => {
  it('the strongest and weakest LLMs: 90% intervals within the old 95% ones, and each placed as a run lands on its rank', async () => {
    const records: ResponseRecord[] = [];
    for await (const r of readNaepRotations(NAEP)) records.push(r);
    const f = fit(bankFromRecords(records).bank, { seMode: 'quasi' });
    const J = f.layout.nModels;
    expect(J).toBe(18);
    const theta = Array.from(f.x.subarray(0, J));
    const se = Array.from(f.se);
    const now = rankIntervals(theta, se, { seed: 1 });
    const old = rankIntervals(theta, se, { seed: 1, level: 0.95 });
    const order = theta.map((_, j) => j).sort((a, b) => theta[b]! - theta[a]!);
    for (const j of [order[0]!, order[1]!, order[J - 2]!, order[J - 1]!]) {
      expect(now.lo[j]!).toBeLessThanOrEqual(now.rank[j]!);
      expect(now.hi[j]!).toBeGreaterThanOrEqual(now.rank[j]!);
      expect(now.lo[j]!).toBeGreaterThanOrEqual(old.lo[j]!);
      expect(now.hi[j]!).toBeLessThanOrEqual(old.hi[j]!);
      // Scored as a run among the other 17 (its own SE and theirs in each difference), it takes its rank.
      const others = order.filter((k) => k !== j);
      const p = placeAmong(
        others.map((k) => theta[k]!),
        others.map((k) => se[k]!),
        theta[j]!,
        se[j]!,
        { seed: 1 },
      );
      expect(p.rank).toBe(now.rank[j]);
      expect(p.lo).toBeLessThanOrEqual(now.rank[j]!);
      expect(p.hi).toBeGreaterThanOrEqual(now.rank[j]!);
    }
    // The weakest two are apart by more than their differences' SE: not one tie group (NAEP: Qwen2.5-0.5B, Llama-3.2-1B).
    expect(now.group[order[J - 1]!]).not.toBe(now.group[order[J - 2]!]);
  }, 120_000);
});
