// The binary families' Newton model (newton.ts) against the objective it models, and damped Newton
// (fit/newton.ts) against L-BFGS run far past its usual stop.
import { describe, expect, it } from 'vitest';
import { correctness } from '../../bank.js';
import { toBundle } from '../../bundle.js';
import { fit } from '../../fit.js';
import { standardizeTheta } from '../../fit/identification.js';
import type { BinaryLayout } from '../../layout.js';
import { simulateFleet } from '../../simulate.js';
import { getFamily } from '../registry.js';
import { binaryNewton } from './newton.js';

const { bank } = simulateFleet({ models: 40, items: 80, seed: 3 });

describe('binary Newton model', () => {
  for (const model of ['1pl', '2pl', '3pl', '4pl'] as const) {
    it(`${model}: the quadratic model predicts the loss change of a near-undamped step`, () => {
      const family = getFamily(model);
      const standardize = family.fleetIdentification === 'standardize';
      const L = family.layout(bank) as BinaryLayout;
      const inner = family.objective(bank, L, {});
      const obj = standardize ? standardizeTheta(inner) : inner;
      // Near an optimum (the model's third-order error is then small against its prediction).
      const x = fit(bank, { model, newton: false, standardErrors: false }).x;
      for (let t = 0; t < x.length; t++) if (obj.free[t]) x[t]! += 2e-3 * Math.sin(1.3 * t);
      const g = new Float64Array(L.size);
      const f0 = obj.lossAndGrad(x, g);
      const m = binaryNewton(bank, L, correctness(bank), {}, { standardize, thetaPrecision: standardize ? 0 : 1 });
      const xNew = new Float64Array(L.size);
      const s = m.at(x).step(1e-9, xNew);
      expect(s).not.toBeNull();
      const f1 = obj.lossAndGrad(xNew, g);
      expect(s!.predicted).toBeGreaterThan(0);
      expect(Math.abs((f0 - f1) / s!.predicted - 1)).toBeLessThan(0.02);
      // The step lands at the optimum to second order: the next decrement is far smaller.
      const s2 = m.at(xNew).step(1e-9, new Float64Array(L.size));
      expect(s2!.decrement).toBeLessThan(1e-3 * s!.decrement);
    });
  }

  it('3pl: fit with newton runs damped Newton, to a stationary point L-BFGS started there does not leave', () => {
    const nt = fit(bank, { model: '3pl', standardErrors: false, newton: true });
    expect(nt.converged).toBe(true);
    expect(nt.reason).toBe('distance');
    expect(nt.iterations).toBeLessThan(60);
    // The fit and its bundle say which optimizer ran.
    expect(nt.optimizer).toBe('newton');
    expect(toBundle(nt, { version: 'test' }).fit.optimizer).toBe('newton');
    // The default is L-BFGS (several times the iterations).
    const lb = fit(bank, { model: '3pl', standardErrors: false });
    expect(lb.optimizer).toBe('lbfgs');
    expect(lb.iterations).toBeGreaterThan(nt.iterations);
    // L-BFGS from the Newton optimum, run to a tight stop: the loss and the thetas do not move.
    const polish = fit(bank, { model: '3pl', standardErrors: false, newton: false, init: nt.x, distanceTolerance: 1e-5, maxIterations: 3000 });
    expect(nt.loss - polish.loss).toBeLessThan(1e-6 * Math.abs(nt.loss));
    for (let j = 0; j < bank.models.length; j++) expect(Math.abs(polish.x[j]! - nt.x[j]!)).toBeLessThan(1e-3);
  });
});
