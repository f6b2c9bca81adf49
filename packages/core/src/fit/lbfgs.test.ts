// minimizeLbfgs with a loss that carries rounding noise (as an f32 kernel's does): with
// `lossNoise` the line search judges the small final steps by the gradients (trapezoid rule) and
// reaches the distance stop; trusting the noisy loss differences, it cannot.
import { describe, expect, it } from 'vitest';
import type { Objective } from '../model/objective.js';
import { minimizeLbfgs } from './lbfgs.js';
import { quadraticObjective } from '@llm-nrm/tooling/quadratic';

/**
 * A quadratic on F0 = 1e6 with a deterministic loss noise of relative size 1e-8 (about 0.01 here),
 * the gradient exact: what an f32 kernel with f64 accumulation gives, where the last decreases are
 * far below the loss's rounding. Condition number 100.
 */
const noisyQuadratic = (n: number) => quadraticObjective(n, { offset: 1e6, curvature: (k, n) => 1 + (99 * k) / n, centre: 1, noise: 1e-8 });

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

describe('minimizeLbfgs with a preconditioner', () => {
  // A chained Rosenbrock-type function (not quadratic: the pairs and the line search matter) with a
  // diagonal preconditioner refreshed every 3 iterations at the current point.
  const n = 30;
  const obj: Objective = {
    layout: { kind: 'binary', nModels: 0, nItems: 0, size: n } as unknown as Objective['layout'],
    free: new Uint8Array(n).fill(1),
    lossAndGrad(x, g) {
      g.fill(0);
      let f = 0;
      for (let t = 0; t + 1 < n; t++) {
        const u = x[t + 1]! - x[t]! * x[t]!;
        const v = 1 - x[t]!;
        f += 10 * u * u + v * v;
        g[t]! += -40 * u * x[t]! - 2 * v;
        g[t + 1]! += 20 * u;
      }
      return f;
    },
  };
  const preconditioner = (withPair: boolean) => {
    const d = new Float64Array(n);
    const apply = (v: Float64Array, out: Float64Array) => {
      for (let t = 0; t < n; t++) out[t] = v[t]! / d[t]!;
    };
    return {
      apply,
      refresh: (x: Float64Array) => {
        for (let t = 0; t < n; t++) d[t] = 2 + 120 * x[t]! * x[t]! + (t % 7);
      },
      ...(withPair
        ? {
            applyPair: (v1: Float64Array, o1: Float64Array, v2: Float64Array, o2: Float64Array) => {
              apply(v1, o1);
              apply(v2, o2);
            },
          }
        : {}),
    };
  };
  const x0 = Float64Array.from({ length: n }, (_, t) => -1.2 + 0.05 * t);

  for (const [name, opts] of [
    ['the distance stop', { distanceTolerance: 1e-6, gradTolerance: 0, tolerance: 0 }],
    ['the gradient stop', { gradTolerance: 1e-5, tolerance: 0 }],
  ] as const) {
    it(`takes the same path with applyPair as with apply alone (${name})`, () => {
      const a = minimizeLbfgs(obj, x0, { ...opts, preconditioner: preconditioner(false), refreshEvery: 3, maxIterations: 400 });
      const b = minimizeLbfgs(obj, x0, { ...opts, preconditioner: preconditioner(true), refreshEvery: 3, maxIterations: 400 });
      expect(a.iterations).toBeGreaterThan(10);
      expect(a.converged).toBe(true);
      expect(a.reason).toBe(name === 'the distance stop' ? 'distance' : 'gradient');
      expect(b.reason).toBe(a.reason);
      expect(b.iterations).toBe(a.iterations);
      expect(b.passes).toBe(a.passes);
      expect(b.trace).toEqual(a.trace);
      expect(Array.from(b.x)).toEqual(Array.from(a.x));
    });
  }

  it('decreaseStepFrom: the first trial from the last decrease (eq. 3.60) reaches the same optimum on another path', () => {
    const opts = { distanceTolerance: 1e-6, gradTolerance: 0, tolerance: 0, refreshEvery: 3, maxIterations: 400 };
    const run = (from: number | undefined) =>
      minimizeLbfgs(obj, x0, { ...opts, preconditioner: preconditioner(true), ...(from !== undefined ? { decreaseStepFrom: from } : {}) });
    const plain = run(undefined);
    const never = run(Infinity);
    const nw = run(0);
    const late = run(5);
    // Infinity is the default: the same path to the bit.
    expect(never.trace).toEqual(plain.trace);
    expect(Array.from(never.x)).toEqual(Array.from(plain.x));
    for (const r of [plain, nw, late]) {
      expect(r.reason).toBe('distance');
      // The chained Rosenbrock's minimum is x = 1 everywhere.
      for (let t = 0; t < n; t++) expect(Math.abs(r.x[t]! - 1)).toBeLessThan(1e-5);
    }
    // The option changes the path: other losses along the way, and from 5 on the first 5 steps are the default's.
    expect(nw.trace).not.toEqual(plain.trace);
    expect(late.trace.slice(0, 6)).toEqual(plain.trace.slice(0, 6));
    expect(late.trace).not.toEqual(plain.trace);
  });
});
