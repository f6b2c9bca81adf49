import { describe, expect, it } from 'vitest';
import { simulateFleet, type FitOptions } from '@llm-nrm/core';
import { calibrationCurve } from './calibrationCurve.js';
import { compression, compressionFolds, compressionOf } from './compression.js';
import { llmCrossValidate } from './llmCrossValidate.js';

const fitOptions: FitOptions = { maxIterations: 80, tolerance: 1e-7 };

describe('llmCrossValidate (Table 3)', () => {
  it('recovers held-out abilities from correctness and from distractor choices alone', () => {
    const { bank } = simulateFleet({ models: 24, items: 60, seed: 21 });
    const res = llmCrossValidate(bank, { folds: 4, seed: 2, fitOptions });
    expect(res.full.every((v) => Number.isFinite(v))).toBe(true);
    const byName = Object.fromEntries(res.rows.map((r) => [r.estimator, r]));
    expect(byName['options']!.pearson).toBeGreaterThan(0.9);
    expect(byName['correctness']!.pearson).toBeGreaterThan(0.8);
    expect(byName['incorrect-only']!.pearson).toBeGreaterThan(0.5);
    expect(byName['incorrect-only']!.spearman).toBeGreaterThan(0.5);
    expect(res.wrongCells.reduce((s, v) => s + v, 0)).toBeGreaterThan(0);
  });

  it('refuses binary models (no distractor likelihood)', () => {
    const { bank } = simulateFleet({ models: 6, items: 5, seed: 1 });
    expect(() => llmCrossValidate(bank, { model: '2pl' })).toThrow(/option-level model/);
  });
});

describe('compression (Fig. 3a)', () => {
  it('selects nested budgets and scores them as tiny runs by default; fixed-item scoring of all items reproduces the reference exactly', () => {
    const { bank } = simulateFleet({ models: 20, items: 40, seed: 3 });
    const res = compression(bank, { budgets: [5, 15, 40], folds: 4, seed: 1, fitOptions, randomDraws: 3 });
    expect(res.scoring).toBe('tiny-run');
    const [p5, p15, pAll] = res.points;
    expect(p5!.selected[0]!.length).toBe(5);
    expect(p15!.selected[0]!.slice(0, 5)).toEqual(p5!.selected[0]); // nested: top-5 within top-15
    // The reference is the full-bank fixed-item fit: a tiny run of every item ranks close to it.
    expect(pAll!.kendall).toBeGreaterThan(0.8);
    expect(p15!.kendall).toBeGreaterThan(0.4);
    expect(Number.isFinite(p5!.kendallRandom)).toBe(true);
    // A random draw of 40 of the 40 items is every item: fixed-item scoring of it is the reference
    // exactly (the selection of 40 leaves flagged items out, as publish does, so it need not be).
    const fixed = compression(bank, { budgets: [40], folds: 2, seed: 1, scoring: 'fixed-items', randomDraws: 1, fitOptions });
    expect(fixed.randomDraws).toBe(1);
    expect(fixed.points[0]!.kendallRandom).toBe(1);
  }, 180_000);

  it('selects as publish does: an item keyed wrong (flagged possible-wrong-key) is never among the selected', () => {
    const { bank, truth, layout } = simulateFleet({ models: 20, items: 40, seed: 3 });
    // Re-key the item the selection takes first to its least likely option at high ability.
    const first = compression(bank, { budgets: [10], folds: 2, seed: 1, random: false, fitOptions }).points[0]!.selected[0]![0]!;
    const i = bank.items.findIndex((it) => it.id === first);
    const io = bank.itemOffsets[i]!;
    const K = bank.itemOffsets[i + 1]! - io;
    const L = layout as { a: number; c: number };
    let worst = 0;
    for (let k = 1; k < K; k++) if (2 * truth[L.a + io + k]! + truth[L.c + io + k]! < 2 * truth[L.a + io + worst]! + truth[L.c + io + worst]!) worst = k;
    const key = Int32Array.from(bank.key);
    key[i] = worst;
    const res = compression({ ...bank, key }, { budgets: [10], folds: 2, seed: 1, random: false, fitOptions });
    for (const ids of res.points[0]!.selected) {
      expect(ids).toHaveLength(10);
      expect(ids).not.toContain(first);
    }
  }, 180_000);

  it('gives the same study from its folds run apart and joined in any order (the CLI runs them on worker threads)', () => {
    const { bank } = simulateFleet({ models: 9, items: 16, seed: 5 });
    const opts = { budgets: [4, 8], folds: 3, seed: 4, randomDraws: 2, fitOptions: { maxIterations: 60 } };
    const whole = compression(bank, opts);
    const parts = [2, 0, 1].map((f) => compressionFolds(bank, { ...opts, only: new Set([f]) }));
    expect(parts.map((p) => p.folds)).toEqual([[2], [0], [1]]);
    expect(compressionOf(bank, opts, parts)).toEqual(whole);
    // Two folds in one part, the third in another.
    expect(compressionOf(bank, opts, [compressionFolds(bank, { ...opts, only: new Set([0, 2]) }), parts[2]!])).toEqual(whole);
    // A fold missing leaves its LLMs' thetas NaN (not another fold's).
    const partial = compressionOf(bank, opts, [parts[1]!]);
    expect(partial.full.filter((v) => Number.isFinite(v)).length).toBe(3);
    expect(partial.points[0]!.selected).toEqual([whole.points[0]!.selected[0]]);
  }, 180_000);

  it('keeps theta-only scoring as a study option', () => {
    const { bank } = simulateFleet({ models: 16, items: 30, seed: 9 });
    const res = compression(bank, { budgets: [8, 30], folds: 4, seed: 2, scoring: 'theta-only', random: false, fitOptions });
    expect(res.scoring).toBe('theta-only');
    expect(res.points[1]!.kendall).toBeGreaterThan(0.8);
    expect(res.points[0]!.kendall).toBeGreaterThan(0.3);
    expect(res.points[0]!.kendallRandom).toBeNaN();
  });
});

describe('calibrationCurve (Fig. 3b)', () => {
  it('gives finite held-out correctness log-loss per model and size, seeded', () => {
    const { bank } = simulateFleet({ models: 16, items: 30, seed: 6 });
    const opts = { sizes: [3, 12], models: ['llm-nrm', '2pl'] as const, repeats: 2, seed: 4, fitOptions };
    const a = calibrationCurve(bank, opts);
    expect(a.points.map((p) => `${p.name}@${p.n}`)).toEqual(['llm-nrm@3', 'llm-nrm@12', '2pl@3', '2pl@12']);
    for (const p of a.points) {
      expect(p.perRepeat.length).toBe(2);
      expect(p.logLoss.mean).toBeGreaterThan(0);
      expect(p.logLoss.mean).toBeLessThan(2);
    }
    const b = calibrationCurve(bank, opts);
    expect(b.points.map((p) => p.logLoss.mean)).toEqual(a.points.map((p) => p.logLoss.mean));
  });
});
