/**
 * Pearson correlation of x and y over the pairs where both are numbers (NaN pairs skipped). Two-pass
 * (means first) for accuracy. NaN when fewer than 2 pairs or a variable is constant.
 */
export function pearson(x: ArrayLike<number>, y: ArrayLike<number>): number {
  if (x.length !== y.length) throw new RangeError(`length mismatch: ${x.length} vs ${y.length}`);
  let n = 0;
  let mx = 0;
  let my = 0;
  for (let i = 0; i < x.length; i++) {
    const a = x[i]!;
    const b = y[i]!;
    if (Number.isNaN(a) || Number.isNaN(b)) continue;
    n++;
    mx += a;
    my += b;
  }
  if (n < 2) return NaN;
  mx /= n;
  my /= n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < x.length; i++) {
    const a = x[i]!;
    const b = y[i]!;
    if (Number.isNaN(a) || Number.isNaN(b)) continue;
    sxy += (a - mx) * (b - my);
    sxx += (a - mx) * (a - mx);
    syy += (b - my) * (b - my);
  }
  const den = Math.sqrt(sxx * syy);
  return den > 0 ? sxy / den : NaN;
}
