// The wasm binary cell pass (assembly/binary.ts through binaryKernel.ts) against core's TypeScript
// one: the same loss and gradient bit for bit for 1PL-4PL, item by item and row by row, with
// unobserved cells, odd item counts, rotated columns, row scopes, and the priors on, off and changed.
import { randomSource, simulateFleet, withObserved, type BinaryLayout, type EvalScope, type ResponseBank } from '@llm-nrm/core';
import { binaryLayout, binaryObjective, correctness } from '@llm-nrm/core/engine';
import { randomPoint } from '@llm-nrm/tooling/gradient';
import { describe, expect, it } from 'vitest';
import { wasmBinaryKernel } from './binaryKernel.js';
import { wasmEngine } from '../index.js';

/** A bank with about a fifth of its cells held out (as in a CV fold) on top of its own missing ones. */
function heldOut(bank: ResponseBank): ResponseBank {
  const mask = new Uint8Array(bank.models.length * bank.colItem.length).map((_, t) => ((t * 7919) % 5 === 2 ? 0 : 1));
  return withObserved(bank, mask);
}

const banks: [string, ResponseBank][] = [
  ['31 x 47, missing cells, a fifth held out', heldOut(simulateFleet({ models: 31, items: 47, seed: 5, missing: 0.1 }).bank)],
  ['17 x 33, rotated columns (row-major pass), held out', heldOut(simulateFleet({ models: 17, items: 33, seed: 9, rotations: 2 }).bank)],
];

/** Points: a random one, and one pushed to the clamps (|z| large: P at 1e-300 or 1 - 1e-16). */
function points(layout: BinaryLayout, seed: number): Float64Array[] {
  const x = randomPoint(layout, randomSource(seed));
  const edge = Float64Array.from(x);
  for (let j = 0; j < layout.nModels; j += 3) edge[layout.theta + j] = j % 2 ? 60 : -60;
  for (let i = 0; i < layout.nItems; i += 4) edge[layout.slip + i] = -800;
  return [x, edge];
}

function differing(a: Float64Array, b: Float64Array): number {
  let n = 0;
  for (let t = 0; t < a.length; t++) if (!Object.is(a[t], b[t])) n++;
  return n;
}

describe('wasm binary kernel', () => {
  for (const [name, bank] of banks)
    for (const pl of [1, 2, 3, 4] as const)
      it(`${pl}PL on ${name}: loss and gradient bit-equal to core's TypeScript pass`, () => {
        const layout = binaryLayout(bank, pl);
        const y = correctness(bank);
        const J = layout.nModels;
        const scopes: EvalScope[] = [
          {},
          { itemPrior: false },
          { thetaPrior: false },
          { rowStart: 2, rowEnd: J - 3 },
          { rowStart: 5, rowEnd: 6, itemPrior: false },
        ];
        let compared = 0;
        for (const priors of [{}, { itemSd: 2.5 }])
          for (const [itemMajor, pass] of [
            [true, 'phased'],
            [false, 'phased'],
          ] as const) {
            const ts = binaryObjective(bank, layout, y, priors, { itemMajor });
            const wasm = binaryObjective(bank, layout, y, priors, { itemMajor, kernel: (c) => wasmBinaryKernel(c, { pass }) });
            for (const x of points(layout, pl * 10 + (itemMajor ? 1 : 0)))
              for (const scope of scopes) {
                const g1 = new Float64Array(layout.size).fill(7);
                const g2 = new Float64Array(layout.size).fill(-7);
                const l1 = ts.lossAndGrad(x, g1, scope);
                const l2 = wasm.lossAndGrad(x, g2, scope);
                expect(Number.isFinite(l1)).toBe(true);
                expect(Object.is(l1, l2)).toBe(true);
                expect(differing(g1, g2)).toBe(0);
                compared++;
              }
          }
        expect(compared).toBe(2 * 2 * 2 * scopes.length);
      });

  for (const pl of [1, 2, 3, 4] as const)
    it(`${pl}PL, the f64x2 pass (simd): within 1e-12 of core's TypeScript pass; row scopes and rotated banks keep core's bits`, () => {
      for (const [, bank] of banks) {
        const layout = binaryLayout(bank, pl);
        const y = correctness(bank);
        const oneColumnPerItem = bank.colItem.length === layout.nItems;
        for (const priors of [{}, { itemSd: 2.5 }]) {
          const ts = binaryObjective(bank, layout, y, priors);
          const simd = binaryObjective(bank, layout, y, priors, { kernel: (c) => wasmBinaryKernel(c, { pass: 'simd' }) });
          for (const x of points(layout, pl))
            for (const scope of [{}, { thetaPrior: false, itemPrior: false }, { rowStart: 1, rowEnd: 7 }] as EvalScope[]) {
              const g1 = new Float64Array(layout.size);
              const g2 = new Float64Array(layout.size);
              const l1 = ts.lossAndGrad(x, g1, scope);
              const l2 = simd.lossAndGrad(x, g2, scope);
              if (!oneColumnPerItem || scope.rowStart !== undefined) {
                // Only full passes of one-column-per-item banks take the f64x2 pass.
                expect(Object.is(l1, l2)).toBe(true);
                expect(differing(g1, g2)).toBe(0);
                continue;
              }
              expect(Math.abs(l2 - l1) / Math.abs(l1)).toBeLessThan(1e-12);
              // Each entry within 1e-12 of its own size or of the gradient's RMS (entries near zero
              // are sums of terms that cancel, whose rounding is relative to the terms).
              let ss = 0;
              for (const v of g1) ss += v * v;
              const rms = Math.sqrt(ss / g1.length);
              let worst = 0;
              for (let t = 0; t < g1.length; t++) worst = Math.max(worst, Math.abs(g2[t]! - g1[t]!) / Math.max(Math.abs(g1[t]!), rms));
              expect(worst).toBeLessThan(1e-12);
              // Not core's bits: the two passes are different code, and the test sees it.
              expect(differing(g1, g2)).toBeGreaterThan(0);
            }
        }
      }
    });

  it("the engine routes binary layouts to the kernel (core's bits by default, binaryPass 'simd' on request); a pass after others on the same kernel (reused memory) gives a fresh kernel's bits", () => {
    const bank = banks[0]![1];
    for (const pass of ['phased', 'simd'] as const) {
      const engine = wasmEngine(pass === 'simd' ? { binaryPass: 'simd' } : {});
      for (const pl of [3, 4] as const) {
        const layout = binaryLayout(bank, pl);
        const o = engine.objective(bank, layout);
        expect(o.engine).toBe('wasm');
        const [x, edge] = points(layout, pl);
        const ref = new Float64Array(layout.size);
        // The phased pass is checked against core's own objective (core's bits).
        const fresh =
          pass === 'simd'
            ? binaryObjective(bank, layout, correctness(bank), {}, { kernel: (c) => wasmBinaryKernel(c, { pass: 'simd' }) })
            : binaryObjective(bank, layout, correctness(bank));
        const lRef = fresh.lossAndGrad(x!, ref);
        const g = new Float64Array(layout.size);
        o.lossAndGrad(edge!, g, { rowStart: 1, rowEnd: 4 });
        o.lossAndGrad(edge!, g);
        const l = o.lossAndGrad(x!, g);
        expect(Object.is(l, lRef)).toBe(true);
        expect(differing(g, ref)).toBe(0);
      }
      engine.dispose();
    }
  });
});

describe('the binary pass by family (ModelFamily.fastKernel, passed as { layout, fastKernel })', () => {
  it("fastKernel: the simd pass's bits; without it, or with binaryPass 'phased', core's bits", () => {
    const bank = banks[0]![1];
    const layout = binaryLayout(bank, 4);
    const [x] = points(layout, 4);
    const core = new Float64Array(layout.size);
    const lCore = binaryObjective(bank, layout, correctness(bank)).lossAndGrad(x!, core);
    const simd = new Float64Array(layout.size);
    const lSimd = binaryObjective(bank, layout, correctness(bank), {}, { kernel: (c) => wasmBinaryKernel(c, { pass: 'simd' }) }).lossAndGrad(x!, simd);
    // The two passes differ (else this test could not tell them apart).
    expect(differing(core, simd)).toBeGreaterThan(0);
    const cases: [string, ReturnType<typeof wasmEngine>, Parameters<ReturnType<typeof wasmEngine>['objective']>[1], number, Float64Array][] = [
      ['default engine, fastKernel', wasmEngine(), { layout, fastKernel: true }, lSimd, simd],
      ['default engine, no fastKernel', wasmEngine(), { layout, fastKernel: false }, lCore, core],
      ['default engine, a bare layout', wasmEngine(), layout, lCore, core],
      ["binaryPass 'phased', fastKernel", wasmEngine({ binaryPass: 'phased' }), { layout, fastKernel: true }, lCore, core],
      ["binaryPass 'simd', no fastKernel", wasmEngine({ binaryPass: 'simd' }), layout, lSimd, simd],
    ];
    for (const [name, engine, arg, lWant, gWant] of cases) {
      const g = new Float64Array(layout.size);
      const l = engine.objective(bank, arg).lossAndGrad(x!, g);
      expect(Object.is(l, lWant), name).toBe(true);
      expect(differing(g, gWant), name).toBe(0);
      engine.dispose();
    }
  });
});
