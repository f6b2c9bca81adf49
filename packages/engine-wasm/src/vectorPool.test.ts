// L-BFGS's vector sweeps on worker threads (internal/vectorPool.ts): the same bits as core's
// serialVectorOps sweep by sweep and for a whole fit, the workers really taking parts, and the
// vectors reused rather than dropped.
import { fit, simulateFleet } from '@llm-nrm/core';
import { serialVectorOps, VECTOR_OP } from '@llm-nrm/core/engine';
import { afterAll, describe, expect, it } from 'vitest';
import { nodePlatform } from './internal/nodePlatform.js';
import { FREE_RESTART_BYTES, MIN_SHARED_LENGTH, VectorPool } from './internal/vectorPool.js';
import { disposeWasmThreads, wasmEngine } from './index.js';

const pools: VectorPool[] = [];
afterAll(() => {
  for (const p of pools) p.dispose();
  disposeWasmThreads();
});

function fill(v: Float64Array, seed: number): Float64Array {
  let s = seed;
  for (let t = 0; t < v.length; t++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    v[t] = ((s / 2147483648) * 2 - 1) * 10 ** ((t % 5) - 2);
  }
  return v;
}

describe('VectorPool', () => {
  const n = 3 * MIN_SHARED_LENGTH + 13;

  it('gives serialVectorOps bits on every sweep, with the worker running parts', async () => {
    const pool = new VectorPool(2, nodePlatform.spawnVectors!);
    pools.push(pool);
    const mk = (seed: number) => fill(pool.alloc(n), seed);
    const [x, y, z, w] = [mk(1), mk(2), mk(3), mk(4).map(Math.abs)];
    const plain = (v: Float64Array) => Float64Array.from(v);
    const out = new Float64Array(2);
    const ref = new Float64Array(2);
    // The worker starts and receives the vectors asynchronously: sweep until it has taken parts.
    const until = Date.now() + 20_000;
    while (pool.workerParts === 0 && Date.now() < until) {
      pool.run(VECTOR_OP.DOT, [x, y], 0, out);
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(pool.workerParts).toBeGreaterThan(0);
    const before = pool.workerParts;
    for (let rep = 0; rep < 20; rep++) {
      const a = 0.1 * (rep - 10);
      // Each op on the pool's vectors and on plain copies with serialVectorOps: the same bits.
      const y1 = plain(y);
      pool.run(VECTOR_OP.AXPY_DOT, [x, y, z], a, out);
      serialVectorOps.run(VECTOR_OP.AXPY_DOT, [x, y1, z], a, ref);
      expect(out[0]).toBe(ref[0]);
      expect(Array.from(y)).toEqual(Array.from(y1));
      pool.run(VECTOR_OP.DOT, [y, z], 0, out);
      serialVectorOps.run(VECTOR_OP.DOT, [y1, z], 0, ref);
      expect(out[0]).toBe(ref[0]);
    }
    const s = pool.alloc(n);
    const yv = pool.alloc(n);
    const s1 = new Float64Array(n);
    const y1 = new Float64Array(n);
    pool.run(VECTOR_OP.PAIR, [x, y, z, w, w, s, yv], 0, out);
    serialVectorOps.run(VECTOR_OP.PAIR, [x, y, z, w, w, s1, y1], 0, ref);
    expect([out[0], out[1]]).toEqual([ref[0], ref[1]]);
    expect(Array.from(s)).toEqual(Array.from(s1));
    // The worker kept taking parts (not only while it started).
    expect(pool.workerParts).toBeGreaterThan(before);
  });

  it('a released vector is handed out again, zeroed; short vectors and foreign arrays run on the caller', () => {
    const pool = new VectorPool(2, nodePlatform.spawnVectors!);
    pools.push(pool);
    const v = fill(pool.alloc(n), 5);
    expect(v.buffer).toBeInstanceOf(SharedArrayBuffer);
    pool.release(v);
    // A second release of the same vector must not put it on the free list twice.
    pool.release(v);
    const again = pool.alloc(n);
    expect(again).toBe(v);
    expect(again.every((t) => t === 0)).toBe(true);
    expect(pool.alloc(n)).not.toBe(v);
    expect(pool.alloc(MIN_SHARED_LENGTH - 1).buffer).toBeInstanceOf(ArrayBuffer);
    // A plain array (not made here) is swept on the calling thread: the same result.
    const a = fill(new Float64Array(n), 6);
    const out = new Float64Array(2);
    const ref = new Float64Array(2);
    pool.run(VECTOR_OP.DOT, [a, again], 0, out);
    serialVectorOps.run(VECTOR_OP.DOT, [a, again], 0, ref);
    expect(out[0]).toBe(ref[0]);
    pool.dispose();
    // After dispose: plain vectors, sweeps on the caller.
    expect(pool.alloc(n).buffer).toBeInstanceOf(ArrayBuffer);
  });

  it('drops free vectors of another length past FREE_RESTART_BYTES: new workers get the live vectors and sweep them, the same bits', async () => {
    const pool = new VectorPool(2, nodePlatform.spawnVectors!);
    pools.push(pool);
    const live = [fill(pool.alloc(n), 7), fill(pool.alloc(n), 8)];
    // Free vectors of another length, just under the limit: a miss does not restart.
    const m = 2 * MIN_SHARED_LENGTH;
    const count = Math.ceil(FREE_RESTART_BYTES / (8 * m)) - 1;
    const spare = Array.from({ length: count }, () => pool.alloc(m));
    for (const v of spare) pool.release(v);
    const other = pool.alloc(3 * MIN_SHARED_LENGTH);
    expect(pool.restarts).toBe(0);
    pool.release(other);
    // Now at or past it: the next miss drops them all and restarts the worker.
    const fresh = fill(pool.alloc(n + 1), 9);
    expect(pool.restarts).toBe(1);
    // The dropped lengths are made anew, not handed out from before.
    const again = pool.alloc(m);
    expect(spare.includes(again)).toBe(false);
    expect(pool.restarts).toBe(1);
    // The new worker received the live vectors (made before the restart) and takes parts of their sweeps.
    const out = new Float64Array(2);
    const ref = new Float64Array(2);
    const before = pool.workerParts;
    const until = Date.now() + 20_000;
    while (pool.workerParts === before && Date.now() < until) {
      pool.run(VECTOR_OP.DOT, live, 0, out);
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(pool.workerParts).toBeGreaterThan(before);
    for (let rep = 0; rep < 10; rep++) {
      const y1 = Float64Array.from(live[1]!);
      pool.run(VECTOR_OP.AXPY_DOT, [live[0]!, live[1]!, live[0]!], 0.25 * rep, out);
      serialVectorOps.run(VECTOR_OP.AXPY_DOT, [live[0]!, y1, live[0]!], 0.25 * rep, ref);
      expect(out[0]).toBe(ref[0]);
      expect(Array.from(live[1]!)).toEqual(Array.from(y1));
    }
    expect(fresh.buffer).toBeInstanceOf(SharedArrayBuffer);
  });
});

describe('wasmEngine threaded vectors (the default; threadedVectors: false turns them off)', () => {
  it('a fit whose vectors are past the threshold: the same bits as on the calling thread', () => {
    // 40 x 3,500 (about 41,000 parameters: the pool shares them).
    const { bank } = simulateFleet({ models: 40, items: 3500, seed: 3 });
    const threaded = wasmEngine({ threads: 2 });
    const plain = wasmEngine({ threads: 2, threadedVectors: false });
    expect(threaded.engine.vectors?.detail).toBe('L-BFGS vectors on 2 threads');
    expect(plain.engine.vectors).toBeUndefined();
    const a = fit(bank, { engine: threaded.engine, standardErrors: false });
    const b = fit(bank, { engine: plain.engine, standardErrors: false });
    expect(a.layout.size).toBeGreaterThan(MIN_SHARED_LENGTH);
    expect(a.passes).toBe(b.passes);
    expect(a.loss).toBe(b.loss);
    expect(Array.from(a.x)).toEqual(Array.from(b.x));
    // The worker took part (it starts within milliseconds; the fit sweeps for seconds).
    expect((threaded.engine.vectors as VectorPool).workerParts).toBeGreaterThan(0);
    // A plain result: the caller's x is not one of the pool's shared vectors.
    expect(a.x.buffer).toBeInstanceOf(ArrayBuffer);
    threaded.dispose();
    plain.dispose();
  });
});
