import { describe, expect, it } from 'vitest';
import { bootstrapSd } from './bootstrapSd.js';
import { kendallTau } from './kendallTau.js';
import { parseRanking } from './parseRanking.js';
import { rank } from './rank.js';
import { rankAgreement } from './rankAgreement.js';
import { spearmanRho } from './spearmanRho.js';

// O(n^2) tau-b straight from the definition: an independent check of Knight's algorithm.
function bruteTauB(x: number[], y: number[]): number {
  let C = 0;
  let D = 0;
  let tx = 0;
  let ty = 0;
  const n = x.length;
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      const sx = Math.sign(x[i]! - x[j]!);
      const sy = Math.sign(y[i]! - y[j]!);
      if (sx === 0 && sy === 0) continue;
      if (sx === 0) tx++;
      else if (sy === 0) ty++;
      else if (sx === sy) C++;
      else D++;
    }
  return (C - D) / Math.sqrt((C + D + tx) * (C + D + ty));
}

describe('kendallTau', () => {
  it('hand-worked case with ties in x and in y', () => {
    // x = 1 2 2 3 4, y = 1 3 2 2 4; n0 = 10 pairs.
    // Concordant: (1,2) (1,3) (1,4) (1,5) (2,5) (3,5) (4,5) = 7; discordant: (2,4) = 1;
    // tied in x only: (2,3); tied in y only: (3,4). n1 = n2 = 1, n3 = 0.
    // tau_b = (7 - 1) / sqrt((10 - 1)(10 - 1)) = 6 / 9.
    expect(kendallTau([1, 2, 2, 3, 4], [1, 3, 2, 2, 4])).toBeCloseTo(2 / 3, 14);
  });

  it('hand-worked case with a joint tie', () => {
    // x = 1 1 2 2, y = 1 1 2 3; n0 = 6. (1,2) tied in both (n3 = 1); (3,4) tied in x; n1 = 2, n2 = 1.
    // Concordant: (1,3) (1,4) (2,3) (2,4) = 4, discordant 0.
    // tau_b = (6 - 2 - 1 + 1 - 0) / sqrt((6 - 2)(6 - 1)) = 4 / sqrt(20).
    expect(kendallTau([1, 1, 2, 2], [1, 1, 2, 3])).toBeCloseTo(4 / Math.sqrt(20), 14);
  });

  it('perfect, reversed, constant and NaN-skipping cases', () => {
    expect(kendallTau([1, 2, 3], [10, 20, 30])).toBe(1);
    expect(kendallTau([1, 2, 3], [3, 2, 1])).toBe(-1);
    expect(kendallTau([1, 1, 1], [1, 2, 3])).toBeNaN();
    expect(kendallTau([1, NaN, 2, 3], [1, 5, 2, 3])).toBe(1);
  });

  it('matches the O(n^2) definition on random data with many ties', () => {
    let s = 7;
    const u = () => (s = (s * 16807) % 2147483647) / 2147483647;
    for (let t = 0; t < 50; t++) {
      const n = 2 + Math.floor(u() * 60);
      const x = Array.from({ length: n }, () => Math.floor(u() * 6));
      const y = Array.from({ length: n }, (_, i) => Math.floor(u() * 4) + (x[i]! > 2 ? 2 : 0));
      const b = bruteTauB(x, y);
      if (Number.isNaN(b)) expect(kendallTau(x, y)).toBeNaN();
      else expect(kendallTau(x, y)).toBeCloseTo(b, 12);
    }
  });
});

describe('spearmanRho', () => {
  it('hand-worked case with ties (average ranks)', () => {
    // ranks x = 1 2.5 2.5 4 5, ranks y = 1 4 2.5 2.5 5 (means 3).
    // deviations dx = -2 -.5 -.5 1 2, dy = -2 1 -.5 -.5 2: sum dx dy = 4 - .5 + .25 - .5 + 4 = 7.25,
    // sum dx^2 = sum dy^2 = 9.5, so rho = 7.25 / 9.5.
    expect(Array.from(rank([1, 2, 2, 3, 4]))).toEqual([1, 2.5, 2.5, 4, 5]);
    expect(spearmanRho([1, 2, 2, 3, 4], [1, 3, 2, 2, 4])).toBeCloseTo(7.25 / 9.5, 14);
  });

  it('without ties equals 1 - 6 sum d^2 / (n (n^2 - 1))', () => {
    // x ranks 1..5, y = 2 1 4 3 5: d = -1 1 -1 1 0, sum d^2 = 4; rho = 1 - 24 / 120 = 0.8.
    expect(spearmanRho([10, 20, 30, 40, 50], [2, 1, 4, 3, 5])).toBeCloseTo(0.8, 14);
    expect(spearmanRho([1, 2, NaN], [1, 2, 3])).toBe(1);
  });
});

describe('bootstrapSd, parseRanking, rankAgreement', () => {
  it('bootstrap SD is seeded, 0 for a perfectly monotone relation, positive for a noisy one', () => {
    const x = Array.from({ length: 30 }, (_, i) => i);
    expect(
      bootstrapSd(
        x,
        x.map((v) => v * v),
        spearmanRho,
        { seed: 3 },
      ),
    ).toBe(0);
    const y = x.map((v, i) => v + ((i * 7) % 11) * 3);
    const a = bootstrapSd(x, y, spearmanRho, { seed: 3, samples: 200 });
    expect(a).toBeGreaterThan(0);
    expect(bootstrapSd(x, y, spearmanRho, { seed: 3, samples: 200 })).toBe(a);
  });

  it('parses model,score CSV with a header, quotes and blank lines; errors name the line', () => {
    const r = parseRanking('model,score\n"gpt, 4",1300\n\nllama,1200.5\r\n');
    expect(r.models).toEqual(['gpt, 4', 'llama']);
    expect(Array.from(r.scores)).toEqual([1300, 1200.5]);
    expect(parseRanking('a,1\nb,2').models).toEqual(['a', 'b']);
    expect(() => parseRanking('model,score\na,1\nb,x', 'elo.csv')).toThrow(/elo.csv:3: invalid score: "x"/);
    expect(() => parseRanking('a,1\na,2')).toThrow(/duplicate/);
  });

  it('matches models by id and reports both scores', () => {
    const ext = parseRanking('model,score\nm1,1\nm2,2\nm3,3\nm4,4\nother,9');
    const res = rankAgreement(['m1', 'm2', 'm3', 'm4', 'mine'], { theta: [1, 2, 3, 4, 0], accuracy: [0.1, 0.3, 0.2, 0.4, 0.5] }, ext, { samples: 50 });
    expect(res.matched).toEqual(['m1', 'm2', 'm3', 'm4']);
    expect(res.missingExternal).toEqual(['mine']);
    expect(res.missingOurs).toEqual(['other']);
    expect(res.rows[0]!.spearman).toBe(1);
    expect(res.rows[1]!.spearman).toBeCloseTo(0.8, 12);
    expect(res.rows[1]!.kendall).toBeCloseTo(4 / 6, 12);
  });
});
