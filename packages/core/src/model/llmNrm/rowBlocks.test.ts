// llmNrmRowBlocksFromSums (the SEs' LLM blocks for an engine that sums them after the item pass)
// against llmNrmCurvatureFromSums' llm, llmGlobals and globals from the same sums: the same bits.
import { describe, expect, it } from 'vitest';
import { randomSource } from '../../simulate/random.js';
import { simulateFleet } from '../../simulate/simulate.js';
import { llmNrmLayout } from '../layout.js';
import { freeMask } from '../registry.js';
import { itemSquareOffsets, llmNrmCurvatureFromSums, llmNrmRowBlocksFromSums } from './curvature.js';

describe('llmNrmRowBlocksFromSums', () => {
  for (const fallback of [false, true])
    for (const sharpness of [false, true])
      it(`fallback ${fallback}, sharpness ${sharpness}: the LLM blocks, LLM-globals blocks and globals of llmNrmCurvatureFromSums, bit for bit`, () => {
        const { bank } = simulateFleet({ models: 7, items: 12, seed: 3, optionWeights: { 2: 1, 4: 1, 5: 1 } });
        const layout = llmNrmLayout(bank, { sharpness, position: true, fallback });
        const rng = randomSource(5);
        const fill = (n: number): Float64Array => Float64Array.from({ length: n }, () => rng.uniform() - 0.5);
        const x = fill(layout.size);
        const P = 2 + 2 * layout.kMax;
        const J = layout.nModels;
        const sq = itemSquareOffsets(bank)[layout.nItems]!;
        // Item sums that keep the item blocks positive definite (S0 a diagonal), the rest random.
        const s0 = new Float64Array(sq);
        const so = itemSquareOffsets(bank);
        for (let i = 0; i < layout.nItems; i++) {
          const K = bank.itemOffsets[i + 1]! - bank.itemOffsets[i]!;
          for (let k = 0; k < K; k++) s0[so[i]! + k * K + k] = 3;
        }
        const sums = {
          llm: fill(J * P * P),
          s0,
          s1: new Float64Array(sq),
          s2: Float64Array.from(s0),
          u1: new Float64Array(layout.sumK),
          u0: new Float64Array(layout.sumK),
          hh: new Float64Array(layout.nItems),
          gb: new Float64Array(layout.nItems),
          globals: fill(4),
          cross: { llmGlobals: fill(J * 2 * P), ig: new Float64Array(4 * layout.sumK), eg: new Float64Array(2 * layout.nItems) },
        };
        const priors = { llmSd: 1.5, sharpnessSd: 0.7, gateSd: 2 };
        const llmSums = Float64Array.from(sums.llm);
        const at = llmNrmCurvatureFromSums(bank, layout, x, freeMask(layout), priors, sums, { cross: true, blocksUnused: true });
        const got = llmNrmRowBlocksFromSums(layout, x, priors, {
          llm: sums.llm,
          globals: sums.globals,
          ...(fallback ? { llmGlobals: sums.cross.llmGlobals } : {}),
        });
        expect(got.llm.map((b) => Array.from(b))).toEqual(at.llm.map((b) => Array.from(b)));
        if (fallback) {
          expect(got.llmGlobals!.map((b) => Array.from(b))).toEqual(at.llmGlobals!.map((b) => Array.from(b)));
          expect(Array.from(got.globals)).toEqual(Array.from(at.globals!));
        } else expect(got.llmGlobals).toBeUndefined();
        // The engine's sums are read, not changed (it reuses its buffers).
        expect(Array.from(sums.llm)).toEqual(Array.from(llmSums));
      });
});
