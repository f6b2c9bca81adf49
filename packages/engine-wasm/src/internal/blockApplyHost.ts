// The block preconditioner's solves (core's Blocks.apply / applyPair) on the pool's threads: a
// refresh's factors are packed into a shared memory of their own (a second instance of the kernel
// module, assembly/blockApply.ts), and each solve copies its right-hand sides in, runs fixed
// tasks of consecutive blocks on the pool, and copies the results out. Every block is the
// TypeScript's operations in the same order and blocks write disjoint entries, so the results are
// core's bits for any thread count. At paper scale an L-BFGS iteration's pair of solves was about
// 45 CPU ms of the main thread while the workers waited (packages/engine-wasm/BENCHMARKS.md, "paper60b").
import type { CurvatureAt } from '@llm-nrm/core';
import type { BlockApplier } from '@llm-nrm/core/engine';
import { TASK, kernelModule, type KernelExports } from './module.js';
import { PAGE, bumpAllocator } from './memoryLayout.js';
import type { BlockPool } from './pool.js';

type Blocks = CurvatureAt['blocks'];

/** Header slots (i32) shared with assembly/blockApply.ts. */
const BA = { TASKS: 0, PAIR: 1, MAXP: 2, TASK_START: 3, OFF: 4, LO: 5, IX: 6, BK: 7, CAP: 8, V1: 9, V2: 10, OUT1: 11, OUT2: 12, SCRATCH: 13 } as const;
const HEADER_SLOTS = 16;
/** Tasks a solve is cut into (consecutive blocks of about equal triangle entries), for balance. */
const TASKS = 32;

interface Layout {
  memory: WebAssembly.Memory;
  exports: KernelExports;
  id: number;
  header: number;
  bytes: number;
  hdr: Int32Array;
  off: Int32Array;
  lo: Int32Array;
  ix: Int32Array;
  Bk: Float64Array;
  cap: Float64Array;
  v1: Float64Array;
  v2: Float64Array;
  out1: Float64Array;
  out2: Float64Array;
  starts: Int32Array;
}

/** One objective's solves on `pool` (whose kernel ids it attaches and detaches). */
export class BlockApplyHost {
  private at: Layout | null = null;
  /** Bumped by every install: an applier of older factors falls back to core's TypeScript. */
  private gen = 0;
  private mark = new Uint8Array(0);

  constructor(private readonly pool: BlockPool) {}

  /**
   * Pack `blocks` (size n parameters) into the shared memory and let them solve there. Returns
   * false (and leaves them to core) where a parameter is in two blocks: the order of their writes
   * would then depend on the threads.
   */
  install(blocks: Blocks, n: number): boolean {
    const sz = blocks.packedSizes();
    const B = sz.blocks;
    if (B < 2) return false;
    if (this.mark.length < n) this.mark = new Uint8Array(n);
    const T = Math.min(TASKS, B);
    const L = this.layout(B, sz.indices, sz.triangle, sz.maxP, n, T);
    blocks.packInto(L.off, L.lo, L.ix, L.Bk, L.cap);
    const mark = this.mark;
    mark.fill(0, 0, n);
    for (let t = 0; t < sz.indices; t++) {
      const i = L.ix[t]!;
      if (mark[i] !== 0) return false;
      mark[i] = 1;
    }
    // Entries in no block stay 0 in the outputs (apply's out.fill(0)): zeroed here, never written.
    L.out1.fill(0);
    L.out2.fill(0);
    // Task t: blocks [starts[t], starts[t + 1]), cut at equal shares of the triangle entries.
    const tri = L.lo[B]!;
    L.starts[0] = 0;
    let b = 0;
    for (let t = 1; t < T; t++) {
      const goal = (tri * t) / T;
      while (b < B && L.lo[b]! < goal) b++;
      L.starts[t] = Math.max(L.starts[t - 1]!, b);
    }
    L.starts[T] = B;
    L.hdr[BA.TASKS] = T;
    L.hdr[BA.MAXP] = sz.maxP;
    const gen = ++this.gen;
    const applier: BlockApplier = {
      apply: (v, out) => {
        if (gen !== this.gen || this.at !== L) return this.fallback(blocks, (b) => b.apply(v, out));
        L.v1.set(v);
        this.run(L, 0);
        out.set(L.out1);
      },
      applyPair: (v1, out1, v2, out2) => {
        if (gen !== this.gen || this.at !== L) return this.fallback(blocks, (b) => b.applyPair(v1, out1, v2, out2));
        L.v1.set(v1);
        L.v2.set(v2);
        this.run(L, 1);
        out1.set(L.out1);
        out2.set(L.out2);
      },
    };
    blocks.setApplier(applier);
    return true;
  }

  /** Detach from the pool (the objective's dispose). */
  dispose(): void {
    if (this.at !== null) this.pool.detach(this.at.id);
    this.at = null;
    this.gen++;
  }

  private fallback(blocks: Blocks, f: (b: Blocks) => void): void {
    blocks.setApplier(null);
    f(blocks);
  }

  private run(L: Layout, pair: 0 | 1): void {
    L.hdr[BA.PAIR] = pair;
    this.pool.run(L.id, L.header, 0, L.hdr[BA.TASKS]!, L.exports, TASK.APPLY);
  }

  /** The memory laid out for these sizes (the last one where it is large enough: a fit's refreshes all have the same). */
  private layout(B: number, nIx: number, nTri: number, maxP: number, n: number, T: number): Layout {
    const mem = bumpAllocator(16);
    const alloc = mem.alloc;
    const p = {
      header: alloc(HEADER_SLOTS * 4),
      starts: alloc((T + 1) * 4),
      off: alloc((B + 1) * 4),
      lo: alloc((B + 1) * 4),
      ix: alloc(nIx * 4),
      Bk: alloc(nTri * 8),
      cap: alloc(B * 8),
      v1: alloc(n * 8),
      v2: alloc(n * 8),
      out1: alloc(n * 8),
      out2: alloc(n * 8),
      scratch: alloc(T * 2 * maxP * 8),
    };
    const at = mem.end;
    let L = this.at;
    if (L === null || L.bytes < at) {
      if (L !== null) this.pool.detach(L.id);
      const pages = Math.ceil(at / PAGE);
      const memory = new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true });
      const module = kernelModule('shared');
      const exports = new WebAssembly.Instance(module, { env: { memory } }).exports as unknown as KernelExports;
      const id = this.pool.attach(module, memory);
      L = { memory, exports, id, bytes: pages * PAGE } as Layout;
    }
    const buf = L.memory.buffer;
    const hdr = new Int32Array(buf, p.header, HEADER_SLOTS);
    const slots: [number, number][] = [
      [BA.TASK_START, p.starts],
      [BA.OFF, p.off],
      [BA.LO, p.lo],
      [BA.IX, p.ix],
      [BA.BK, p.Bk],
      [BA.CAP, p.cap],
      [BA.V1, p.v1],
      [BA.V2, p.v2],
      [BA.OUT1, p.out1],
      [BA.OUT2, p.out2],
      [BA.SCRATCH, p.scratch],
    ];
    for (const [slot, ptr] of slots) hdr[slot] = ptr;
    this.at = {
      memory: L.memory,
      exports: L.exports,
      id: L.id,
      bytes: L.bytes,
      header: p.header,
      hdr,
      starts: new Int32Array(buf, p.starts, T + 1),
      off: new Int32Array(buf, p.off, B + 1),
      lo: new Int32Array(buf, p.lo, B + 1),
      ix: new Int32Array(buf, p.ix, nIx),
      Bk: new Float64Array(buf, p.Bk, nTri),
      cap: new Float64Array(buf, p.cap, B),
      v1: new Float64Array(buf, p.v1, n),
      v2: new Float64Array(buf, p.v2, n),
      out1: new Float64Array(buf, p.out1, n),
      out2: new Float64Array(buf, p.out2, n),
    };
    return this.at;
  }
}
