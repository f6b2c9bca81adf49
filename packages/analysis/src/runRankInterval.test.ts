import { describe, expect, it } from 'vitest';
import { predictAccuracy, accuracyCurve } from './accuracyCurve.js';
import { predictPackageCurve } from './packageAccuracy.js';
import { RANK_LEVEL } from './rankIntervals.js';
import { runRankInterval } from './runRankInterval.js';

describe('runRankInterval', () => {
  const fleet = Array.from({ length: 12 }, (_, j) => ({ id: `m${j}`, theta: 1.5 - 0.25 * j, se: 0.1 }));
  it('does not depend on the order the calibrated LLMs come in, and holds the rank', () => {
    const a = runRankInterval(fleet, { theta: 0.1, se: 0.3 });
    const b = runRankInterval(fleet.slice().reverse(), { theta: 0.1, se: 0.3 });
    expect(a).toEqual(b);
    expect(a.rank).toBe(1 + fleet.filter((l) => l.theta > 0.1).length);
    expect(a.lo).toBeLessThanOrEqual(a.rank);
    expect(a.hi).toBeGreaterThanOrEqual(a.rank);
    expect(a.hi).toBeGreaterThan(a.lo);
    expect(a.level).toBe(RANK_LEVEL);
    expect(a.of).toBe(13);
  });
  it('widens with the SE, and spans every rank when the SE is not finite', () => {
    const narrow = runRankInterval(fleet, { theta: 0.1, se: 0.05 });
    const wide = runRankInterval(fleet, { theta: 0.1, se: 1 });
    expect(wide.hi - wide.lo).toBeGreaterThan(narrow.hi - narrow.lo);
    expect(runRankInterval(fleet, { theta: 0.1, se: NaN })).toMatchObject({ lo: 1, hi: 13 });
  });
});

describe('predictPackageCurve', () => {
  it('is the curve with the SE of theta (predictAccuracy) for a package with no run model', () => {
    const c = accuracyCurve([-1, -0.5, 0, 0.5, 1], [0.3, 0.4, 0.55, 0.7, 0.8]);
    const got = predictPackageCurve(
      c.grid,
      { accuracy: c.accuracy, residualSd: c.residualSd, llms: c.llms },
      {
        theta: 0.2,
        se: 0.3,
        logSharpness: 0,
        tinyAccuracy: 0.5,
      },
    );
    expect(got).toEqual(predictAccuracy(c, 0.2, 0.3));
  });
});
