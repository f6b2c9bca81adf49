/**
 * Kendall's tau-b between x and y in O(n log n), after Knight (1966), "A computer method for
 * calculating Kendall's tau with ungrouped data", JASA 61: sort by (x, y), count tied pairs in x (n1)
 * and jointly tied pairs (n3), merge-sort by y counting exchanges (the discordant pairs D), count ties
 * in y (n2); then with n0 = n(n-1)/2
 *   tau_b = (n0 - n1 - n2 + n3 - 2 D) / sqrt((n0 - n1)(n0 - n2)).
 * Pairs where either value is NaN are skipped (d3-array style). NaN when fewer than 2 pairs remain
 * or either variable is constant.
 */
export function kendallTau(x: ArrayLike<number>, y: ArrayLike<number>): number {
  if (x.length !== y.length) throw new RangeError(`length mismatch: ${x.length} vs ${y.length}`);
  const keep: number[] = [];
  for (let i = 0; i < x.length; i++) if (!Number.isNaN(x[i]!) && !Number.isNaN(y[i]!)) keep.push(i);
  const n = keep.length;
  if (n < 2) return NaN;
  const xs = new Float64Array(n);
  const ys = new Float64Array(n);
  keep.sort((a, b) => x[a]! - x[b]! || y[a]! - y[b]!);
  for (let t = 0; t < n; t++) {
    xs[t] = x[keep[t]!]!;
    ys[t] = y[keep[t]!]!;
  }
  const n0 = (n * (n - 1)) / 2;
  let n1 = 0;
  let n3 = 0;
  for (let s = 0; s < n;) {
    let e = s + 1;
    while (e < n && xs[e] === xs[s]) e++;
    const t = e - s;
    n1 += (t * (t - 1)) / 2;
    // Within an x-tie run, ys are sorted: count joint ties.
    for (let u = s; u < e;) {
      let w = u + 1;
      while (w < e && ys[w] === ys[u]) w++;
      n3 += ((w - u) * (w - u - 1)) / 2;
      u = w;
    }
    s = e;
  }
  const D = mergeCount(ys);
  let n2 = 0;
  for (let s = 0; s < n;) {
    let e = s + 1;
    while (e < n && ys[e] === ys[s]) e++;
    n2 += ((e - s) * (e - s - 1)) / 2;
    s = e;
  }
  const den = Math.sqrt((n0 - n1) * (n0 - n2));
  if (!(den > 0)) return NaN;
  return (n0 - n1 - n2 + n3 - 2 * D) / den;
}

/** Sort `a` ascending in place (bottom-up merge sort) and return the number of inversions. */
function mergeCount(a: Float64Array): number {
  // Two buffers swapped each pass; typed as the base type so either can hold the other.
  const n = a.length;
  let src: Float64Array = a;
  let dst: Float64Array = new Float64Array(n);
  let swaps = 0;
  for (let width = 1; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        // Strictly greater only: equal y values are ties, not exchanges.
        if (src[j]! < src[i]!) {
          dst[k++] = src[j++]!;
          swaps += mid - i;
        } else dst[k++] = src[i++]!;
      }
      while (i < mid) dst[k++] = src[i++]!;
      while (j < hi) dst[k++] = src[j++]!;
    }
    const t = src;
    src = dst;
    dst = t;
  }
  if (src !== a) a.set(src);
  return swaps;
}
