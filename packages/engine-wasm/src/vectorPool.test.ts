// L-BFGS's vector sweeps on worker threads (internal/vectorPool.ts): the same bits as core's
// serialVectorOps sweep by sweep and for a whole fit, the workers really taking parts, and the
// vectors reused rather than dropped.
import { fit, serialVectorOps, simulateFleet, VECTOR_OP } from '@llm-nrm/core';
import { afterAll, describe, expect, it } from 'vitest';
import { nodePlatform } from './internal/nodePlatform.js';
import { MIN_SHARED_LENGTH, VectorPool } from './internal/vectorPool.js';
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
});

describe('wasmEngine({ threadedVectors: true })', () => {
  it('a fit whose vectors are past the threshold: the same bits as the default engine', () => {
    // 40 x 3,500 (about 41,000 parameters: the pool shares them).
    const { bank } = simulateFleet({ models: 40, items: 3500, seed: 3 });
    const threaded = wasmEngine({ threads: 2, threadedVectors: true });
    const plain = wasmEngine({ threads: 2 });
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
