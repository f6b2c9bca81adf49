import { describe, expect, it } from 'vitest';
import { rankIntervals } from './rankIntervals.js';

describe('rankIntervals', () => {
  it('gives point ranks, Monte Carlo intervals that contain them, and tie groups', () => {
    // Two well-separated pairs; within a pair the gap is far below the SEs.
    const theta = [2, 1.99, -1, -1.01, 0];
    const se = [0.05, 0.05, 0.05, 0.05, 0.001];
    const r = rankIntervals(theta, se, { draws: 4000, seed: 3 });
    expect(Array.from(r.rank)).toEqual([1, 2, 4, 5, 3]);
    expect(Array.from(r.lo)).toEqual([1, 1, 4, 4, 3]);
    expect(Array.from(r.hi)).toEqual([2, 2, 5, 5, 3]);
    expect(Array.from(r.group)).toEqual([1, 1, 3, 3, 2]);
  });

  it('is deterministic for a seed, and an interval widens with the SE', () => {
    const theta = Array.from({ length: 30 }, (_, j) => j / 10);
    const small = rankIntervals(
      theta,
      theta.map(() => 0.01),
      { seed: 7 },
    );
    const big = rankIntervals(
      theta,
      theta.map(() => 0.5),
      { seed: 7 },
    );
    const again = rankIntervals(
      theta,
      theta.map(() => 0.5),
      { seed: 7 },
    );
    expect(Array.from(big.lo)).toEqual(Array.from(again.lo));
    const width = (x: typeof small) => x.hi.reduce((s, h, j) => s + h - x.lo[j]!, 0);
    expect(width(small)).toBe(0);
    expect(width(big)).toBeGreaterThan(30 * 4);
    // With no SE every LLM sits at its own rank; with large SEs the groups merge.
    expect(new Set(small.group).size).toBe(30);
    expect(new Set(big.group).size).toBeLessThan(10);
  });

  it('treats a missing SE as zero and rejects mismatched lengths', () => {
    const r = rankIntervals([1, 0], [null, Number.NaN]);
    expect(Array.from(r.lo)).toEqual([1, 2]);
    expect(() => rankIntervals([1, 0], [0.1])).toThrow(/2 thetas but 1 standard errors/);
  });
});
