// A separable quadratic objective for the optimiser's tests (core's fit/*.test.ts):
// f(x) = F0 + sum_t h_t (x_t - m_t)^2 / 2 (+ a deterministic noise of x), the optimum m and each
// coordinate's SE 1 / sqrt(h_t) known exactly.
import type { Objective } from '@llm-nrm/core';

export interface QuadraticOptions {
  /** The constant F0 the loss sits on (what a relative tolerance is relative to). */
  offset: number;
  /** h_t from k_t = (37 t) mod n (a permutation of 0..n-1 for n prime to 37) and n: spreads the curvatures over the coordinates. */
  curvature: (k: number, n: number) => number;
  /** m_t = centre * sin(1 + t). */
  centre: number;
  /**
   * Relative size of a deterministic noise added to the loss (a function of x; the gradient stays
   * exact): what an f32 kernel with f64 accumulation gives. 0: none.
   */
  noise?: number;
}

export function quadraticObjective(n: number, o: QuadraticOptions): { obj: Objective; m: Float64Array; h: Float64Array } {
  const h = new Float64Array(n);
  const m = new Float64Array(n);
  for (let t = 0; t < n; t++) {
    h[t] = o.curvature((t * 37) % n, n);
    m[t] = o.centre * Math.sin(1 + t);
  }
  const noise = o.noise ?? 0;
  // The optimiser reads only the layout's size here; the rest is a placeholder binary layout.
  const layout = {
    kind: 'binary',
    nModels: 0,
    nItems: 0,
    pl: 1,
    theta: 0,
    slope: 0,
    intercept: 0,
    guess: 0,
    slip: 0,
    size: n,
  } as unknown as Objective['layout'];
  const obj: Objective = {
    layout,
    free: new Uint8Array(n).fill(1),
    lossAndGrad(x, g) {
      let f = o.offset;
      let hash = 0;
      for (let t = 0; t < n; t++) {
        const d = x[t]! - m[t]!;
        f += 0.5 * h[t]! * d * d;
        g[t] = h[t]! * d;
        if (noise !== 0) hash += Math.sin(1e4 * x[t]! + t);
      }
      return noise !== 0 ? f + noise * o.offset * Math.sin(1e3 * hash) : f;
    },
  };
  return { obj, m, h };
}
