// A leaf module (imports nothing), so that fit and the families can standardise theta
// without importing fit/identification.ts, which imports the family registry.

/** Copy of x with theta (the first J entries) standardised to mean 0, sd 1. */
export function standardized(x: Float64Array, J: number): Float64Array {
  const out = new Float64Array(x.length);
  standardizeInto(x, J, out);
  return out;
}

/** `standardized` into `out` (x's length; not x itself), without allocating; returns theta's sd (1 where it is 0), for the chain rule. */
export function standardizeInto(x: Float64Array, J: number, out: Float64Array): number {
  out.set(x);
  let m = 0;
  for (let j = 0; j < J; j++) m += x[j]! / J;
  let v = 0;
  for (let j = 0; j < J; j++) v += (x[j]! - m) ** 2 / J;
  const sd = Math.sqrt(v) || 1;
  for (let j = 0; j < J; j++) out[j] = (x[j]! - m) / sd;
  return sd;
}
