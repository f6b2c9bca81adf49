import { describe, expect, it } from 'vitest';
import { difficultyGradBase, difficultyGradColumn, difficultyGradScratch } from './difficultyGradColumns.js';

// A seeded stream (no Math.random in tests either).
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('difficultyGradColumns', () => {
  it('gives the bits of fresh difficultyGradBase calls at the point and at every coordinate moved by a step', () => {
    const rand = lcg(11);
    const fd = difficultyGradScratch(8);
    const want = new Float64Array(16);
    const got = new Float64Array(16);
    let compared = 0;
    let maxMoved = 0;
    for (let trial = 0; trial < 400; trial++) {
      const K = 2 + Math.floor(rand() * 7);
      const g = Math.floor(rand() * K);
      const a = Float64Array.from({ length: K }, () => 3 * (rand() - 0.5));
      const c = Float64Array.from({ length: K }, () => 4 * (rand() - 0.5));
      // Ties and near-ties of the largest distractor c, so that a step moves the max (the recompute branch).
      if (trial % 3 === 0 && K > 2) c[(g + 1) % K] = c[(g + 2) % K]! - (trial % 2) * 5e-7;
      const h = trial % 5 === 0 ? 0.5 : 1e-6;
      difficultyGradBase(a, c, K, g, fd, got);
      for (let p = 0; p < 2 * K; p++) {
        const arr = p < K ? a : c;
        const kk = p < K ? p : p - K;
        const old = arr[kk]!;
        arr[kk] = old + h;
        let m = -Infinity;
        for (let k = 0; k < K; k++) if (k !== g && c[k]! > m) m = c[k]!;
        if (m !== fd.m) maxMoved++;
        difficultyGradBase(a, c, K, g, difficultyGradScratch(8), want);
        difficultyGradColumn(a, c, K, g, p, fd, got);
        arr[kk] = old;
        for (let r = 0; r < 2 * K; r++) {
          expect(Object.is(got[r], want[r])).toBe(true);
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(10000);
    // Both branches of a distractor's step ran: the largest c kept and moved.
    expect(maxMoved).toBeGreaterThan(50);
  });
});
