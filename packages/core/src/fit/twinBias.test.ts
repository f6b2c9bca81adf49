import { describe, expect, it } from 'vitest';
import { fit } from './fit.js';
import { freeMask } from '../model/registry.js';
import { predictor } from '../model/predict.js';
import { simulateFleet } from '../simulate/simulate.js';
import { thetaStandardErrors } from './standardErrors.js';
import { TWIN_BIAS_SCALE, twinBank, twinBiasSe } from './twinBias.js';

describe("the fit's noise-free twin", () => {
  const f = simulateFleet({ models: 10, items: 12, seed: 8, rotations: 2, missing: 0.2 });

  it('replaces every observed cell by the model’s own p and leaves the rest of the bank as it was', () => {
    const t = twinBank(f.bank, f.layout, f.truth);
    const pred = predictor(f.bank, f.layout, f.truth);
    const b = f.bank;
    const nC = b.colItem.length;
    const width = b.colOffsets[nC]!;
    const p = new Float64Array(b.kMax);
    let observed = 0;
    for (let j = 0; j < 10; j++) {
      for (let c = 0; c < nC; c++) {
        const o = j * width + b.colOffsets[c]!;
        const K = b.colOffsets[c + 1]! - b.colOffsets[c]!;
        if (!b.observed[j * nC + c]) {
          for (let k = 0; k < K; k++) expect(t.q[o + k]).toBe(0);
          continue;
        }
        observed++;
        pred.cell(j, c, p);
        for (let k = 0; k < K; k++) expect(t.q[o + k]).toBe(Math.fround(p[k]!));
      }
    }
    expect(observed).toBeGreaterThan(0);
    expect(t.observed).toBe(b.observed);
    expect(t.colPosition).toBe(b.colPosition);
    expect(t.q).not.toBe(b.q);
  });

  it('takes the larger of the prior term and the twin bias squared, and keeps infinite SEs', () => {
    const se = new Float64Array([0.5, 0.5, Infinity]);
    const pv = new Float64Array([0.09, 0.09, 1]);
    const out = twinBiasSe(se, pv, [0, 0, 0], [0.2, 0.4, 3]);
    expect(out[0]).toBe(0.5); // 0.2^2 = 0.04 < 0.09: unchanged
    expect(out[1]).toBeCloseTo(Math.sqrt(0.25 - 0.09 + 0.16), 15);
    expect(out[2]).toBe(Infinity);
  });

  it('scales the twin bias squared where asked (TWIN_BIAS_SCALE)', () => {
    const se = new Float64Array([0.5, 0.5]);
    const pv = new Float64Array([0.09, 0.09]);
    const out = twinBiasSe(se, pv, [0, 0], [0.2, 0.25], TWIN_BIAS_SCALE);
    expect(TWIN_BIAS_SCALE).toBe(2);
    expect(out[0]).toBe(0.5); // 2 x 0.04 = 0.08 < 0.09: unchanged
    expect(out[1]).toBeCloseTo(Math.sqrt(0.25 - 0.09 + 2 * 0.0625), 15);
  });

  it("seMode 'twin' (the default): the 'measured' spread's SEs with max(prior, 2 b^2), the thetas unchanged; not under scoring or nrm-hard", () => {
    const g = simulateFleet({ models: 30, items: 40, seed: 5 });
    const on = fit(g.bank);
    const off = fit(g.bank, { seMode: 'quasi' });
    expect(Array.from(fit(g.bank, { seMode: 'twin' }).se)).toEqual(Array.from(on.se));
    expect(off.twin).toBeUndefined();
    expect(off.seMode).toBe('quasi');
    expect(on.seMode).toBe('twin');
    expect(on.twin).toBeDefined();
    expect(on.twin!.bias.length).toBe(30);
    expect(on.twin!.passes).toBeGreaterThan(0);
    expect(Array.from(on.x)).toEqual(Array.from(off.x));
    // The default's SEs are 'quasi' at the estimate; the twin mode's are the 'measured' spread's with the twin's bias term.
    const free = freeMask(on.layout);
    const quasi = thetaStandardErrors(on.family, on.bank, on.layout, on.x, free, on.priors, 0, { profileItems: true, errorModel: 'quasi' });
    expect(Array.from(off.se)).toEqual(Array.from(quasi.se));
    const parts = thetaStandardErrors(on.family, on.bank, on.layout, on.x, free, on.priors, 0, { profileItems: true, errorModel: 'quasi', spread: 'measured' });
    const twinTheta = Array.from({ length: 30 }, (_, j) => on.x[j]! + on.twin!.bias[j]!);
    const want = twinBiasSe(parts.se, parts.priorVariance, on.x.subarray(0, 30), twinTheta, TWIN_BIAS_SCALE);
    let raised = 0;
    for (let j = 0; j < 30; j++) {
      expect(on.se[j]).toBeCloseTo(want[j]!, 12);
      if (want[j]! > parts.se[j]! * (1 + 1e-9)) raised++;
    }
    expect(raised).toBeGreaterThan(0);
    expect(fit(g.bank, { model: 'nrm-hard', seMode: 'twin' }).twin).toBeUndefined();
    const scored = fit(g.bank, { init: on.x, fixItems: true, seMode: 'twin' });
    expect(scored.twin).toBeUndefined();
    expect(scored.seMode).toBe('fisher');
  });

  it("the twin from the fit's end (objective, preconditioner, memory) lands within 0.2 SE of the twin bank's own fit to 0.001 SE; Adam fits refit the twin bank whole", () => {
    for (const seed of [5, 6]) {
      const g = simulateFleet({ models: 40, items: 60, seed });
      const r = fit(g.bank, { seMode: 'twin' });
      const tight = fit(twinBank(r.bank, r.layout, r.x), { init: r.x, standardErrors: false, distanceTolerance: 0.001 });
      for (let j = 0; j < 40; j++) expect(Math.abs(tight.x[j]! - r.x[j]! - r.twin!.bias[j]!) / r.se[j]!).toBeLessThan(0.2);
    }
    const g = simulateFleet({ models: 12, items: 20, seed: 3 });
    const adam = fit(g.bank, { optimizer: 'adam', steps: 100, seMode: 'twin' });
    expect(adam.seMode).toBe('twin');
    expect(adam.twin!.passes).toBe(adam.passes); // a whole Adam run of the twin bank, as many steps
  });
});
