/**
 * Average ranks (1-based; tied values share the mean of their ranks, as Spearman's rho with ties
 * needs). NaN values get rank NaN and do not take up ranks.
 */
export function rank(values: ArrayLike<number>): Float64Array {
  const n = values.length;
  const out = new Float64Array(n).fill(NaN);
  const idx: number[] = [];
  for (let i = 0; i < n; i++) if (!Number.isNaN(values[i]!)) idx.push(i);
  idx.sort((a, b) => values[a]! - values[b]!);
  for (let s = 0; s < idx.length;) {
    let e = s + 1;
    while (e < idx.length && values[idx[e]!] === values[idx[s]!]) e++;
    const r = (s + 1 + e) / 2; // mean of ranks s+1 .. e
    for (let t = s; t < e; t++) out[idx[t]!] = r;
    s = e;
  }
  return out;
}
