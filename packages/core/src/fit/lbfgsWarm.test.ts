// minimizeLbfgs's warm start (fit's 'twin' SE mode): a run handed another's memory (startMemory,
// from lbfgsMemory) on an objective with the same Hessian starts with that curvature, and
// `refreshed` skips the preconditioner's refresh at iteration 0.
import { describe, expect, it } from 'vitest';
import { minimizeLbfgs } from './lbfgs.js';
import { quadraticObjective } from '@llm-nrm/tooling/quadratic';

const n = 40;
// Condition number 1,000: the memory has much to learn from an identity start.
const curvature = (k: number, n: number) => 1 + (999 * k) / n;

describe('minimizeLbfgs warm start', () => {
  it('a run from the end of another, with its memory, reaches the new optimum in fewer passes', () => {
    const first = quadraticObjective(n, { offset: 10, curvature, centre: 1 });
    const a = minimizeLbfgs(first.obj, new Float64Array(n), { distanceTolerance: 1e-6, tolerance: 0, gradTolerance: 0, maxIterations: 500 });
    expect(a.reason).toBe('distance');
    expect(a.lbfgsMemory!.s.length).toBe(12);
    expect(a.lbfgsMemory!.y.length).toBe(12);
    expect(a.lbfgsMemory!.rho.length).toBe(12);
    expect(a.lbfgsMemory!.gamma).toBeGreaterThan(0);
    // The same Hessian, the optimum moved (the twin's case: the fit's curvature, other targets).
    const second = quadraticObjective(n, { offset: 10, curvature, centre: 1.2 });
    const opts = { distanceTolerance: 1e-6, tolerance: 0, gradTolerance: 0, maxIterations: 500 };
    const cold = minimizeLbfgs(second.obj, a.x, opts);
    const warm = minimizeLbfgs(second.obj, a.x, { ...opts, startMemory: a.lbfgsMemory! });
    expect(cold.reason).toBe('distance');
    expect(warm.reason).toBe('distance');
    for (let t = 0; t < n; t++) expect(Math.abs(warm.x[t]! - second.m[t]!) * Math.sqrt(second.h[t]!)).toBeLessThan(1e-6);
    expect(warm.passes).toBeLessThan(cold.passes);
  });

  it('keeps at most `memory` of the pairs handed in, the newest', () => {
    const q = quadraticObjective(n, { offset: 10, curvature, centre: 1 });
    const a = minimizeLbfgs(q.obj, new Float64Array(n), { distanceTolerance: 1e-6, tolerance: 0, gradTolerance: 0, maxIterations: 500 });
    const newest = a.lbfgsMemory!.s.slice(-4);
    const b = minimizeLbfgs(q.obj, a.x, { memory: 4, maxIterations: 0, startMemory: a.lbfgsMemory! });
    expect(b.lbfgsMemory!.s).toEqual(newest);
    expect(b.lbfgsMemory!.s[3]).toBe(newest[3]);
  });

  it('refreshed: no refresh at iteration 0, the later ones as before', () => {
    const q = quadraticObjective(n, { offset: 10, curvature, centre: 1 });
    const run = (refreshed: boolean) => {
      let refreshes = 0;
      const r = minimizeLbfgs(q.obj, new Float64Array(n), {
        distanceTolerance: 1e-6,
        tolerance: 0,
        gradTolerance: 0,
        refreshEvery: 10,
        refreshed,
        preconditioner: {
          // A fixed scale (refreshes change nothing, so both runs take the same path): L-BFGS
          // needs tens of iterations at condition number 1,000.
          apply: (v, out) => {
            for (let t = 0; t < n; t++) out[t] = v[t]! / 1000;
          },
          refresh: () => refreshes++,
        },
      });
      return { r, refreshes };
    };
    const cold = run(false);
    const warm = run(true);
    expect(cold.r.reason).toBe('distance');
    expect(cold.r.iterations).toBeGreaterThan(10);
    expect(Array.from(warm.r.x)).toEqual(Array.from(cold.r.x));
    expect(warm.r.iterations).toBe(cold.r.iterations);
    // Refreshes at iterations 0, 10, 20, ... up to the one the run stopped in.
    expect(cold.refreshes).toBe(Math.floor(cold.r.iterations / 10) + 1);
    expect(warm.refreshes).toBe(cold.refreshes - 1);
    expect(warm.r.passes).toBe(cold.r.passes - 1);
  });
});
