import { describe, expect, it } from 'vitest';
import { fit } from './fit.js';
import { modelObjective } from './modelObjective.js';
import { softplus } from '../model/layout.js';
import { simulateFleet } from '../simulate/simulate.js';
import { centreSharpness, centredSharpness, freeSharpnessOffset, rawSharpness } from './identification.js';

describe('the sharpness constraint (Priors.sharpnessCentre fleet)', () => {
  const f = simulateFleet({ models: 12, items: 15, seed: 4 });
  const J = 12;
  const { objective, family } = modelObjective(f.bank, 'llm-nrm');
  const off = freeSharpnessOffset(family, objective)!;

  it('finds the sharpness slots only where they are free', () => {
    expect(off).toBe(objective.layout.kind === 'llm-nrm' ? objective.layout.sbar : -1);
    const nrm = modelObjective(f.bank, 'nrm');
    expect(freeSharpnessOffset(nrm.family, nrm.objective)).toBeNull();
    const pl2 = modelObjective(f.bank, '2pl');
    expect(freeSharpnessOffset(pl2.family, pl2.objective)).toBeNull();
  });

  it('maps raw values to sbar with mean log s 0, inverts on centred points, and ignores a common shift', () => {
    const raw = rawSharpness(f.truth, off, J);
    const back = centredSharpness(raw, off, J);
    let m = 0;
    for (let j = 0; j < J; j++) m += Math.log(softplus(back[off + j]!)) / J;
    expect(Math.abs(m)).toBeLessThan(1e-12);
    // On a point whose mean log s is already 0, raw then centred is the identity.
    const again = centredSharpness(rawSharpness(back, off, J), off, J);
    for (let j = 0; j < J; j++) expect(again[off + j]).toBeCloseTo(back[off + j]!, 12);
    const shifted = Float64Array.from(raw);
    for (let j = 0; j < J; j++) shifted[off + j]! += 0.7;
    const c2 = centredSharpness(shifted, off, J);
    for (let j = 0; j < J; j++) expect(c2[off + j]).toBeCloseTo(back[off + j]!, 12);
  });

  it("gradient matches central differences in the raw coordinates, and sums to 0 over the fleet's slots", () => {
    const obj = centreSharpness(objective, off);
    const x = rawSharpness(f.truth, off, J);
    for (let j = 0; j < J; j++) x[off + j]! += 0.1 * Math.sin(3 * j); // off the truth, not centred
    const g = new Float64Array(x.length);
    obj.lossAndGrad(x, g);
    let sum = 0;
    for (let j = 0; j < J; j++) sum += g[off + j]!;
    expect(Math.abs(sum)).toBeLessThan(1e-9);
    const h = 1e-5;
    const gg = new Float64Array(x.length);
    for (const j of [0, 5, 11]) {
      const xp = Float64Array.from(x);
      const xm = Float64Array.from(x);
      xp[off + j]! += h;
      xm[off + j]! -= h;
      const fd = (obj.lossAndGrad(xp, gg) - obj.lossAndGrad(xm, gg)) / (2 * h);
      expect(g[off + j]).toBeCloseTo(fd, 4);
    }
    // Every other coordinate's gradient is the inner objective's.
    const gi = new Float64Array(x.length);
    objective.lossAndGrad(centredSharpness(x, off, J), gi);
    expect(g[0]).toBe(gi[0]);
    expect(g[off + J]).toBe(gi[off + J]);
  });

  it('a fleet fit under it ends with mean log s 0 exactly, close to the default fit, which the prior keeps near 0', () => {
    const r = fit(f.bank, { standardErrors: false, priors: { sharpnessCentre: 'fleet' } });
    if (r.layout.kind !== 'llm-nrm') throw new Error('expected an LLM-NRM layout');
    let m = 0;
    for (let j = 0; j < J; j++) m += Math.log(softplus(r.x[r.layout.sbar + j]!)) / J;
    expect(Math.abs(m)).toBeLessThan(1e-12);
    expect(r.converged).toBe(true);
    // Without it the prior alone pins the scale, near mean log s 0 at the default sharpnessSd 0.5
    // (measured 0.060), so the two fits end close (measured 249.65 under the constraint, 250.07 without).
    const d = fit(f.bank, { standardErrors: false });
    if (d.layout.kind !== 'llm-nrm') throw new Error('expected an LLM-NRM layout');
    let md = 0;
    for (let j = 0; j < J; j++) md += Math.log(softplus(d.x[d.layout.sbar + j]!)) / J;
    expect(Math.abs(md)).toBeGreaterThan(1e-3);
    expect(Math.abs(md)).toBeLessThan(0.2);
    expect(Math.abs(r.loss - d.loss)).toBeLessThan(1);
  });
});
