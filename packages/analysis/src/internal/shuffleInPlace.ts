import type { Random } from '@llm-nrm/core';

/**
 * Fisher-Yates shuffle of a typed array in place, seeded (core's `shuffled` draws the same sequence
 * but copies into a plain array; fold assignments and item orders stay compact here). Returns `a`.
 */
export function shuffleInPlace(a: Int32Array, rng: Random): Int32Array {
  for (let t = a.length - 1; t > 0; t--) {
    const u = rng.int(t + 1);
    const tmp = a[t]!;
    a[t] = a[u]!;
    a[u] = tmp;
  }
  return a;
}

/** A seeded random permutation of 0..n-1. */
export function randomPermutation(n: number, rng: Random): Int32Array {
  return shuffleInPlace(
    Int32Array.from({ length: n }, (_, i) => i),
    rng,
  );
}
