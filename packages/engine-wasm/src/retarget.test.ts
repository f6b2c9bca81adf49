// WasmObjective.retarget (core's Objective.retarget, fit's 'twin' SE mode): new targets on the
// same cells give the loss, gradient and curvature of an objective built on the retargeted bank,
// bit for bit, on one thread and on a pool; and retargeting back restores the original's. Its
// predictTargets (the twin's targets from the kernel) gives the twin bank's to f32 rounding.
import { ALL_PARTS, fit, llmNrmLayout, randomSource, simulateFleet, type Engine, type ResponseBank } from '@llm-nrm/core';
import { twinBank } from '@llm-nrm/core/engine';
import { randomPoint } from '@llm-nrm/tooling/gradient';
import { describe, expect, it } from 'vitest';
import { wasmEngine, wasmLlmNrmObjective, wasmThreadPool } from './index.js';

const same = (a: Float64Array, b: Float64Array): boolean =>
  Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));

describe('retarget', () => {
  it('the loss, gradient and curvature of the retargeted bank’s own objective, bit for bit; and back', () => {
    const fleet = simulateFleet({ models: 23, items: 30, seed: 9, missing: 0.15, rotations: 2 });
    const layout = llmNrmLayout(fleet.bank, ALL_PARTS);
    const x = randomPoint(layout, randomSource(3));
    // The twin's targets: the model's own p at the truth (unobserved cells stay 0).
    const twin: ResponseBank = twinBank(fleet.bank, layout, fleet.truth);
    const pool = wasmThreadPool(2);
    try {
      for (const opts of [{ threads: 1 }, { pool, groupsPerBlock: 1 }]) {
        const moved = wasmLlmNrmObjective(fleet.bank, layout, {}, opts);
        const fresh = wasmLlmNrmObjective(twin, layout, {}, opts);
        const orig = wasmLlmNrmObjective(fleet.bank, layout, {}, opts);
        try {
          if ('pool' in opts) {
            // The workers must really take blocks (they start and receive the kernel asynchronously).
            const g = new Float64Array(x.length);
            const until = Date.now() + 20_000;
            while (pool.workerBlocks === 0 && Date.now() < until) moved.lossAndGrad(x, g);
            expect(pool.workerBlocks).toBeGreaterThan(0);
          }
          const eval3 = (o: typeof moved) => {
            const g = new Float64Array(x.length);
            const loss = o.lossAndGrad(x, g);
            const c = o.curvature(x, o.free).blocks;
            const v = Float64Array.from({ length: x.length }, (_, t) => Math.sin(t + 1));
            const hv = new Float64Array(x.length);
            c.apply(v, hv);
            return { loss, g, hv };
          };
          const before = eval3(moved);
          moved.retarget(twin.q);
          const a = eval3(moved);
          const b = eval3(fresh);
          expect(a.loss).not.toBe(before.loss);
          expect(a.loss).toBe(b.loss);
          expect(same(a.g, b.g)).toBe(true);
          expect(same(a.hv, b.hv)).toBe(true);
          moved.retarget(fleet.bank.q);
          const back = eval3(moved);
          const o = eval3(orig);
          expect(back.loss).toBe(o.loss);
          expect(same(back.g, o.g)).toBe(true);
          expect(same(back.hv, o.hv)).toBe(true);
          expect(() => moved.retarget(new Float32Array(3))).toThrow(/retarget/);
          // The twin's targets predicted by the kernel itself (fit's twin on this engine: no second q):
          // the twin bank's objective to f32 rounding (the kernel's p from its f32 parameters against
          // core's f64 p rounded to f32); unobserved cells keep q = 0 (else their mass would count).
          moved.predictTargets(fleet.truth);
          const pred = eval3(moved);
          expect(Math.abs(pred.loss - b.loss)).toBeLessThan(1e-6 * Math.abs(b.loss));
          let gmax = 0;
          for (let t = 0; t < x.length; t++) gmax = Math.max(gmax, Math.abs(pred.g[t]! - b.g[t]!) / Math.max(1, Math.abs(b.g[t]!)));
          expect(gmax).toBeLessThan(1e-4);
          // The curvature reads the targets only through each cell's mass Q (1 to f32 rounding).
          let hmax = 0;
          for (let t = 0; t < x.length; t++) hmax = Math.max(hmax, Math.abs(pred.hv[t]! - b.hv[t]!) / Math.max(1, Math.abs(b.hv[t]!)));
          expect(hmax).toBeLessThan(1e-5);
          moved.retarget(fleet.bank.q);
          expect(eval3(moved).loss).toBe(o.loss);
        } finally {
          for (const o of [moved, fresh, orig]) o.dispose();
        }
      }
    } finally {
      pool.dispose();
    }
  });

  it("fit's twin predicts its targets on this engine, once, and lands within its stopping distance of the twin from a whole twin bank", () => {
    const { bank } = simulateFleet({ models: 40, items: 60, seed: 11 });
    const w = wasmEngine();
    try {
      let predicted = 0;
      const engineOf = (predict: boolean): Engine => ({
        name: 'wasm',
        objective: (b, family, priors) => {
          const o = w.objective(b, family.layout(b), priors) as WasmObjectiveLike;
          const inner = o.predictTargets!.bind(o);
          o.predictTargets = predict ? (x) => (predicted++, inner(x)) : undefined;
          return o;
        },
        curvature: (_b, _f, _p, objective) => w.curvature(objective),
      });
      const a = fit(bank, { engine: engineOf(true), seMode: 'twin' });
      expect(predicted).toBe(1);
      const b = fit(bank, { engine: engineOf(false), seMode: 'twin' });
      expect(predicted).toBe(1);
      // The fits are the same; the twins start from the same point on targets equal to f32 rounding
      // and each stops within 0.1 SE (TWIN_DISTANCE) of its optimum.
      expect(same(a.x, b.x)).toBe(true);
      for (let j = 0; j < a.se.length; j++) expect(Math.abs(a.twin!.bias[j]! - b.twin!.bias[j]!)).toBeLessThan(0.2 * b.se[j]!);
    } finally {
      w.dispose();
    }
  });
});

type WasmObjectiveLike = Omit<ReturnType<ReturnType<typeof wasmEngine>['objective']>, 'predictTargets'> & { predictTargets?: (x: Float64Array) => void };
