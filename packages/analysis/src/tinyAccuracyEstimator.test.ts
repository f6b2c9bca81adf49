import { describe, expect, it } from 'vitest';
import { randomSource } from '@llm-nrm/core';
import { fitTinyAccuracyEstimator, predictTinyAccuracy } from './tinyAccuracyEstimator.js';

describe('fitTinyAccuracyEstimator', () => {
  it('recovers a linear relation in the curve, the tiny accuracy and the log sharpness', () => {
    const rng = randomSource(3);
    const thetas = Array.from({ length: 60 }, () => rng.normal());
    // A straight curve, so F(theta) = 0.5 + 0.1 theta exactly.
    const curve = { grid: [-4, 4], accuracy: [0.1, 0.9] };
    const rows = thetas.map((t) => {
      const tinyAccuracy = 0.4 + 0.3 * rng.uniform();
      const logSharpness = 0.3 * rng.normal();
      const F = 0.5 + 0.1 * t;
      return { theta: t, tinyAccuracy, logSharpness, fullAccuracy: 0.02 + 0.8 * F + 0.15 * tinyAccuracy + 0.05 * logSharpness };
    });
    const est = fitTinyAccuracyEstimator(curve, rows);
    expect(est.coef[0]).toBeCloseTo(0.02, 6);
    expect(est.coef[1]).toBeCloseTo(0.8, 6);
    expect(est.coef[2]).toBeCloseTo(0.15, 6);
    expect(est.coef[3]).toBeCloseTo(0.05, 6);
    expect(est.residualSd).toBeLessThan(1e-6);
    const p = predictTinyAccuracy(curve, est, rows[0]!);
    expect(Math.abs(p.accuracy - rows[0]!.fullAccuracy)).toBeLessThan(0.02);
    const noisy = fitTinyAccuracyEstimator(
      curve,
      rows.map((r, j) => ({ ...r, fullAccuracy: r.fullAccuracy + (j % 2 ? 0.03 : -0.03) })),
    );
    expect(noisy.residualSd).toBeGreaterThan(0.025);
    const q = predictTinyAccuracy(curve, noisy, rows[0]!);
    expect(q.high - q.low).toBeCloseTo(2 * 1.6449 * noisy.residualSd, 9);
  });

  it('gives a feature without spread coefficient 0 and needs two LLMs', () => {
    const curve = { grid: [-1, 1], accuracy: [0.2, 0.8] };
    const rows = [0, 1, 2, 3].map((j) => ({ theta: j / 3 - 0.5, logSharpness: 0, tinyAccuracy: 0.5 + j / 10, fullAccuracy: 0.3 + j / 10 }));
    const est = fitTinyAccuracyEstimator(curve, rows);
    expect(est.coef[3]).toBe(0);
    expect(est.coef.every(Number.isFinite)).toBe(true);
    expect(() => fitTinyAccuracyEstimator(curve, rows.slice(0, 1))).toThrow(/at least 2/);
  });
});
