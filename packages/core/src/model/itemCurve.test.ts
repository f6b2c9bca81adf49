import { describe, expect, it } from 'vitest';
import { isLlmNrmError } from '../errors.js';
import { itemCurve, itemLogits, type CurveItem } from './itemCurve.js';

// Option-level item (sum-to-zero a and c) and a 4PL item whose logit is 0 at theta = 0.2.
const nrm: CurveItem = { key: 0, nOptions: 3, a: [1.2, -0.4, -0.8], c: [0.3, 0.1, -0.4] };
const fourPl: CurveItem = { key: 2, nOptions: 4, a: [], c: [], irt: { discrimination: 1.5, intercept: -0.3, guess: 0.2, upper: 0.95 } };

describe('itemCurve', () => {
  it("gives Bock's softmax and its theta slope (40-digit decimal reference at theta = -1)", () => {
    const slope = new Float64Array(3);
    const p = itemCurve(nrm, -1, undefined, slope);
    // exp(a_k theta + c_k) / sum, and p_k (a_k - abar), in Python's decimal module at 40 digits.
    const wantP = [0.11461979319812593, 0.4648061815767837, 0.42057402522509035];
    const wantSlope = [0.18165379704687293, -0.00704741876116556, -0.17460637828570738];
    for (let k = 0; k < 3; k++) {
      expect(p[k]).toBeCloseTo(wantP[k]!, 15);
      expect(slope[k]).toBeCloseTo(wantSlope[k]!, 15);
    }
  });

  it('gives P(key) of 4PL at the key and 1 - P evenly over the distractors (by hand: sigmoid(0) = 1/2)', () => {
    const slope = new Float64Array(4);
    const p = itemCurve(fourPl, 0.2, new Float64Array(4), slope);
    // P = 0.2 + 0.75 / 2; dP = 0.75 * 1.5 * 1/4.
    expect(p[2]).toBeCloseTo(0.575, 15);
    for (const k of [0, 1, 3]) expect(p[k]).toBeCloseTo(0.425 / 3, 15);
    expect(slope[2]).toBeCloseTo(0.28125, 15);
    for (const k of [0, 1, 3]) expect(slope[k]).toBeCloseTo(-0.28125 / 3, 15);
  });

  it('has slopes equal to central differences of the curve and probabilities summing to 1', () => {
    for (const item of [nrm, fourPl]) {
      for (const theta of [-3, -0.7, 0, 1.9]) {
        const slope = new Float64Array(item.nOptions);
        const p = itemCurve(item, theta, undefined, slope);
        const h = 1e-5;
        const up = itemCurve(item, theta + h);
        const down = itemCurve(item, theta - h);
        expect(p.reduce((s, v) => s + v, 0)).toBeCloseTo(1, 14);
        for (let k = 0; k < item.nOptions; k++) expect(slope[k]).toBeCloseTo((up[k]! - down[k]!) / (2 * h), 8);
      }
    }
  });

  it('stays finite where the logits are far apart', () => {
    const p = itemCurve({ key: 0, nOptions: 2, a: [400, -400], c: [0, 0] }, 3);
    expect(p[0]).toBe(1);
    expect(p[1]).toBe(0);
  });

  it('writes the logits and their slopes of option-level items only', () => {
    const v = new Float64Array(3);
    const dv = new Float64Array(3);
    expect(itemLogits(nrm, 2, v, dv)).toBe(true);
    expect(Array.from(v)).toEqual([1.2 * 2 + 0.3, -0.4 * 2 + 0.1, -0.8 * 2 - 0.4]);
    expect(Array.from(dv)).toEqual(nrm.a);
    expect(itemLogits(fourPl, 2, v, dv)).toBe(false);
  });

  it('throws INVALID_BUNDLE for an item with neither option parameters nor irt', () => {
    let err: unknown;
    try {
      itemCurve({ key: 0, nOptions: 2, a: [], c: [], irt: null }, 0);
    } catch (e) {
      err = e;
    }
    expect(isLlmNrmError(err) && err.code === 'INVALID_BUNDLE').toBe(true);
  });
});
