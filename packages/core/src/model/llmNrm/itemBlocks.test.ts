// The preconditioner's item blocks as assembled for the refresh (only the lower triangle, without
// `cross`; the engine's sums read as they become ready, its difficulties reused) against the full
// assembly: the same factors, bit for bit, so the fit's path does not move.
import { describe, expect, it } from 'vitest';
import { simulateFleet } from '../../simulate/simulate.js';
import { llmNrmLayout } from '../layout.js';
import { ALL_PARTS } from '../types.js';
import { computeDifficulties } from '../difficulty.js';
import { freeMask, getFamily } from '../registry.js';
import { initialParameters } from '../../fit/modelObjective.js';
import { itemSquareOffsets, llmNrmCurvatureFromSums, type LlmNrmCurvatureSums } from './curvature.js';
import type { Blocks } from '../../internal/blocks.js';

function expectSameFactors(a: Blocks, b: Blocks): void {
  expect(a.chol.length).toBe(b.chol.length);
  for (let k = 0; k < a.chol.length; k++) {
    const x = a.chol[k]!;
    const y = b.chol[k]!;
    for (let t = 0; t < x.length; t++) expect(Object.is(x[t], y[t]), `block ${k}, entry ${t}: ${x[t]} vs ${y[t]}`).toBe(true);
  }
}

describe('the refresh item blocks', () => {
  const { bank } = simulateFleet({ models: 40, items: 120, seed: 4 });
  const layout = llmNrmLayout(bank, ALL_PARTS);
  const free = freeMask(layout);
  const x = initialParameters(bank, layout);
  x[layout.w0] = -1;
  for (let t = 0; t < layout.sumK; t++) {
    x[layout.a + t]! += 0.3 * Math.sin(t);
    x[layout.c + t]! += 0.5 * Math.cos(3 * t);
  }
  const curvature = getFamily('llm-nrm', layout.parts).curvature(bank, layout, {});

  it('from the lower triangle alone (no cross) are the factors of the full assembly (cross)', () => {
    const lower = curvature(x, free);
    const full = curvature(x, free, { cross: true });
    // The gate's b-Hessian term is on for these items (dL/db_i nonzero), so every part of the
    // assembly is compared.
    expect(lower.blocks.chol.length).toBe(layout.nModels + layout.nItems + 1);
    expectSameFactors(lower.blocks, full.blocks);
  });

  it('from sums read as they become ready, with the engine difficulties, are the same factors', () => {
    // Sums from the TypeScript curvature's own cell pass are not exposed: random item sums that
    // keep the blocks definite, and a dL/db_i on every item (the b-Hessian columns).
    const I = layout.nItems;
    const sq = itemSquareOffsets(bank);
    const P = 2 + 2 * layout.kMax;
    const s0 = new Float64Array(sq[I]!);
    const s1 = new Float64Array(sq[I]!);
    for (let i = 0; i < I; i++) {
      const K = bank.itemOffsets[i + 1]! - bank.itemOffsets[i]!;
      for (let k = 0; k < K; k++) for (let l = k; l < K; l++) s0[sq[i]! + k * K + l] = k === l ? 4 + Math.sin(i + k) : 0.3 * Math.cos(i * K + l);
      for (let k = 0; k < K; k++) for (let l = k; l < K; l++) s1[sq[i]! + k * K + l] = 0.1 * Math.sin(3 * i + k - l);
    }
    const llm = new Float64Array(layout.nModels * P * P);
    for (let j = 0; j < layout.nModels; j++) for (let r = 0; r < P; r++) llm[j * P * P + r * P + r] = 2;
    const sums: LlmNrmCurvatureSums = {
      llm,
      s0,
      s1,
      s2: Float64Array.from(s0, (v) => 1.5 * v),
      u1: Float64Array.from({ length: layout.sumK }, (_, t) => 0.05 * Math.sin(t)),
      u0: Float64Array.from({ length: layout.sumK }, (_, t) => 0.05 * Math.cos(t)),
      hh: Float64Array.from({ length: I }, (_, i) => 0.2 + 0.01 * i),
      gb: Float64Array.from({ length: I }, (_, i) => Math.sin(i)),
      globals: Float64Array.of(3, 0.1, 0.1, 2),
    };
    const ref = llmNrmCurvatureFromSums(bank, layout, x, free, {}, sums);
    const aux = new Float64Array(3 * I);
    const w = new Float64Array(layout.sumK);
    computeDifficulties(bank, x, layout.a, layout.c, new Float64Array(I), aux, w);
    const asked: number[] = [];
    const ready = (i: number): number => {
      asked.push(i);
      return Math.min(I, i + 7);
    };
    const got = llmNrmCurvatureFromSums(bank, layout, x, free, {}, { ...sums, difficulty: { aux, w }, itemsReady: ready });
    expectSameFactors(got.blocks, ref.blocks);
    // Asked at each item it last said was not ready yet: 0, 7, 14, ...
    expect(asked).toEqual(Array.from({ length: Math.ceil(I / 7) }, (_, t) => 7 * t));
  });
});
