// minimizeLbfgs's `toleranceDistance` (the binary families' stop, ModelFamily.toleranceDistance):
// the relative-tolerance stop counts only once the Newton decrement (the estimated distance to the
// optimum in SE units) is below it. On a large loss the relative tolerance is many nats per 5
// iterations, so without the bound it fires far from the optimum.
import { describe, expect, it } from 'vitest';
import { minimizeLbfgs } from './lbfgs.js';
import { quadraticObjective } from '@llm-nrm/tooling/quadratic';

/** An ill-conditioned quadratic (condition number 1e4) on a large offset, F0 = 1e9. */
const offsetQuadratic = (n: number) => quadraticObjective(n, { offset: 1e9, curvature: (k, n) => Math.pow(10, (4 * k) / n), centre: 100 });

/** The largest |x_t - m_t| in units of the SE 1 / sqrt(h_t). */
function worstSe(x: Float64Array, m: Float64Array, h: Float64Array): number {
  let w = 0;
  for (let t = 0; t < x.length; t++) w = Math.max(w, Math.abs(x[t]! - m[t]!) * Math.sqrt(h[t]!));
  return w;
}

describe('minimizeLbfgs toleranceDistance', () => {
  const n = 60;
  const opts = { tolerance: 1e-7, distanceTolerance: 0.01, maxIterations: 2000 };
  it('without it the relative tolerance stops the fit more than 1 SE from the optimum', () => {
    const { obj, m, h } = offsetQuadratic(n);
    const r = minimizeLbfgs(obj, new Float64Array(n), opts);
    expect(r.reason).toBe('tolerance');
    expect(r.distance).toBeGreaterThan(1);
    expect(worstSe(r.x, m, h)).toBeGreaterThan(1);
  });
  it('with toleranceDistance 1 the tolerance stop waits until the estimated distance is below 1 SE, and the fit ends nearer', () => {
    const { obj, m, h } = offsetQuadratic(n);
    const free = minimizeLbfgs(obj, new Float64Array(n), opts);
    const r = minimizeLbfgs(obj, new Float64Array(n), { ...opts, toleranceDistance: 1 });
    expect(r.converged).toBe(true);
    expect(r.distance).toBeLessThan(1);
    expect(r.iterations).toBeGreaterThan(free.iterations);
    // The decrement is L-BFGS's estimate (here 0.92 against a worst coordinate of 4.7 SE, from
    // 12.9 SE and 457 nats above the optimum without the bound, to 41 nats).
    expect(worstSe(r.x, m, h)).toBeLessThan(0.5 * worstSe(free.x, m, h));
    expect(r.loss - 1e9).toBeLessThan(0.2 * (free.loss - 1e9));
  });
});
