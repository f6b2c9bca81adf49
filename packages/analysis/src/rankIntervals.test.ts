import { describe, expect, it } from 'vitest';
import { fit, predictor, randomSource, simulateFleet } from '@llm-nrm/core';
import { placeAmong, rankIntervals, RANK_LEVEL } from './rankIntervals.js';

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

  it('gives two LLMs that swap places mirrored intervals, also when they swap in exactly the tail share of the draws', () => {
    // Over seeds, the swap count of two LLMs ~5% apart lands on 100 of 2,000 draws (the 5% tail) for some:
    // then both intervals take the swap or neither does.
    let exact = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const r = rankIntervals([0, -0.52], [0.3, 0.1], { draws: 2000, seed });
      expect([r.lo[0], r.hi[0]], `seed ${seed}`).toEqual([1, r.lo[1] === 1 ? 2 : 1]);
      expect(r.hi[1]).toBe(2);
      const rnd = randomSource(seed);
      let swaps = 0;
      for (let d = 0; d < 2000; d++) {
        const a = 0 + 0.3 * rnd.normal();
        const b = -0.52 + 0.1 * rnd.normal();
        if (b > a) swaps++;
      }
      if (swaps === 100) exact++;
    }
    expect(exact).toBeGreaterThan(0);
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

describe('placeAmong', () => {
  it('places a run by its difference to each calibrated LLM, both SEs counted', () => {
    const fleet = [2, 1, 0, -1, -2];
    // Tiny fleet SEs: the run's own SE decides; then the fleet's SEs widen the same run's interval.
    const sharp = placeAmong(
      fleet,
      fleet.map(() => 0.001),
      0.5,
      0.01,
    );
    expect([sharp.rank, sharp.lo, sharp.hi]).toEqual([3, 3, 3]);
    expect(sharp.ties).toEqual([]);
    const wide = placeAmong(
      fleet,
      fleet.map(() => 0.4),
      0.5,
      0.01,
      { seed: 2 },
    );
    expect(wide.lo).toBeLessThanOrEqual(2);
    expect(wide.hi).toBeGreaterThanOrEqual(4);
    // |0.5 - 1| and |0.5 - 0| are within 1.645 sqrt(0.4^2 + 0.01^2).
    expect(wide.ties).toEqual([1, 2]);
    // The same rule as rankIntervals on the board sorted as the site's app sorts it (run at its place).
    const all = rankIntervals([2, 1, 0.5, 0, -1, -2], [0.4, 0.4, 0.01, 0.4, 0.4, 0.4], { seed: 2 });
    expect([wide.rank, wide.lo, wide.hi]).toEqual([3, all.lo[2], all.hi[2]]);
    // The fleet's order in the input does not matter.
    const shuffled = placeAmong([0, -2, 2, -1, 1], [0.4, 0.4, 0.4, 0.4, 0.4], 0.5, 0.01, { seed: 2 });
    expect([shuffled.lo, shuffled.hi]).toEqual([wide.lo, wide.hi]);
    expect(shuffled.ties.sort()).toEqual([0, 4]);
    expect(RANK_LEVEL).toBe(0.9);
  });

  it("counts only the run's rank, yet equals rankIntervals' row for it: ties, zero and missing SEs, boards of 1 to 300", () => {
    const rnd = randomSource(7);
    for (const n of [1, 2, 5, 40, 300]) {
      // Thetas on a coarse grid (equal thetas), some SEs zero or missing, the run sometimes on a fleet theta.
      const theta = Array.from({ length: n }, () => Math.round(rnd.normal() * 4) / 4);
      const se = Array.from({ length: n }, (_, k) => (k % 7 === 3 ? 0 : k % 11 === 5 ? null : 0.05 + 0.3 * rnd.uniform()));
      for (const [run, runSe] of [
        [0.25, 0.1],
        [theta[0]!, 0],
        [3.5, 0.2],
        [-0.1, 0.02],
      ] as const) {
        const order = Array.from({ length: n }, (_, k) => k).sort((a, b) => theta[b]! - theta[a]! || a - b);
        let at = 0;
        while (at < n && theta[order[at]!]! >= run) at++;
        const th = order.map((k) => theta[k]!);
        const ses = order.map((k) => se[k] ?? null);
        th.splice(at, 0, run);
        ses.splice(at, 0, runSe);
        const all = rankIntervals(th, ses, { seed: 3, draws: 500 });
        const p = placeAmong(theta, se, run, runSe, { seed: 3, draws: 500 });
        expect([p.rank, p.lo, p.hi]).toEqual([all.rank[at], all.lo[at], all.hi[at]]);
      }
    }
  });

  it('gives a run with no finite SE the whole board', () => {
    const p = placeAmong([1, 0, -1], [0.1, 0.1, 0.1], 0.2, Infinity);
    expect([p.rank, p.lo, p.hi]).toEqual([2, 1, 4]);
    expect(() => placeAmong([1, 0], [0.1], 0, 0.1)).toThrow(/2 thetas but 1 standard errors/);
  });
});

describe('rank intervals from differences on replicate fits', () => {
  it('difference intervals from the fit SEs cover the replicate fits at the rank level', () => {
    // A seeded 8-LLM fleet refitted on 6 replicate response sets from one truth: each pair's
    // difference interval d_ij +- z sqrt(se_i^2 + se_j^2), each fit's own standardised thetas and SEs,
    // must hold the mean difference over the replicates at least at RANK_LEVEL.
    const J = 8;
    const { bank, layout, truth } = simulateFleet({ models: J, items: 120, seed: 5, optionWeights: { 4: 1 } });
    const pred = predictor(bank, layout, truth);
    const nC = bank.colItem.length;
    const width = bank.colOffsets[nC]!;
    const p = new Float64Array(bank.kMax);
    const fits: { theta: number[]; se: number[] }[] = [];
    for (let r = 0; r < 6; r++) {
      const rng = randomSource(100 + r);
      const q = new Float32Array(bank.q.length);
      for (let j = 0; j < J; j++)
        for (let c = 0; c < nC; c++) {
          pred.cell(j, c, p);
          const K = bank.colOffsets[c + 1]! - bank.colOffsets[c]!;
          const o = j * width + bank.colOffsets[c]!;
          let sum = 0;
          for (let k = 0; k < K; k++) sum += p[k] = p[k]! * Math.exp(0.3 * rng.normal());
          for (let k = 0; k < K; k++) q[o + k] = p[k]! / sum;
        }
      const f = fit({ ...bank, q }, { seMode: 'quasi' });
      fits.push({ theta: Array.from(f.x.subarray(0, J)), se: Array.from(f.se) });
    }
    const z = 1.6449;
    let covered = 0;
    let pairs = 0;
    for (let i = 0; i < J; i++)
      for (let j = i + 1; j < J; j++) {
        const mean = fits.reduce((s, f) => s + f.theta[i]! - f.theta[j]!, 0) / fits.length;
        for (const f of fits) {
          pairs++;
          if (Math.abs(f.theta[i]! - f.theta[j]! - mean) <= z * Math.hypot(f.se[i]!, f.se[j]!)) covered++;
        }
      }
    expect(pairs).toBe(6 * 28);
    expect(covered / pairs).toBeGreaterThanOrEqual(RANK_LEVEL);
  }, 60_000);
});
