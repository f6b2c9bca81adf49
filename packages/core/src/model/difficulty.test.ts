// The guarded gate difficulty b_i (difficulty.ts): N_i / D_i where |D_i| is large, bounded and finite
// as D_i -> 0, and `difficultyBackward` equal to finite differences, including near D_i = 0.
import { describe, expect, it } from 'vitest';
import type { ResponseBank } from '../data/bank.js';
import { computeDifficulties, difficultyBackward, DIFFICULTY_BOUND, DIFFICULTY_EPS } from './difficulty.js';
import { randomSource } from '../simulate/random.js';
import { simulateFleet } from '../simulate/simulate.js';

// 10 items with 2..7 options; a and c live in one vector as [a (sumK) | c (sumK)].
const bank: ResponseBank = simulateFleet({ models: 2, items: 10, seed: 3, optionWeights: { 2: 1, 3: 1, 4: 1, 5: 1, 6: 1, 7: 1 } }).bank;
const I = bank.items.length;
const sumK = bank.itemOffsets[I]!;
const A = 0;
const C = sumK;

/** N_i and D_i computed directly from the definition (paper.md), without the guard. */
function numDen(x: Float64Array, i: number): { N: number; D: number } {
  const o = bank.itemOffsets[i]!;
  const K = bank.itemOffsets[i + 1]! - o;
  const g = bank.key[i]!;
  let s = 0;
  let sa = 0;
  for (let k = 0; k < K; k++) {
    if (k === g) continue;
    const e = Math.exp(x[C + o + k]!);
    s += e;
    sa += e * x[A + o + k]!;
  }
  return { N: Math.log(s) - x[C + o + g]!, D: x[A + o + g]! - sa / s };
}

/** Random a, c; then a_key moved so that D_i = targets[i]. */
function point(seed: number, targets: number[], cScale = 1): Float64Array {
  const rng = randomSource(seed);
  const x = new Float64Array(2 * sumK);
  for (let t = 0; t < sumK; t++) {
    x[A + t] = 0.8 * rng.normal();
    x[C + t] = cScale * rng.normal();
  }
  for (let i = 0; i < I; i++) {
    const o = bank.itemOffsets[i]!;
    const g = bank.key[i]!;
    const { D } = numDen(x, i);
    x[A + o + g]! += targets[i]! - D;
  }
  return x;
}

function difficulties(x: Float64Array): { b: Float64Array; aux: Float64Array; w: Float64Array } {
  const b = new Float64Array(I);
  const aux = new Float64Array(3 * I);
  const w = new Float64Array(sumK);
  computeDifficulties(bank, x, A, C, b, aux, w);
  return { b, aux, w };
}

describe('computeDifficulties', () => {
  it('equals N_i / D_i (relative 2e-3) when |D_i| >= 50 EPS and |N_i / D_i| << BOUND', () => {
    const targets = [5, -6, 8, -10, 12, 20, -7, 9, 15, -30].map((t) => t * (DIFFICULTY_EPS / 0.1));
    const x = point(1, targets, 0.5);
    const { b } = difficulties(x);
    for (let i = 0; i < I; i++) {
      const { N, D } = numDen(x, i);
      expect(D).toBeCloseTo(targets[i]!, 12);
      // The exact guarded value, and its distance from N/D: relative EPS^2/D^2 + (N/D)^2/(3 BOUND^2).
      const raw = (N * D) / (D * D + DIFFICULTY_EPS ** 2);
      expect(b[i]!).toBeCloseTo(DIFFICULTY_BOUND * Math.tanh(raw / DIFFICULTY_BOUND), 12);
      const bound = DIFFICULTY_EPS ** 2 / (D * D) + (N / D) ** 2 / (3 * DIFFICULTY_BOUND ** 2);
      expect(Math.abs(b[i]! - N / D)).toBeLessThanOrEqual(1.01 * bound * Math.abs(N / D) + 1e-15);
      expect(Math.abs(b[i]! - N / D)).toBeLessThan(2e-3 * Math.abs(N / D) + 1e-15);
    }
  });

  it('stays finite and inside (-BOUND, BOUND) as D_i -> 0, and goes to 0 with D_i', () => {
    for (const d of [1e-2, 1e-4, 1e-8, 1e-12, 0]) {
      for (const sign of [1, -1]) {
        const x = point(2, new Array(I).fill(sign * d));
        const { b, aux } = difficulties(x);
        for (let i = 0; i < I; i++) {
          const { N } = numDen(x, i);
          expect(Number.isFinite(b[i]!)).toBe(true);
          expect(Math.abs(b[i]!)).toBeLessThan(DIFFICULTY_BOUND);
          // raw = N D / (D^2 + EPS^2) ~ N D / EPS^2 for |D| << EPS.
          expect(Math.abs(b[i]!)).toBeLessThanOrEqual((Math.abs(N) * d) / DIFFICULTY_EPS ** 2 + 1e-12);
          expect(aux.slice(3 * i, 3 * i + 3).every(Number.isFinite)).toBe(true);
        }
      }
    }
  });

  it('saturates at most at +-BOUND for extreme N_i (|D_i| ~ EPS, c spread over +-40)', () => {
    const x = point(3, new Array(I).fill(DIFFICULTY_EPS), 40);
    const { b, aux } = difficulties(x);
    let large = 0;
    for (let i = 0; i < I; i++) {
      expect(Number.isFinite(b[i]!)).toBe(true);
      // In floating point tanh rounds to 1 past |raw / BOUND| ~ 19: b_i reaches the bound but never passes it.
      expect(Math.abs(b[i]!)).toBeLessThanOrEqual(DIFFICULTY_BOUND);
      if (Math.abs(b[i]!) > 0.9 * DIFFICULTY_BOUND) large++;
      expect(aux.slice(3 * i, 3 * i + 3).every(Number.isFinite)).toBe(true);
    }
    expect(large).toBeGreaterThan(0);
  });
});

describe('difficultyBackward', () => {
  /** d(sum_i gb_i b_i)/d(a, c) analytically and by fourth-order central differences. */
  function compare(x: Float64Array, seed: number): number {
    const rng = randomSource(seed);
    const gb = new Float64Array(I);
    for (let i = 0; i < I; i++) gb[i] = rng.normal();
    const { aux, w } = difficulties(x);
    const g = new Float64Array(2 * sumK);
    difficultyBackward(bank, x, A, gb, aux, w, g, C);
    const F = (y: Float64Array): number => {
      const { b } = difficulties(y);
      let s = 0;
      for (let i = 0; i < I; i++) s += gb[i]! * b[i]!;
      return s;
    };
    const h = 1e-4;
    const y = Float64Array.from(x);
    let worst = 0;
    for (let t = 0; t < 2 * sumK; t++) {
      const at = (d: number): number => {
        y[t] = x[t]! + d;
        const v = F(y);
        y[t] = x[t]!;
        return v;
      };
      const fd = (-at(2 * h) + 8 * at(h) - 8 * at(-h) + at(-2 * h)) / (12 * h);
      const err = Math.abs(fd - g[t]!) / (1e-7 + 1e-6 * Math.abs(g[t]!));
      expect(err, `coordinate ${t}: analytic ${g[t]}, finite difference ${fd}`).toBeLessThanOrEqual(1);
      worst = Math.max(worst, Math.abs(fd - g[t]!));
    }
    return worst;
  }

  it('matches finite differences at ordinary points (atol 1e-7, rtol 1e-6)', () => {
    const targets = [1.5, -0.8, 2, 0.6, -1.2, 3, 0.9, -2.5, 1.1, 0.4];
    expect(compare(point(4, targets), 40)).toBeLessThan(1e-7);
  });

  it('matches finite differences where D_i is near 0, both signs, and at the guard scale EPS', () => {
    const e = DIFFICULTY_EPS;
    const targets = [0, 1e-9, -1e-6, 1e-3, -0.01, 0.3 * e, -0.5 * e, e, -e, 2 * e];
    expect(compare(point(5, targets), 41)).toBeLessThan(1e-6);
  });
});
