import { describe, expect, it } from 'vitest';
import { predictTinyAccuracy } from './tinyAccuracyEstimator.js';

describe('predictTinyAccuracy (packages written before the run-accuracy model)', () => {
  // A straight curve, so F(theta) = 0.5 + 0.1 theta on [-4, 4].
  const curve = { grid: [-4, 4], accuracy: [0.1, 0.9] };
  const est = { coef: [0.02, 0.8, 0.15, 0.05] as [number, number, number, number], residualSd: 0.03, llms: 20 };

  it('is b0 + b1 F(theta) + b2 a + b3 log s with a 90% interval of +/- 1.645 residual SDs', () => {
    const run = { theta: 1.5, tinyAccuracy: 0.6, logSharpness: -0.4 };
    const mid = 0.02 + 0.8 * (0.5 + 0.1 * 1.5) + 0.15 * 0.6 + 0.05 * -0.4;
    const p = predictTinyAccuracy(curve, est, run);
    expect(p.accuracy).toBeCloseTo(mid, 12);
    expect(p.high - p.accuracy).toBeCloseTo(1.6449 * 0.03, 12);
    expect(p.accuracy - p.low).toBeCloseTo(1.6449 * 0.03, 12);
  });

  it('clips the prediction and its interval to [0, 1]', () => {
    const hi = predictTinyAccuracy(curve, est, { theta: 4, tinyAccuracy: 1, logSharpness: 2.4 });
    expect(hi.accuracy).toBe(1);
    expect(hi.high).toBe(1);
    expect(hi.low).toBeLessThan(1);
    const lo = predictTinyAccuracy(curve, { ...est, coef: [-0.1, 0.8, 0.15, 0.05] }, { theta: -4, tinyAccuracy: 0, logSharpness: 0 });
    expect(lo.accuracy).toBe(0);
    expect(lo.low).toBe(0);
    expect(lo.high).toBeGreaterThan(0);
  });
});
