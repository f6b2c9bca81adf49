// A leaf module (imports nothing), so that families (binary/newton.ts) can standardise theta
// without importing fit/identification.ts, which imports the family registry.

/** Copy of x with theta (the first J entries) standardised to mean 0, sd 1. */
export function standardized(x: Float64Array, J: number): Float64Array {
  const out = Float64Array.from(x);
  let m = 0;
  for (let j = 0; j < J; j++) m += x[j]! / J;
  let v = 0;
  for (let j = 0; j < J; j++) v += (x[j]! - m) ** 2 / J;
  const sd = Math.sqrt(v) || 1;
  for (let j = 0; j < J; j++) out[j] = (x[j]! - m) / sd;
  return out;
}
