import { describe, expect, it } from 'vitest';
import { NUISANCE_VAR_FLOOR, minimiseTinyRun, nuisancePrior } from './minimiseTinyRun.js';
import { minimiseThetaSharpness } from './minimiseTheta.js';

describe('minimiseTinyRun: bias and fallback under the fleet spread', () => {
  it('nuisancePrior: per-position means and n - 1 variances over the LLMs, floored', () => {
    const p = nuisancePrior(
      [
        { positionBias: [0.2, -0.2], fallback: [1, -1] },
        { positionBias: [0.2, -0.2], fallback: [-1, 1] },
        { positionBias: [0.2, -0.2], fallback: [0, 0] },
      ],
      2,
    );
    expect(p.delta).toEqual([0.2, -0.2].map((v) => expect.closeTo(v, 12)));
    expect(p.deltaVar).toEqual([NUISANCE_VAR_FLOOR, NUISANCE_VAR_FLOOR]);
    expect(p.rho).toEqual([0, 0]);
    expect(p.rhoVar[0]).toBeCloseTo(1, 12);
  });

  it("is the exact MAP of a Gaussian problem: the data move bias as far as the run's length supports", () => {
    // Data on d = delta[0] = -delta[1] with precision n around y; priors N(m_k, v_k) on each coordinate.
    const prior = { delta: [0.1, -0.1], deltaVar: [0.04, 0.09], rho: [0, 0], rhoVar: [1, 1] };
    const y = 0.6;
    const map = (n: number) =>
      (n * y + prior.delta[0]! / prior.deltaVar[0]! - prior.delta[1]! / prior.deltaVar[1]!) / (n + 1 / prior.deltaVar[0]! + 1 / prior.deltaVar[1]!);
    const est = (n: number) => {
      const delta = [...prior.delta];
      const r = minimiseTinyRun((t, u) => ((t - 1) ** 2 + (u - 0.2) ** 2) / 2 + (n * (delta[0]! - y) ** 2) / 2, delta, null, prior);
      expect(delta[0]! + delta[1]!).toBeCloseTo(0, 12);
      expect(r.theta).toBeCloseTo(1, 6);
      expect(r.u).toBeCloseTo(0.2, 5);
      return delta[0]!;
    };
    const few = est(5);
    const many = est(500);
    expect(few).toBeCloseTo(map(5), 3);
    expect(many).toBeCloseTo(map(500), 3);
    // Shrunk toward the fleet's mean on a short run, near the data on a long one.
    expect(Math.abs(few - prior.delta[0]!)).toBeLessThan(Math.abs(few - y));
    expect(Math.abs(many - y)).toBeLessThan(0.05);
  });

  it('with neither part it is minimiseThetaSharpness', () => {
    const f = (t: number, u: number) => (t - 0.3) ** 2 + 2 * (u + 0.4) ** 2 + t * u * 0.1;
    const prior = { delta: [0, 0], deltaVar: [1, 1], rho: [0, 0], rhoVar: [1, 1] };
    const r = minimiseTinyRun(f, null, null, prior);
    const ref = minimiseThetaSharpness(f);
    expect([r.theta, r.se, r.u]).toEqual([ref.theta, ref.se, ref.u]);
  });

  it("minimiseThetaSharpness from a start (a sweep's last optimum): the same optimum in fewer evaluations; the whole search when the optimum moved past the local grid", () => {
    let n = 0;
    const f = (t: number, u: number) => {
      n++;
      const s = Math.exp(u);
      return 12 * Math.log1p(Math.exp(-s * (t - 0.7))) + 9 * Math.log1p(Math.exp(s * (t - 0.7) - 1)) + (t * t) / 18 + (u + 0.4) ** 2;
    };
    const whole = minimiseThetaSharpness(f);
    const nWhole = n;
    n = 0;
    const warm = minimiseThetaSharpness(f, { theta: whole.theta + 0.2, u: whole.u - 0.3 });
    expect(Math.abs(warm.theta - whole.theta)).toBeLessThan(1e-6);
    expect(Math.abs(warm.u - whole.u)).toBeLessThan(1e-5);
    expect(Math.abs(warm.se - whole.se)).toBeLessThan(1e-5);
    expect(n).toBeLessThan(nWhole / 3);
    // A start whose u is more than 0.75 from the optimum: its local u grid's best point is an end.
    const far = minimiseThetaSharpness(f, { theta: whole.theta, u: whole.u + 1.5 });
    expect([far.theta, far.se, far.u]).toEqual([whole.theta, whole.se, whole.u]);
  });
});
