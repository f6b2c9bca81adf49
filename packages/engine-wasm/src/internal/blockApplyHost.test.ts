// The preconditioner's block solves on the pool's threads (blockApplyHost.ts, assembly/blockApply.ts)
// against core's TypeScript Blocks.apply / applyPair, bit for bit, on the blocks of a threaded
// wasm objective's refresh (items under the gate capped, fixed parameters, LLM and global blocks),
// with right-hand sides large enough that the caps bind; and what happens to blocks whose factors
// a later refresh has overwritten (they solve in TypeScript again).
import { ALL_PARTS, llmNrmLayout, randomSource, simulateFleet } from '@llm-nrm/core';
import { initialParameters } from '@llm-nrm/core/engine';
import { afterAll, describe, expect, it } from 'vitest';
import { wasmLlmNrmObjective, wasmThreadPool } from '../index.js';

const { bank } = simulateFleet({ models: 23, items: 60, seed: 3 });
const layout = llmNrmLayout(bank, ALL_PARTS);
const pool = wasmThreadPool(3);
afterAll(() => pool.dispose());

function vectors(seed: number, scale: number): Float64Array {
  const rng = randomSource(seed);
  return Float64Array.from({ length: layout.size }, () => (rng.uniform() * 2 - 1) * scale);
}

/** apply and applyPair of `blocks` as they run now, then in core's TypeScript (the applier dropped). */
function both(blocks: ReturnType<ReturnType<typeof wasmLlmNrmObjective>['curvature']>['blocks'], v1: Float64Array, v2: Float64Array) {
  const run = () => {
    const a = new Float64Array(layout.size).fill(9);
    blocks.apply(v1, a);
    const p1 = new Float64Array(layout.size).fill(-9);
    const p2 = new Float64Array(layout.size).fill(5);
    blocks.applyPair(v1, p1, v2, p2);
    return [Array.from(a), Array.from(p1), Array.from(p2)];
  };
  const here = run();
  blocks.setApplier(null);
  return { here, ts: run() };
}

describe('block solves on the pool', () => {
  it('give core bits for apply and applyPair, step caps binding', () => {
    const obj = wasmLlmNrmObjective(bank, layout, {}, { pool });
    const x = initialParameters(bank, layout);
    const at = obj.curvature(x, obj.free);
    // Small and large right-hand sides: the item blocks' caps bind on the large ones.
    for (const scale of [0.01, 1e4]) {
      const v1 = vectors(1, scale);
      const v2 = vectors(2, scale);
      const { here, ts } = both(at.blocks, v1, v2);
      expect(here).toEqual(ts);
      expect(ts[0]!.some((u) => u !== 0)).toBe(true);
      // apply and applyPair's first vector agree (core's own property, here on the threads).
      expect(here[1]).toEqual(here[0]);
      obj.curvature(x, obj.free);
    }
    // The workers took part: the applier installed by a refresh runs its tasks on the pool (the
    // worker may not have received the memory yet on the first solves, so a few are tried).
    const fresh = obj.curvature(x, obj.free).blocks;
    const before = pool.workerBlocks;
    const v = vectors(3, 1);
    const out = new Float64Array(layout.size);
    const t0 = Date.now();
    while (pool.workerBlocks === before && Date.now() - t0 < 5000) fresh.applyPair(v, out, v, new Float64Array(layout.size));
    expect(pool.workerBlocks).toBeGreaterThan(before);
    obj.dispose();
  });

  it('leave blocks of an earlier refresh to core, with their own factors', () => {
    const obj = wasmLlmNrmObjective(bank, layout, {}, { pool });
    const x0 = initialParameters(bank, layout);
    const x1 = Float64Array.from(x0, (u, t) => u + 0.3 * Math.sin(t));
    const first = obj.curvature(x0, obj.free).blocks;
    const v1 = vectors(4, 2);
    const v2 = vectors(5, 2);
    const want = new Float64Array(layout.size);
    first.apply(v1, want);
    // The next refresh writes its factors where the first's were: the first then solves in TypeScript.
    const second = obj.curvature(x1, obj.free).blocks;
    const got = new Float64Array(layout.size);
    first.apply(v1, got);
    expect(Array.from(got)).toEqual(Array.from(want));
    const { here, ts } = both(second, v1, v2);
    expect(here).toEqual(ts);
    expect(here[0]).not.toEqual(Array.from(want));
    // After dispose the blocks still solve (in TypeScript).
    const third = obj.curvature(x1, obj.free).blocks;
    const ref = new Float64Array(layout.size);
    third.apply(v1, ref);
    obj.dispose();
    const after = new Float64Array(layout.size);
    third.apply(v1, after);
    expect(Array.from(after)).toEqual(Array.from(ref));
  });
});
