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
    const bias = accuracyAt({ grid: m.curve.grid, accuracy: m.local!.bias }, run.theta);
    const blend = (1 - m.curveWeight) * own + m.curveWeight * accuracyAt(m.curve, run.theta) + bias;
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
    const { local: _local, ...m } = fitRunAccuracy(fleet(40, 6), chance);
    // A run whose soft scores put it at the top but whose answers are mostly wrong.
    const run = { theta: 2.5, logSharpness: 0.6, tinyAccuracy: 0.35 };
    const p = predictRunAccuracy(m, m.curve, run);
    // 14 or 15 of 41 right: the Wilson 99% interval of the accuracy ends at 0.550, mapped onto the bank.
    expect(p.high).toBeLessThanOrEqual(ownAccuracy(m, 0.551));
    expect(p.accuracy).toBeLessThan(accuracyAt(m.curve, 2.5) - 0.05);
    // With the local correction the range moves by the correction at the run's theta, no further.
    const withLocal = fitRunAccuracy(fleet(40, 6), chance);
    const bias = accuracyAt({ grid: withLocal.curve.grid, accuracy: withLocal.local!.bias }, run.theta);
    const q = predictRunAccuracy(withLocal, withLocal.curve, run);
    expect(q.accuracy).toBeLessThanOrEqual(ownAccuracy(m, 0.551) + bias + 1e-12);
    expect(q.accuracy).toBeCloseTo(p.accuracy + bias, 12);
  });

  it('corrects by the calibrated LLMs’ local errors where they are many, shrunk where they are few', () => {
    // A tiny test that saturates: above theta 0.5 the tiny-run theta and accuracy grow a third as fast,
    // so one blend reads the strong LLMs low (the 189-LLM fleet's failure).
    const shape = (n: number, seed: number) =>
      fleet(n, seed).map((r) =>
        r.fullTheta > 0.5
          ? {
              ...r,
              theta: r.theta - (2 / 3) * (r.fullTheta - 0.5),
              tinyAccuracy: r.tinyAccuracy - (2 / 3) * (r.tinyAccuracy - 0.55) * (r.tinyAccuracy > 0.55 ? 1 : 0),
            }
          : r,
      );
    const many = fitRunAccuracy(shape(150, 11), chance);
    const at = (m: typeof many, t: number) => accuracyAt({ grid: m.curve.grid, accuracy: m.local!.bias }, t);
    expect(at(many, 2)).toBeGreaterThan(0.02);
    expect(Math.abs(at(many, -1))).toBeLessThan(0.02);
    // The interval's SD is never below the global one.
    for (const v of many.local!.sd) expect(v).toBeGreaterThanOrEqual(many.residualSd - 1e-15);
    // Held-out LLMs of the same fleet: the correction lowers the error over the strong ones.
    const fresh = shape(400, 12).filter((r) => r.fullTheta > 1);
    const { local: _drop, ...bare } = many;
    const mae = (m: typeof bare) => fresh.reduce((s, r) => s + Math.abs(predictRunAccuracy(m, many.curve, r).accuracy - r.fullAccuracy), 0) / fresh.length;
    expect(mae(many)).toBeLessThan(mae(bare) - 0.01);
    // Three LLMs: the kernel holds at most 3 of them, so at most 3 / 13 of their mean error counts.
    const few = fitRunAccuracy(shape(3, 13), chance);
    expect(Math.max(...few.local!.bias.map(Math.abs))).toBeLessThan(0.25 * 0.3);
  });

  it('leaves rows of only hard answers out of the local correction', () => {
    const rows = fleet(40, 14);
    expect(
      fitRunAccuracy(
        rows.map((r) => ({ ...r, hard: true })),
        chance,
      ).local,
    ).toBeUndefined();
    const mixed = fitRunAccuracy(
      rows.map((r, i) => ({ ...r, hard: i >= 2 })),
      chance,
    );
    expect(mixed.local).toBeDefined();
    // Two soft rows: at most 2 / 12 of their errors anywhere.
    expect(Math.max(...mixed.local!.bias.map(Math.abs))).toBeLessThan(mixed.residualSd * 4);
  });
});
