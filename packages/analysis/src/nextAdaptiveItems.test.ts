import { describe, expect, it } from 'vitest';
import type { AdaptivePool } from './adaptivePool.js';
import { adaptiveInformation, mulberry32, nextAdaptiveItems, roundRandom } from './nextAdaptiveItems.js';

/** A pool of 4-option items with seeded slopes and intercepts; benchmarks by `bench(i)`. */
function pool(I: number, bench: (i: number) => string = () => 'b'): AdaptivePool {
  const rand = mulberry32(12345);
  const a: number[] = [];
  const c: number[] = [];
  const offsets = new Int32Array(I + 1);
  for (let i = 0; i < I; i++) {
    for (let k = 0; k < 4; k++) {
      a.push((rand() - 0.5) * 3);
      c.push((rand() - 0.5) * 4);
    }
    offsets[i + 1] = 4 * (i + 1);
  }
  return {
    ids: Array.from({ length: I }, (_, i) => `q${i}`),
    benchmarks: Array.from({ length: I }, (_, i) => bench(i)),
    offsets,
    a: Float64Array.from(a),
    c: Float64Array.from(c),
    eligible: new Uint8Array(I).fill(1),
  };
}

/** Fisher information as the variance of the score d log p_k / d theta under p, by finite differences of log p. */
function infoByDifferences(P: AdaptivePool, i: number, theta: number, s: number): number {
  const o = P.offsets[i]!;
  const K = P.offsets[i + 1]! - o;
  const logp = (t: number) => {
    const v = Array.from({ length: K }, (_, k) => s * (P.a[o + k]! * t + P.c[o + k]!));
    const m = Math.max(...v);
    const z = Math.log(v.reduce((acc, x) => acc + Math.exp(x - m), 0)) + m;
    return v.map((x) => x - z);
  };
  const h = 1e-5;
  const lo = logp(theta - h);
  const hi = logp(theta + h);
  const p = logp(theta).map(Math.exp);
  return p.reduce((acc, pk, k) => acc + pk * ((hi[k]! - lo[k]!) / (2 * h)) ** 2, 0);
}

describe('adaptive item selection', () => {
  it('information is the variance of the option score under the item curve at (theta, sharpness)', () => {
    const P = pool(5);
    for (const [t, s] of [
      [0, 1],
      [-1.3, 2.5],
      [2, 0.6],
    ] as const) {
      for (let i = 0; i < 5; i++) expect(adaptiveInformation(P, i, t, s)).toBeCloseTo(infoByDifferences(P, i, t, s), 6);
    }
  });

  it('mulberry32 is the reference generator (32-bit arithmetic, as the Python runner repeats it)', () => {
    // The widely used reference implementation, written independently here.
    function reference(seed: number) {
      let a = seed;
      return () => {
        let t = (a += 0x6d2b79f5);
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
      };
    }
    for (const seed of [0, 1, 42, 0x9e3779b9 >>> 0]) {
      const r = mulberry32(seed);
      const q = reference(seed);
      for (let n = 0; n < 50; n++) expect(r()).toBe(q());
    }
    expect(roundRandom(1, 0)()).not.toBe(roundRandom(1, 4)());
  });

  it('takes the most informative items at the estimate, best first, never an asked, ineligible or unavailable one', () => {
    const P = pool(40);
    const theta = 0.8;
    const s = 1.7;
    const order = Array.from({ length: 40 }, (_, i) => i).sort((x, y) => adaptiveInformation(P, y, theta, s) - adaptiveInformation(P, x, theta, s));
    const asked = new Uint8Array(40);
    expect(nextAdaptiveItems(P, asked, theta, s, 5)).toEqual(order.slice(0, 5));
    asked[order[0]!] = 1;
    P.eligible[order[1]!] = 0;
    const available = new Uint8Array(40).fill(1);
    available[order[2]!] = 0;
    expect(nextAdaptiveItems(P, asked, theta, s, 3, {}, available)).toEqual(order.slice(3, 6));
    // Runs out: fewer than asked for.
    const all = new Uint8Array(40).fill(1);
    all[order[10]!] = 0;
    expect(nextAdaptiveItems(P, all, theta, s, 4)).toEqual([order[10]]);
  });

  it('content balancing keeps each benchmark near its share of the pool', () => {
    // Three quarters of the pool in 'a', a quarter in 'b'.
    const P = pool(80, (i) => (i % 4 === 3 ? 'b' : 'a'));
    const asked = new Uint8Array(80);
    const picks = nextAdaptiveItems(P, asked, 0, 1, 12);
    const inB = picks.filter((i) => P.benchmarks[i] === 'b').length;
    expect(inB).toBe(3);
    // Unbalanced, the most informative items fall where they fall.
    const free = nextAdaptiveItems(P, asked, 0, 1, 12, { balance: false });
    const order = Array.from({ length: 80 }, (_, i) => i).sort((x, y) => adaptiveInformation(P, y, 0, 1) - adaptiveInformation(P, x, 0, 1));
    expect(free).toEqual(order.slice(0, 12));
    // Asked items count toward their benchmark: with 6 of 'a' asked, the next 2 go to 'b'.
    const some = new Uint8Array(80);
    let n = 0;
    for (let i = 0; i < 80 && n < 6; i++) {
      if (P.benchmarks[i] !== 'a') continue;
      some[i] = 1;
      n++;
    }
    expect(nextAdaptiveItems(P, some, 0, 1, 2).map((i) => P.benchmarks[i])).toEqual(['b', 'b']);
  });

  it('randomesque draws from the r most informative, reproducibly for a seed, differently across seeds', () => {
    const P = pool(60);
    const asked = new Uint8Array(60);
    const order = Array.from({ length: 60 }, (_, i) => i).sort((x, y) => adaptiveInformation(P, y, -0.4, 1.2) - adaptiveInformation(P, x, -0.4, 1.2));
    const draws = [1, 2, 3, 4, 5, 6, 7, 8].map((seed) => nextAdaptiveItems(P, asked, -0.4, 1.2, 1, { randomesque: 5, seed })[0]!);
    for (const d of draws) expect(order.slice(0, 5)).toContain(d);
    expect(new Set(draws).size).toBeGreaterThan(1);
    expect(nextAdaptiveItems(P, asked, -0.4, 1.2, 6, { randomesque: 5, seed: 3 })).toEqual(
      nextAdaptiveItems(P, asked, -0.4, 1.2, 6, { randomesque: 5, seed: 3 }),
    );
  });
});
