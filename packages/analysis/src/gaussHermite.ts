/**
 * Gauss-Hermite quadrature for the standard normal N(0, 1): nodes x_i and weights w_i (summing to 1)
 * with E[f(theta)] ~ sum_i w_i f(x_i), exact for polynomials of degree < 2n.
 *
 * Nodes are the roots of the orthonormal probabilists' Hermite polynomial h_n, evaluated with the
 * stable three-term recurrence h_{k+1} = (x h_k - sqrt(k) h_{k-1}) / sqrt(k + 1) (no factorials, so
 * no overflow); roots are bracketed by a sign scan and polished by bisection. Weights are the
 * Christoffel numbers w_i = 1 / sum_{k<n} h_k(x_i)^2.
 */
export function gaussHermite(n: number): { nodes: Float64Array; weights: Float64Array } {
  if (!Number.isInteger(n) || n < 1 || n > 200) throw new RangeError(`invalid quadrature size: ${n}`);
  const nodes = new Float64Array(n);
  const weights = new Float64Array(n);
  const h = (x: number): number => {
    let h0 = 0;
    let h1 = 1;
    for (let k = 0; k < n; k++) {
      const h2 = (x * h1 - Math.sqrt(k) * h0) / Math.sqrt(k + 1);
      h0 = h1;
      h1 = h2;
    }
    return h1;
  };
  // Every root lies inside |x| < sqrt(4n + 2) (bound on Hermite zeros); the closest two are about
  // pi / sqrt(2n) apart, so this grid brackets each one separately.
  const bound = Math.sqrt(4 * n + 2) + 1;
  const steps = 200 * n + 1000;
  const dx = (2 * bound) / steps;
  let found = 0;
  let xl = -bound;
  let fl = h(xl);
  for (let s = 1; s <= steps && found < n; s++) {
    const xr = -bound + s * dx;
    const fr = h(xr);
    if (fr === 0) {
      nodes[found++] = xr; // a grid point hit a root exactly (x = 0 for odd n)
    } else if (fl * fr < 0) {
      let lo = xl;
      let hi = xr;
      let flo = fl;
      for (let it = 0; it < 200 && hi - lo > 1e-15 * Math.max(1, Math.abs(lo)); it++) {
        const mid = 0.5 * (lo + hi);
        const fm = h(mid);
        if (fm === 0) {
          lo = hi = mid;
          break;
        }
        if (flo * fm < 0) hi = mid;
        else {
          lo = mid;
          flo = fm;
        }
      }
      nodes[found++] = 0.5 * (lo + hi);
    }
    xl = xr;
    fl = fr;
  }
  if (found !== n) throw new RangeError(`gaussHermite(${n}) found ${found} roots`);
  let total = 0;
  for (let i = 0; i < n; i++) {
    let h0 = 0;
    let h1 = 1;
    let ss = 1;
    for (let k = 0; k < n - 1; k++) {
      const h2 = (nodes[i]! * h1 - Math.sqrt(k) * h0) / Math.sqrt(k + 1);
      h0 = h1;
      h1 = h2;
      ss += h1 * h1;
    }
    weights[i] = 1 / ss;
    total += weights[i]!;
  }
  for (let i = 0; i < n; i++) weights[i]! /= total; // absorb rounding: weights of a probability measure
  return { nodes, weights };
}
