// Every engine gives the same loss and gradient: core's 'ts' engine against the 'tfjs' engine for
// every family of core's registry (GRADIENT_CASES), whole and chunked over LLM rows, and a fit
// through `fit(bank, { engine })` by object and by registered name.
import { fit, randomSource, registerEngine, simulateFleet, toBundle, tsEngine, type EvalScope, type Objective } from '@llm-nrm/core';
import { getEngine, modelObjective } from '@llm-nrm/core/engine';
import { GRADIENT_CASES, gradientFleet, randomPoint } from '@llm-nrm/tooling/gradient';
import { expectArraysClose } from '@llm-nrm/tooling/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunkedObjective, loadTfjs, rowChunks, tfjsEngine, type LoadedTfjs, type TfjsEngine } from './index.js';

function expectSame(a: Objective, b: Objective, x: Float64Array, scope: EvalScope = {}): void {
  const ga = new Float64Array(x.length);
  const gb = new Float64Array(x.length);
  const La = a.lossAndGrad(x, ga, scope);
  const Lb = b.lossAndGrad(x, gb, scope);
  expect(Math.abs(Lb - La)).toBeLessThanOrEqual(1e-5 * Math.abs(La));
  let gmax = 0;
  for (const v of ga) gmax = Math.max(gmax, Math.abs(v));
  expect(gmax).toBeGreaterThan(0);
  expectArraysClose(gb, ga, { rtol: 1e-4, atol: 1e-5 * gmax });
}

let tfjs: LoadedTfjs;
let whole: TfjsEngine;
let chunked: TfjsEngine;
beforeAll(async () => {
  tfjs = await loadTfjs();
  whole = await tfjsEngine({ tfjs });
  // About one LLM row per chunk on the 6 x 12 gradient banks.
  chunked = await tfjsEngine({ tfjs, chunkSlots: 40 });
});
afterAll(() => {
  whole.dispose();
  chunked.dispose();
});

describe('ts and tfjs engines agree', () => {
  for (const c of GRADIENT_CASES) {
    it(`${c.name}: loss and gradient, whole and chunked over rows`, () => {
      const { bank } = gradientFleet(21);
      const ts = modelObjective(bank, c.model, c.parts ?? {}, {}, tsEngine).objective;
      const tw = modelObjective(bank, c.model, c.parts ?? {}, {}, whole).objective;
      const tc = modelObjective(bank, c.model, c.parts ?? {}, {}, chunked).objective;
      expect(tw.layout).toEqual(ts.layout);
      const x = randomPoint(ts.layout, randomSource(5));
      for (const scope of [{}, { rowStart: 1, rowEnd: 5 }, { itemPrior: false }, { rowStart: 2, rowEnd: 2 }]) {
        expectSame(ts, tw, x, scope);
        expectSame(ts, tc, x, scope);
      }
    });
  }

  it('rowChunks splits rows by observed slots and chunkedObjective sums them exactly', () => {
    const { bank } = gradientFleet(22);
    const bounds = rowChunks(bank, 40);
    expect(bounds[0]).toBe(0);
    expect(bounds[bounds.length - 1]).toBe(bank.models.length);
    expect(bounds.length).toBeGreaterThan(3);
    // The ts kernel chunked by the same bounds equals itself whole, to rounding.
    const ts = modelObjective(bank, 'llm-nrm').objective;
    const x = randomPoint(ts.layout, randomSource(6));
    const g1 = new Float64Array(x.length);
    const g2 = new Float64Array(x.length);
    const L1 = ts.lossAndGrad(x, g1);
    const L2 = chunkedObjective(ts, bounds).lossAndGrad(x, g2);
    expect(Math.abs(L2 - L1)).toBeLessThan(1e-9 * Math.abs(L1));
    expectArraysClose(g2, g1, { rtol: 1e-9, atol: 1e-9 });
  });
});

describe('fit on the tfjs engine', () => {
  it('reaches the ts fit by object and by registered name, and the bundle records the engine', () => {
    const { bank } = simulateFleet({ models: 8, items: 30, seed: 4 });
    const ref = fit(bank, { model: '2pl' });
    const byObject = fit(bank, { model: '2pl', engine: whole });
    expect(byObject.engine).toBe('tfjs');
    expect(ref.engine).toBe('ts');
    expect(Math.abs(byObject.loss - ref.loss)).toBeLessThan(1e-5 * Math.abs(ref.loss));
    expectArraysClose(byObject.x.subarray(0, 8), ref.x.subarray(0, 8), { rtol: 0, atol: 2e-2 });
    registerEngine(chunked);
    expect(getEngine('tfjs')).toBe(chunked);
    const byName = fit(bank, { model: '2pl', engine: 'tfjs' });
    expect(Math.abs(byName.loss - ref.loss)).toBeLessThan(1e-5 * Math.abs(ref.loss));
    expect(toBundle(byName, { version: 'test' }).fit.engine).toBe('tfjs');
  });
});
