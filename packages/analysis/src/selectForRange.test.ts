import { describe, expect, it } from 'vitest';
import { simulateFleet } from '@llm-nrm/core';
import { accuracyAt, accuracyCurve, predictAccuracy } from './accuracyCurve.js';
import { BELOW_FLEET, selectForRange } from './selectForRange.js';
import { selectItems } from './selectItems.js';
import { unflaggedItems } from './unflaggedItems.js';

const fleet = simulateFleet({ models: 40, items: 300, seed: 3 });
const { bank, layout, truth } = fleet;
bank.items.forEach((it, i) => (it.benchmark = i < 200 ? 'big' : 'small'));
const thetas = Array.from({ length: 40 }, (_, j) => truth[layout.theta + j]!);
const sorted = thetas.slice().sort((a, b) => a - b);

describe('selectForRange', () => {
  it('measures the ends of the ability range better than the top-information items', () => {
    const n = 20;
    // Flagged items kept, as selectItems keeps them: the criterion alone is compared.
    const range = selectForRange(bank, layout, truth, n, { includeFlagged: true });
    const top = selectItems(bank, layout, truth, n, { abilities: thetas });
    const testInfo = (items: ArrayLike<number>) =>
      selectForRange(bank, layout, truth, 1, { abilities: sorted, includeFlagged: true }).abilities.map((_, t) => {
        let s = 0;
        for (const i of Array.from(items))
          s += selectForRange(bank, layout, truth, 1, {
            abilities: [sorted[t]!],
            includeFlagged: true,
            eligible: Uint8Array.from(bank.items, (_, k) => (k === i ? 1 : 0)),
          }).testInformation[0]![0]!;
        return s;
      });
    const r = testInfo(range.forms[0]!);
    const t = testInfo(top.items);
    // The weakest-measured ability (an end of the range) is measured better by the range selection.
    expect(Math.min(...r)).toBeGreaterThan(Math.min(...t));
    // And its expected log information, the criterion, is higher.
    const logInfo = (xs: ArrayLike<number>) => Array.from(xs).reduce((s, v) => s + Math.log(1 / 9 + v), 0);
    expect(logInfo(r)).toBeGreaterThan(logInfo(t));
  });

  it('by default also measures abilities below the weakest calibrated LLM (BELOW_FLEET)', () => {
    const n = 20;
    const byDefault = selectForRange(bank, layout, truth, n);
    const weakest = sorted[0]!;
    expect(Array.from(byDefault.abilities)).toEqual([...thetas, ...BELOW_FLEET.map((d) => weakest - d)]);
    const fleetOnly = selectForRange(bank, layout, truth, n, { abilities: thetas });
    const below = weakest - BELOW_FLEET[BELOW_FLEET.length - 1]!;
    const infoAt = (items: Int32Array) =>
      selectForRange(bank, layout, truth, n, {
        abilities: [below],
        includeFlagged: true,
        eligible: Uint8Array.from(bank.items, (_, k) => (items.includes(k) ? 1 : 0)),
      }).testInformation[0]![0]!;
    expect(infoAt(byDefault.forms[0]!)).toBeGreaterThan(infoAt(fleetOnly.forms[0]!));
    // `rows` restricts the fleet, and the anchors follow its weakest.
    const rows = [3, 5, 8];
    const r = selectForRange(bank, layout, truth, 5, { rows });
    const w = Math.min(...rows.map((j) => thetas[j]!));
    expect(Array.from(r.abilities)).toEqual([...rows.map((j) => thetas[j]!), ...BELOW_FLEET.map((d) => w - d)]);
  });

  it('makes parallel forms with no shared item, keeps benchmark shares and only eligible items', () => {
    const eligible = Uint8Array.from(bank.items, (_, i) => (i % 7 === 0 ? 0 : 1));
    const s = selectForRange(bank, layout, truth, 30, { forms: 2, perBenchmark: true, eligible, includeFlagged: true });
    expect(s.forms).toHaveLength(2);
    const [a, b] = s.forms.map((f) => new Set(f));
    expect(a!.size).toBe(30);
    expect([...a!].some((i) => b!.has(i))).toBe(false);
    for (const f of s.forms) {
      expect(Array.from(f).every((i) => eligible[i] === 1)).toBe(true);
      // 'big' holds 2/3 of the eligible items: 20 of 30.
      expect(Array.from(f).filter((i) => bank.items[i]!.benchmark === 'big').length).toBe(20);
    }
    expect(() => selectForRange(bank, layout, truth, 200, { forms: 2, includeFlagged: true })).toThrow(
      /need 400 items; 300 of the bank's 300 can be selected$/,
    );
  });

  it('leaves out the items unflaggedItems flags unless includeFlagged, and says so when they are short', () => {
    const { eligible, leftOut } = unflaggedItems(bank, layout, truth);
    expect(leftOut.length).toBeGreaterThan(0);
    const s = selectForRange(bank, layout, truth, 30);
    expect(s.leftOut).toEqual(leftOut);
    expect(Array.from(s.forms[0]!).every((i) => eligible[i] === 1)).toBe(true);
    const all = selectForRange(bank, layout, truth, 30, { includeFlagged: true });
    expect(all.leftOut).toEqual([]);
    // Without the rule the criterion takes flagged items (they look informative); with it, none.
    expect(Array.from(all.forms[0]!).some((i) => eligible[i] === 0)).toBe(true);
    const room = bank.items.length - leftOut.length;
    expect(() => selectForRange(bank, layout, truth, room + 1)).toThrow(
      new RegExp(`${room} of the bank's 300 can be selected \\(${leftOut.length} flagged items left out`),
    );
  });
});

describe('accuracyCurve', () => {
  it('is non-decreasing, interpolates and gives an interval that widens with the SE', () => {
    const th = [-2, -1, 0, 1, 2, 0.5];
    const acc = [0.2, 0.35, 0.5, 0.7, 0.85, 0.55];
    const c = accuracyCurve(th, acc, { bandwidth: 0.5 });
    for (let t = 1; t < c.accuracy.length; t++) expect(c.accuracy[t]!).toBeGreaterThanOrEqual(c.accuracy[t - 1]!);
    expect(accuracyAt(c, 0)).toBeGreaterThan(0.4);
    expect(accuracyAt(c, 0)).toBeLessThan(0.6);
    expect(accuracyAt(c, -10)).toBe(c.accuracy[0]);
    const narrow = predictAccuracy(c, 0, 0.05);
    const wide = predictAccuracy(c, 0, 1);
    expect(wide.high - wide.low).toBeGreaterThan(narrow.high - narrow.low);
    expect(narrow.low).toBeLessThan(narrow.accuracy);
    expect(() => accuracyCurve([0], [0.5])).toThrow(/at least 2 calibrated LLMs/);
  });
});
