// minimizeLbfgs with a loss that carries rounding noise (as an f32 kernel's does): with
// `lossNoise` the line search judges the small final steps by the gradients (trapezoid rule) and
// reaches the distance stop; trusting the noisy loss differences, it cannot.
import { describe, expect, it } from 'vitest';
import type { Objective } from '../objective.js';
import { minimizeLbfgs } from './lbfgs.js';

/**
 * f(x) = F0 + sum_t h_t (x_t - m_t)^2 / 2 + noise(x), the noise a deterministic function of x of
 * relative size 1e-8 (about 0.01 here), the gradient exact: what an f32 kernel with f64
 * accumulation gives, where the last decreases are far below the loss's rounding.
 */
function noisyQuadratic(n: number): { obj: Objective; m: Float64Array; h: Float64Array } {
  const F0 = 1e6;
  const h = new Float64Array(n);
  const m = new Float64Array(n);
  for (let t = 0; t < n; t++) {
    h[t] = 1 + (99 * ((t * 37) % n)) / n; // condition number 100
    m[t] = Math.sin(1 + t);
  }
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
      let f = F0;
      let hash = 0;
      for (let t = 0; t < n; t++) {
        const d = x[t]! - m[t]!;
        f += 0.5 * h[t]! * d * d;
        g[t] = h[t]! * d;
        hash += Math.sin(1e4 * x[t]! + t);
      }
      return f + 1e-8 * F0 * Math.sin(1e3 * hash);
    },
  };
  return { obj, m, h };
}

describe('minimizeLbfgs under loss noise', () => {
  const n = 40;
  it('with lossNoise: stops on the distance criterion, every coordinate within 1e-3 of its SE', () => {
    const { obj, m, h } = noisyQuadratic(n);
    const r = minimizeLbfgs(obj, new Float64Array(n), { distanceTolerance: 1e-3, tolerance: 0, lossNoise: 1e-8, maxIterations: 500 });
    expect(r.reason).toBe('distance');
    expect(r.distance).toBeLessThan(1e-3);
    // SE of coordinate t: 1 / sqrt(h_t).
    for (let t = 0; t < n; t++) expect(Math.abs(r.x[t]! - m[t]!) * Math.sqrt(h[t]!)).toBeLessThan(1e-3);
  });

  it('without it: the noisy loss differences stop the fit short of that (the case lossNoise is for)', () => {
    const { obj, m, h } = noisyQuadratic(n);
    const r = minimizeLbfgs(obj, new Float64Array(n), { distanceTolerance: 1e-3, tolerance: 0, maxIterations: 500 });
    expect(r.reason).not.toBe('distance');
    let worst = 0;
    for (let t = 0; t < n; t++) worst = Math.max(worst, Math.abs(r.x[t]! - m[t]!) * Math.sqrt(h[t]!));
    expect(worst).toBeGreaterThan(1e-3);
  });
});
