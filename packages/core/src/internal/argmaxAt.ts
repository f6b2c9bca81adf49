/** Index (0..k-1) of the largest of `k` values starting at `o` (first one on ties). */
export function argmaxAt(x: ArrayLike<number>, o: number, k: number): number {
  let best = 0;
  let bv = x[o]!;
  for (let t = 1; t < k; t++) {
    if (x[o + t]! > bv) {
      bv = x[o + t]!;
      best = t;
    }
  }
  return best;
}
