import { describe, expect, it } from 'vitest';
import { softplusInv } from '../layout.js';
import { simulateFleet } from '../../simulate/simulate.js';
import { GATE_SHUT, llmNrmFamily } from './index.js';

describe('LLM-NRM gate restart', () => {
  const fam = llmNrmFamily();
  const f = simulateFleet({ models: 8, items: 12, seed: 11 });
  const layout = fam.layout(f.bank);
  if (layout.kind !== 'llm-nrm') throw new Error('expected an LLM-NRM layout');
  const free = fam.freeMask(layout);
  // The gate shut for every cell: w0 far below GATE_SHUT, so both restart conditions hold.
  const shut = Float64Array.from(f.truth);
  shut[layout.w0] = GATE_SHUT - 20;

  it("puts the gate at the centre of the fit's own gate prior (Priors.gateW0, gateKappa), both branches", () => {
    const priors = { gateW0: -1.5, gateKappa: 2 };
    for (const bank of [f.bank, undefined]) {
      const out = fam.restart(layout, shut, free, bank, priors);
      expect(out, bank ? 'fresh start (fallback dominates no cell)' : 'from the end point (w0 < GATE_SHUT)').not.toBeNull();
      expect(out![layout.w0]).toBe(-1.5);
      expect(out![layout.kbar]).toBeCloseTo(softplusInv(2), 14);
    }
  });

  it('without priors the centre is DEFAULT_PRIORS (w0 0, kappa 1)', () => {
    const out = fam.restart(layout, shut, free, undefined);
    expect(out![layout.w0]).toBe(0);
    expect(out![layout.kbar]).toBeCloseTo(softplusInv(1), 14);
  });
});
