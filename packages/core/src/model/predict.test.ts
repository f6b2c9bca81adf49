import { describe, expect, it } from 'vitest';
import { bankFromRecords } from '../data/bank.js';
import { bundleItems, bundleParameters, toBundle } from '../data/bundle.js';
import { getFamily } from './registry.js';
import { fit } from '../fit/fit.js';
import { predictor } from './predict.js';
import { bankRecords, simulateFleet } from '../simulate/simulate.js';
import { randomSource } from '../simulate/random.js';
import type { ModelName } from './types.js';

const fleet = simulateFleet({ models: 12, items: 30, seed: 5 });

/** A point with every LLM-NRM process active: random parameters around the fleet's fit. */
function activePoint(model: ModelName) {
  const family = getFamily(model);
  const layout = family.layout(fleet.bank);
  const x = family.start(fleet.bank, layout);
  const rnd = randomSource(9);
  for (let t = 0; t < x.length; t++) x[t]! += 0.6 * (rnd.uniform() - 0.5);
  return { layout, x };
}

describe('the forward model (predictor)', () => {
  it('llm-nrm: cell is the softmax of logits, and dv/dtheta matches a central difference of the logits', () => {
    const { layout, x } = activePoint('llm-nrm');
    const pred = predictor(fleet.bank, layout, x);
    const logits = pred.logits!;
    expect(logits).not.toBeNull();
    const K = fleet.bank.kMax;
    const v = new Float64Array(K);
    const dv = new Float64Array(K);
    const vp = new Float64Array(K);
    const vm = new Float64Array(K);
    const p = new Float64Array(K);
    const h = 1e-5;
    let worstSlope = 0;
    let worstP = 0;
    for (let j = 0; j < 4; j++) {
      for (let c = 0; c < fleet.bank.colItem.length; c += 3) {
        const Kc = fleet.bank.colOffsets[c + 1]! - fleet.bank.colOffsets[c]!;
        const th = x[layout.theta + j]! + 0.3;
        logits(j, c, v, dv, th);
        logits(j, c, vp, undefined, th + h);
        logits(j, c, vm, undefined, th - h);
        for (let k = 0; k < Kc; k++) worstSlope = Math.max(worstSlope, Math.abs((vp[k]! - vm[k]!) / (2 * h) - dv[k]!));
        // Default theta is the LLM's own; cell = softmax(logits).
        logits(j, c, v);
        pred.cell(j, c, p);
        const m = Math.max(...v.subarray(0, Kc));
        const z = v.subarray(0, Kc).reduce((s, t) => s + Math.exp(t - m), 0);
        for (let k = 0; k < Kc; k++) worstP = Math.max(worstP, Math.abs(p[k]! - Math.exp(v[k]! - m) / z));
      }
    }
    expect(worstSlope).toBeLessThan(1e-7);
    expect(worstP).toBeLessThan(1e-15);
  });

  it('binary families have no option logits', () => {
    const { layout, x } = activePoint('2pl');
    expect(predictor(fleet.bank, layout, x).logits).toBeNull();
  });

  it.each(['llm-nrm', 'nrm', '1pl', '3pl', '4pl'] as const)('%s: the family maps a fit to the bundle and back to the same parameters', (model) => {
    const res = fit(fleet.bank, { model, maxIterations: 40, standardErrors: false });
    const bundle = toBundle(res, { version: '0', createdAt: '2026-12-01T00:00:00Z' });
    const { bank } = bankFromRecords(bankRecords(fleet.bank), { items: bundleItems(bundle) });
    const back = bundleParameters(bundle, bank);
    // The same probabilities for every cell (parameters are equal up to the sum-to-zero shifts the model ignores).
    const a = predictor(res.bank, res.layout, res.x);
    const b = predictor(bank, back.layout, back.x);
    const pa = new Float64Array(bank.kMax);
    const pb = new Float64Array(bank.kMax);
    let worst = 0;
    for (let j = 0; j < bank.models.length; j++) {
      const ja = res.bank.models.indexOf(bank.models[j]!);
      for (let c = 0; c < bank.colItem.length; c++) {
        a.cell(ja, c, pa);
        b.cell(j, c, pb);
        for (let k = 0; k < bank.colOffsets[c + 1]! - bank.colOffsets[c]!; k++) worst = Math.max(worst, Math.abs(pa[k]! - pb[k]!));
      }
    }
    expect(worst).toBeLessThan(1e-9);
  });
});
