// llmNrmObjective's retarget (Objective.retarget, fit's 'twin' SE mode): new targets on the same
// cells give the loss and gradient of an objective built on the retargeted bank, bit for bit.
import { describe, expect, it } from 'vitest';
import { twinBank } from '../../fit/twinBias.js';
import { simulateFleet } from '../../simulate/simulate.js';
import { llmNrmObjective } from './objective.js';

describe('llmNrmObjective retarget', () => {
  it('fits the new targets as an objective of the retargeted bank does; and back', () => {
    const f = simulateFleet({ models: 12, items: 15, seed: 4, missing: 0.2, rotations: 2 });
    const twin = twinBank(f.bank, f.layout, f.truth);
    const x = Float64Array.from(f.truth, (v, t) => v + 0.05 * Math.sin(t));
    const run = (o: ReturnType<typeof llmNrmObjective>) => {
      const g = new Float64Array(x.length);
      return { loss: o.lossAndGrad(x, g), g: Array.from(g) };
    };
    const moved = llmNrmObjective(f.bank, f.layout);
    const before = run(moved);
    moved.retarget!(twin.q);
    const a = run(moved);
    expect(a.loss).not.toBe(before.loss);
    expect(a).toEqual(run(llmNrmObjective(twin, f.layout)));
    moved.retarget!(f.bank.q);
    expect(run(moved)).toEqual(before);
    expect(() => moved.retarget!(new Float32Array(2))).toThrow(/retarget/);
  });
});
