/** x[o..o+n) minus its mean (the sum-to-zero form the bundle reports). */
export function centered(x: Float64Array, o: number, n: number): number[] {
  let m = 0;
  for (let t = 0; t < n; t++) m += x[o + t]!;
  m /= n;
  return Array.from({ length: n }, (_, t) => x[o + t]! - m);
}
