// The item sweep (block-coordinate Newton on the items given the LLMs): the per-item losses it
// reads are each item's exact share of the loss, and a sweep lowers the loss with the LLMs held.
import { describe, expect, it } from 'vitest';
import { blockPreconditioner } from '../curvature.js';
import { fit, initialParameters } from '../fit.js';
import { ALL_PARTS, llmNrmLayout } from '../layout.js';
import { llmNrmObjective } from '../families/llmNrm/objective.js';
import { simulateFleet } from '../simulate.js';
import { itemSweep } from './itemSweep.js';

describe('item sweep', () => {
  const { bank } = simulateFleet({ models: 12, items: 30, seed: 3, missing: 0.1 });
  const layout = llmNrmLayout(bank, ALL_PARTS);
  const obj = llmNrmObjective(bank, layout);

  it('per-item losses: moving one item changes the loss by exactly the change of its own item loss', () => {
    const x = initialParameters(bank, layout);
    const I = layout.nItems;
    const before = new Float64Array(I);
    const after = new Float64Array(I);
    const g = new Float64Array(layout.size);
    const f0 = obj.lossAndGrad(x, g, { itemLoss: before });
    const i = 7;
    const y = Float64Array.from(x);
    for (let t = bank.itemOffsets[i]!; t < bank.itemOffsets[i + 1]!; t++) {
      y[layout.a + t]! += 0.3;
      y[layout.c + t]! -= 0.2 * t;
    }
    const f1 = obj.lossAndGrad(y, g, { itemLoss: after });
    expect(Math.abs(f1 - f0)).toBeGreaterThan(1e-3);
    expect(f1 - f0).toBeCloseTo(after[i]! - before[i]!, 9);
    for (let k = 0; k < I; k++) if (k !== i) expect(after[k]).toBe(before[k]);
  });

  it('a sweep moves only items, lowers the loss by the decrease it reports, and leaves g the gradient there', () => {
    const x = initialParameters(bank, layout);
    const pc = blockPreconditioner(bank, obj);
    pc.refresh(x);
    const sweep = itemSweep(obj, layout, bank.itemOffsets, pc.apply, { rounds: 3 });
    const g = new Float64Array(layout.size);
    const f0 = sweep.wrap.lossAndGrad(x, g);
    const x0 = Float64Array.from(x);
    const r = sweep.step(x, g, f0);
    expect(r.loss).toBeLessThan(f0 - 1);
    expect(r.loss - f0).toBeCloseTo(r.decrease, 6);
    // Passes: the loss at x was known (no extra pass), then at least one per round.
    expect(r.passes).toBeGreaterThanOrEqual(3);
    for (let t = 0; t < layout.a; t++) expect(x[t]).toBe(x0[t]);
    expect([x[layout.w0], x[layout.kbar]]).toEqual([x0[layout.w0], x0[layout.kbar]]);
    const gRef = new Float64Array(layout.size);
    expect(obj.lossAndGrad(x, gRef)).toBe(r.loss);
    expect(Array.from(g)).toEqual(Array.from(gRef));
  });
});

describe('fit with item sweeps and the item restart (opt-in)', () => {
  it('sweeps run after refreshes, the restart reports what it did, and the fit converges to the default loss', () => {
    const { bank } = simulateFleet({ models: 20, items: 40, seed: 4 });
    const def = fit(bank, { standardErrors: false });
    const sw = fit(bank, { standardErrors: false, itemSweeps: true, sweepRounds: 1, itemRestart: true });
    expect(def.blockPasses).toBe(0);
    expect(def.itemRestart).toBeUndefined();
    expect(sw.blockPasses).toBeGreaterThan(0);
    expect(sw.itemRestart).toBeDefined();
    expect(sw.itemRestart!.passes).toBeGreaterThan(3);
    expect(sw.itemRestart!.lossAfter).toBeLessThanOrEqual(sw.itemRestart!.lossBefore);
    expect(sw.converged).toBe(true);
    // Same fleet, another path: within a nat of the default's optimum (both stop within 0.01 SE).
    expect(Math.abs(sw.loss - def.loss)).toBeLessThan(1);
  });
});
