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

  it('keeps the bare curve when fitted coefficients would predict new LLMs worse (leave-one-out), and sizes the interval out of sample', () => {
    const curve = { grid: [-4, 4], accuracy: [0.1, 0.9] };
    // Eight LLMs whose full accuracy is the curve plus noise; tiny accuracy and sharpness carry nothing.
    const dataset = (seed: number) => {
      const rng = randomSource(seed);
      return Array.from({ length: 8 }, () => {
        const theta = rng.normal();
        return { theta, tinyAccuracy: rng.uniform(), logSharpness: rng.normal(), fullAccuracy: 0.5 + 0.1 * theta + 0.02 * rng.normal() };
      });
    };
    // Over 200 such fleets the bare curve (nothing fitted) wins most often: 154 of 200 (fitting 2-4 coefficients on 8 LLMs only adds variance).
    let bare = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const est = fitTinyAccuracyEstimator(curve, dataset(seed), { choose: true });
      if (est.coef.join() === '0,1,0,0') {
        bare++;
        const rows = dataset(seed);
        const rms = Math.sqrt(rows.reduce((s, r) => s + (r.fullAccuracy - (0.5 + 0.1 * r.theta)) ** 2, 0) / rows.length);
        expect(est.residualSd).toBeCloseTo(rms, 12);
      }
    }
    expect(bare).toBeGreaterThan(130);
    // The default keeps the full form (the previous estimator's coefficients), sized by its own leave-one-out error.
    const full = fitTinyAccuracyEstimator(curve, dataset(1));
    expect(full.coef.every((c) => c !== 0)).toBe(true);
    expect(full.residualSd).toBeGreaterThan(fitTinyAccuracyEstimator(curve, dataset(1), { choose: true }).residualSd * 0.999);
    // With a real signal in the tiny accuracy, the fitted form wins, and its leave-one-out error exceeds the in-sample one.
    const signal = dataset(5).map((r) => ({ ...r, fullAccuracy: r.fullAccuracy + 0.2 * (r.tinyAccuracy - 0.5) }));
    const fitted = fitTinyAccuracyEstimator(curve, signal, { choose: true });
    expect(fitted.coef[2]).toBeGreaterThan(0.1);
    let ss = 0;
    for (const r of signal) ss += (r.fullAccuracy - predictTinyAccuracy(curve, fitted, r).accuracy) ** 2;
    expect(fitted.residualSd).toBeGreaterThan(Math.sqrt(ss / signal.length));
  });
});
