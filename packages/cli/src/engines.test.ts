// Every engine the CLI offers computes the same objective: tfjs (float32, chunked over LLM rows)
// and wasm (f32x4 SIMD, f64 sums) against each other and against core's float64 'ts' kernel, at a
// small size (packages/engine-tfjs/bench/vs-wasm.js measures 189 x 2,000: within 6e-8 relative).
import { getFamily, simulateFleet } from '@llm-nrm/core';
import { describe, expect, it } from 'vitest';
import { loadEngine } from './engines.js';

const { bank } = simulateFleet({ models: 16, items: 60, seed: 4 });

describe('the engines agree', () => {
  for (const model of ['llm-nrm', 'nrm', '2pl'] as const) {
    it(`${model}: tfjs and wasm losses within 1e-5 relative of each other and of ts`, async () => {
      const family = getFamily(model);
      const fitBank = family.prepare(bank);
      const layout = family.layout(fitBank);
      const x = family.start(fitBank, layout);
      for (let t = 0; t < x.length; t++) x[t]! += 0.3 * Math.sin(1.7 * t);
      const loss: Record<string, number> = {};
      for (const name of ['ts', 'wasm', 'tfjs']) {
        const engine = await loadEngine(name, { threads: 1 });
        const objective = engine.objective(fitBank, family, {});
        expect(objective.layout.size).toBe(layout.size);
        loss[name] = objective.lossAndGrad(Float64Array.from(x), new Float64Array(layout.size));
      }
      expect(Math.abs(loss.tfjs! - loss.wasm!) / Math.abs(loss.wasm!)).toBeLessThan(1e-5);
      expect(Math.abs(loss.wasm! - loss.ts!) / Math.abs(loss.ts!)).toBeLessThan(1e-5);
      // Not a constant: the loss depends on the point.
      const ts = await loadEngine('ts');
      expect(ts.objective(fitBank, family, {}).lossAndGrad(family.start(fitBank, layout), new Float64Array(layout.size))).not.toBeCloseTo(loss.ts!, 0);
    });
  }
});
