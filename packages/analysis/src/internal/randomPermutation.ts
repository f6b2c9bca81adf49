import type { Random } from '@llm-nrm/core';
import { shuffleInPlace } from '@llm-nrm/core/engine';

/** A seeded random permutation of 0..n-1 (core's Fisher-Yates over the identity). */
export function randomPermutation(n: number, rng: Random): Int32Array {
  return shuffleInPlace(
    Int32Array.from({ length: n }, (_, i) => i),
    rng,
  );
}
