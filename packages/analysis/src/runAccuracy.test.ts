import { describe, expect, it } from 'vitest';
import { randomSource } from '@llm-nrm/core';
import { accuracyAt } from './accuracyCurve.js';
import { fitRunAccuracy, ownAccuracy, predictRunAccuracy, type RunAccuracyRow } from './runAccuracy.js';

/** A fleet whose tiny items are harder than the bank: full accuracy tracks theta, tiny accuracy is lower and noisy. */
function fleet(n: number, seed: number): RunAccuracyRow[] {
  const rng = randomSource(seed);
  return Array.from({ length: n }, () => {
    const t = rng.normal();
    const full = 0.25 + 0.6 / (1 + Math.exp(-1.5 * t));
    const tiny = Math.min(1, Math.max(0, full - 0.08 + 0.05 * rng.normal()));
    return { fullTheta: t, theta: t + 0.2 * rng.normal(), logSharpness: 0.6 + 0.3 * rng.normal(), tinyAccuracy: tiny, fullAccuracy: full };
  });
}
const chance = { chanceTiny: 0.25, chanceFull: 0.25, items: 41 };

describe('ownAccuracy', () => {
  it('rises with the run accuracy, maps chance onto chance and respects [0, 1]', () => {
    const m = { ...chance, shift: 0.4 };
    let prev = -1;
    for (let a = 0; a <= 1.0001; a += 0.01) {
      const v = ownAccuracy(m, a);
      expect(v).toBeGreaterThanOrEqual(prev - 1e-12);
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThanOrEqual(1);
      prev = v;
    }
    expect(ownAccuracy(m, 0.25)).toBeCloseTo(0.25, 12);
    expect(ownAccuracy({ ...m, chanceFull: 0.2 }, 0.25)).toBeCloseTo(0.2, 12);
    expect(ownAccuracy({ ...m, shift: 0 }, 0.6)).toBeCloseTo(0.6, 12);
  });
});

describe('fitRunAccuracy / predictRunAccuracy', () => {
  it('learns the items are harder than the bank, never weights the run negatively, and predicts monotonely', () => {
    const m = fitRunAccuracy(fleet(40, 1), chance);
    expect(m.shift).toBeGreaterThan(0.1);
    expect(m.curveWeight).toBeGreaterThanOrEqual(0);
    expect(m.curveWeight).toBeLessThanOrEqual(1);
    let prev = -1;
    for (let a = 0.3; a <= 0.8; a += 0.02) {
      const p = predictRunAccuracy(m, m.curve, { theta: 0, logSharpness: 0.6, tinyAccuracy: a });
      expect(p.accuracy).toBeGreaterThanOrEqual(prev - 1e-12);
      expect(p.low).toBeLessThanOrEqual(p.accuracy);
      expect(p.high).toBeGreaterThanOrEqual(p.accuracy);
      prev = p.accuracy;
    }
  });

  it('covers about 90% of new LLMs from the same fleet', () => {
    const m = fitRunAccuracy(fleet(40, 2), chance);
    const fresh = fleet(400, 3);
    const hits = fresh.filter((r) => {
      const p = predictRunAccuracy(m, m.curve, r);
      return r.fullAccuracy >= p.low && r.fullAccuracy <= p.high;
    }).length;
    expect(hits / fresh.length).toBeGreaterThan(0.8);
  });

  it('predicts a chance-level run at chance, whatever its theta', () => {
    const m = fitRunAccuracy(fleet(40, 4), chance);
    // lm-eval's dummy model: near-uniform probabilities (a tiny sharpness) and a mid-fleet theta.
    const p = predictRunAccuracy(m, m.curve, { theta: 0.3, logSharpness: -3, tinyAccuracy: 0.26 });
    expect(Math.abs(p.accuracy - 0.25)).toBeLessThan(0.05);
    expect(p.low).toBeLessThanOrEqual(0.25);
  });

  it('uses the curve for a new LLM a little less sharp than the calibrated ones (their sharpness is in-sample)', () => {
    const rows = fleet(40, 7);
    const m = fitRunAccuracy(rows, chance);
    const lowest = Math.min(...rows.map((r) => r.logSharpness));
    expect(m.logSharpnessRange[0]).toBeCloseTo(lowest - 1, 12);
    expect(m.curveWeight).toBeGreaterThan(0.05);
    const run = { theta: 0.5, tinyAccuracy: 0.55 };
    const inside = predictRunAccuracy(m, m.curve, { ...run, logSharpness: lowest - 0.8 });
    const own = ownAccuracy(m, run.tinyAccuracy);
    const blend = (1 - m.curveWeight) * own + m.curveWeight * accuracyAt(m.curve, run.theta);
    expect(inside.accuracy).toBeCloseTo(blend, 12);
    // Far below (a random-answer run's sharpness): the run's own accuracy alone.
    expect(predictRunAccuracy(m, m.curve, { ...run, logSharpness: lowest - 1.5 }).accuracy).toBeCloseTo(own, 12);
  });

  it('shrinks toward the run’s own accuracy on a small fleet', () => {
    const rows = fleet(3, 5);
    const m = fitRunAccuracy(rows, chance);
    const big = fitRunAccuracy(fleet(60, 5), chance);
    expect(m.curveWeight).toBeLessThan(0.5);
    expect(Math.abs(m.shift)).toBeLessThan(Math.abs(big.shift) + 1e-9);
    expect(() => fitRunAccuracy(rows.slice(0, 1), chance)).toThrow(/at least 2/);
  });

  it('stays inside what the run’s answers allow', () => {
    const m = fitRunAccuracy(fleet(40, 6), chance);
    // A run whose soft scores put it at the top but whose answers are mostly wrong.
    const p = predictRunAccuracy(m, m.curve, { theta: 2.5, logSharpness: 0.6, tinyAccuracy: 0.35 });
    // 14 or 15 of 41 right: the Wilson 99% interval of the accuracy ends at 0.550, mapped onto the bank.
    expect(p.high).toBeLessThanOrEqual(ownAccuracy(m, 0.551));
    expect(p.accuracy).toBeLessThan(accuracyAt(m.curve, 2.5) - 0.05);
  });
});
