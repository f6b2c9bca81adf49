import { describe, expect, it } from 'vitest';
import { fit, simulateFleet, type FitOptions, type ResponseBank } from '@llm-nrm/core';
import { cellFolds, foldMask, llmFolds } from './cellFolds.js';
import { crossValidate } from './crossValidate.js';

const quick: FitOptions = { maxIterations: 60, tolerance: 1e-6 };

describe('cellFolds', () => {
  it('partitions the observed cells exactly, in near-equal folds', () => {
    const { bank } = simulateFleet({ models: 13, items: 37, seed: 2, missing: 0.2 });
    const k = 5;
    const folds = cellFolds(bank, k, 9);
    const sizes = new Array(k).fill(0);
    for (let t = 0; t < folds.length; t++) {
      if (bank.observed[t]) {
        expect(folds[t]).toBeLessThan(k);
        sizes[folds[t]!]++;
      } else expect(folds[t]).toBe(255);
    }
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    for (let f = 0; f < k; f++) {
      const tr = foldMask(folds, f, 'train');
      const te = foldMask(folds, f, 'test');
      for (let t = 0; t < folds.length; t++) {
        expect(tr[t]! + te[t]!).toBe(bank.observed[t]); // disjoint, and together the observed cells
      }
    }
    expect(Array.from(cellFolds(bank, k, 9))).toEqual(Array.from(folds)); // seeded
    const lf = llmFolds(13, 4, 1);
    expect(new Set(lf).size).toBe(4);
  });
});

describe('crossValidate', () => {
  it('never shows a test cell to the fit (spy), and scores every test cell once', () => {
    const { bank } = simulateFleet({ models: 12, items: 30, seed: 4 });
    const k = 3;
    const folds = cellFolds(bank, k, 5);
    let calls = 0;
    const seen: number[] = [];
    const spy = (b: ResponseBank, o: FitOptions) => {
      const f = calls % k; // models outer, folds inner
      for (let t = 0; t < folds.length; t++) {
        // A held-out cell reaching the objective would fail here; so would a dropped training cell.
        if (folds[t] === f && b.observed[t]) throw new Error(`test cell ${t} of fold ${f} leaked into training`);
        if (folds[t] !== f && folds[t] !== 255 && !b.observed[t]) throw new Error(`training cell ${t} missing`);
      }
      expect(b.q).toBe(bank.q); // the fold shares the data, only the mask differs
      seen.push(f);
      calls++;
      return fit(b, { ...o, ...quick });
    };
    const res = crossValidate(bank, { models: ['llm-nrm', '2pl'], folds: k, seed: 5, fit: spy });
    expect(seen).toEqual([0, 1, 2, 0, 1, 2]);
    for (const row of res.rows) {
      expect(row.folds.reduce((s, m) => s + m.cells, 0)).toBe(12 * 30);
      expect(row.option.accuracy.mean).toBeGreaterThan(0.3);
      expect(row.correctness.brier.mean).toBeLessThan(0.25);
    }
    expect(res.cells).toBe(12 * 30);
  });

  it("fits each fold to the fit's own SE-distance stop, not a relative-loss one; fitOptions override it", () => {
    const { bank } = simulateFleet({ models: 14, items: 40, seed: 6 });
    const runs: { tolerance: number | undefined; reason: string; distance: number }[] = [];
    const record = (b: ResponseBank, o: FitOptions) => {
      const r = fit(b, o);
      runs.push({ tolerance: o.tolerance, reason: r.reason, distance: r.distance });
      return r;
    };
    crossValidate(bank, { models: ['llm-nrm', 'nrm'], folds: 3, seed: 2, fit: record });
    expect(runs).toHaveLength(6);
    for (const r of runs) {
      expect(r.tolerance).toBeUndefined();
      // Stopped within core's 0.01 SE (or at a zero gradient), so the held-out figures are the optimum's.
      expect(r.reason).toMatch(/^(distance|gradient)\b/); // e.g. 'distance (after a gate restart)'
      expect(r.distance).toBeLessThan(0.01);
    }
    runs.length = 0;
    crossValidate(bank, { models: ['nrm'], folds: 2, seed: 2, fit: record, fitOptions: { tolerance: 1e-3, distanceTolerance: 0 } });
    expect(runs.map((r) => r.tolerance)).toEqual([1e-3, 1e-3]);
    expect(runs.every((r) => !r.reason.startsWith('distance'))).toBe(true);
  });

  it('LLM-NRM predicts held-out options better than a binary model on LLM-NRM data', () => {
    const { bank } = simulateFleet({ models: 20, items: 50, seed: 8 });
    const res = crossValidate(bank, { models: ['llm-nrm', '2pl'], folds: 3, fitOptions: quick });
    const [nrm, bin] = res.rows;
    expect(nrm!.option.logLoss.mean).toBeLessThan(bin!.option.logLoss.mean);
    expect(nrm!.option.accuracy.sd).toBeGreaterThanOrEqual(0);
  });
});
