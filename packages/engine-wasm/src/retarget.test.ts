// WasmObjective.retarget (core's Objective.retarget, fit's 'twin' SE mode): new targets on the
// same cells give the loss, gradient and curvature of an objective built on the retargeted bank,
// bit for bit, on one thread and on a pool; and retargeting back restores the original's.
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
          // The same targets in blocks of 5 rows (fit's twin on this engine: no second whole q).
          const width = fleet.bank.colOffsets[fleet.bank.colItem.length]!;
          for (let j = 0; j < 23; j += 5) moved.retargetRows(twin.q.subarray(j * width, Math.min(23, j + 5) * width), j);
          const rows = eval3(moved);
          expect(rows.loss).toBe(b.loss);
          expect(same(rows.g, b.g)).toBe(true);
          expect(same(rows.hv, b.hv)).toBe(true);
          // One block back: only its rows change.
          moved.retargetRows(fleet.bank.q.subarray(0, 5 * width), 0);
          expect(eval3(moved).loss).not.toBe(b.loss);
          moved.retargetRows(fleet.bank.q.subarray(5 * width), 5);
          expect(eval3(moved).loss).toBe(o.loss);
          expect(() => moved.retargetRows(new Float32Array(width + 1), 0)).toThrow(/retargetRows: .* entries from row 0/);
          expect(() => moved.retargetRows(new Float32Array(2 * width), 22)).toThrow(/retargetRows/);
        } finally {
          for (const o of [moved, fresh, orig]) o.dispose();
        }
      }
    } finally {
      pool.dispose();
    }
  });

  it("fit's twin takes its targets in blocks of rows on this engine: the same twin, bit for bit, as from a whole twin bank", () => {
    const { bank } = simulateFleet({ models: 40, items: 60, seed: 11 });
    const w = wasmEngine();
    try {
      let rowCalls = 0;
      const engineOf = (rows: boolean): Engine => ({
        name: 'wasm',
        objective: (b, family, priors) => {
          const o = w.objective(b, family.layout(b), priors) as WasmObjectiveLike;
          const inner = o.retargetRows;
          o.retargetRows = rows && inner ? (q, firstRow) => (rowCalls++, inner.call(o, q, firstRow)) : undefined;
          return o;
        },
        curvature: (_b, _f, _p, objective) => w.curvature(objective),
      });
      const a = fit(bank, { engine: engineOf(true), seMode: 'twin' });
      // 40 LLMs in blocks of 16 rows.
      expect(rowCalls).toBe(3);
      const b = fit(bank, { engine: engineOf(false), seMode: 'twin' });
      expect(rowCalls).toBe(3);
      expect(a.twin!.passes).toBe(b.twin!.passes);
      expect(same(a.twin!.bias, b.twin!.bias)).toBe(true);
      expect(same(a.se, b.se)).toBe(true);
      expect(same(a.x, b.x)).toBe(true);
    } finally {
      w.dispose();
    }
  });
});

type WasmObjectiveLike = ReturnType<ReturnType<typeof wasmEngine>['objective']> & { retargetRows?: (q: Float32Array, firstRow: number) => void };
