// L-BFGS's vector sweeps (core's fit/vectorOps.ts) in part on worker threads: each sweep is cut into
// core's VECTOR_PARTS fixed parts, claimed one at a time by the caller and the workers (as the
// kernel pool's blocks are, pool.ts), each part's sum written to its own slot and the slots added
// in part order by the caller. Every part runs core's own `vectorRange` (its source is the workers'
// code), so the bits are serialVectorOps' for any thread count and whoever ran which part.
//
// The vectors are SharedArrayBuffers made by `alloc` and posted to the workers once; a vector the
// workers have not received yet (or one not made here) is swept on the calling thread alone. A
// worker never lets go of a buffer it was sent (its heap is not collected while it only sweeps:
// buffers dropped there stayed resident), so no buffer is dropped one by one: `release`d vectors,
// and those the caller let be collected, are reused by later `alloc`s of their length. A program
// that fits banks of other sizes in turn (CV over several families, a server) would pile up free
// vectors of lengths no longer asked for, so when an `alloc` misses while FREE_RESTART_BYTES or
// more wait on the free lists, the pool drops them all and restarts its workers (whose heaps go
// with them), posting the new ones only the vectors still live.
//
// Why: at paper scale a fused axpy-dot over 371,000 doubles is bound by one core's memory
// bandwidth (1.3 ms), and the fit and its twin run about 13,000 of them; two processes sweeping at
// once each ran at full speed on the benchmark machine.
import { LlmNrmError } from '@llm-nrm/core';
import { runParts, sumParts, VECTOR_PARTS, vectorPart, vectorRange, type VectorOpCode, type VectorOps } from '@llm-nrm/core/engine';
import { INDEX_MASK, runClaimed, TAG_SHIFT } from './claim.js';
import type { WorkerHandle } from './pool.js';

/** Control slots (Int32Array): the generation, the next part (tag << 20 | index), parts done, the op. */
const C = { GEN: 0, NEXT: 1, DONE: 2, OP: 3, ERROR: 5, ARITY: 6, IDS: 8, BOUNDS: 16 } as const;
/** BOUNDS holds the parts' starts (core's vectorPart, computed by the caller): VECTOR_PARTS + 1 slots. */
const CTRL_SLOTS = C.BOUNDS + VECTOR_PARTS + 1;
const TAG_MASK = 0x7ff;
/** Below this many entries (a 256 KB vector, inside the caches) a sweep is not worth a thread. */
export const MIN_SHARED_LENGTH = 32768;
/**
 * Free vectors (bytes) from which an `alloc` that none of them fits restarts the workers and drops
 * them: within a fit every length recurs (the twin takes the fit's released vectors; at paper scale
 * 8 of 3 MB), so only another size's leftovers reach it.
 */
export const FREE_RESTART_BYTES = 16 * 1024 * 1024;
/** Loads of the generation a worker spins on after a sweep before it sleeps: a sweep's parts come back to back. */
const SPIN = 20000;

/** Starts a vector worker on the three shared buffers (control, the scalar, the part sums). */
export type VectorSpawn = (buffers: { ctrl: SharedArrayBuffer; scalar: SharedArrayBuffer; parts: SharedArrayBuffer }) => WorkerHandle;

/**
 * The worker's code: core's vectorRange (self-contained: it names nothing outside itself, so its
 * source runs as is, minified or not) and the claim loop; the parts' bounds come in the control
 * array. Plain JavaScript.
 */
export const VECTOR_WORKER_BODY = `
const VECTOR_PARTS = ${VECTOR_PARTS};
${vectorRange.toString()}
function vectorWorker(bufs, listen) {
  const C = ${JSON.stringify(C)};
  const ctrl = new Int32Array(bufs.ctrl);
  const scalar = new Float64Array(bufs.scalar);
  const parts = new Float64Array(bufs.parts);
  const arrays = new Map();
  listen((m) => {
    if (m.type === 'vector') arrays.set(m.id, new Float64Array(m.buffer));
  });
  const v = [];
  let gen = Atomics.load(ctrl, C.GEN);
  // One sweep's parts; false when its vectors are not all here yet (then the event loop must run).
  const sweep = () => {
    const tag = gen & ${TAG_MASK};
    const arity = ctrl[C.ARITY];
    v.length = 0;
    for (let i = 0; i < arity; i++) {
      const x = arrays.get(ctrl[C.IDS + i]);
      if (x === undefined) return false;
      v.push(x);
    }
    const op = ctrl[C.OP];
    const a = scalar[0];
    for (;;) {
      const x = Atomics.load(ctrl, C.NEXT);
      if ((x >>> ${TAG_SHIFT}) !== tag) break;
      const idx = x & ${INDEX_MASK};
      if (idx >= VECTOR_PARTS) break;
      // The tag is the generation modulo ${TAG_MASK + 1}: a worker stalled through that many sweeps
      // (about 50 ms of short ones on a loaded machine) would read a later sweep's NEXT as its own and
      // run a part of it with this sweep's vectors. The full generation must still be this one.
      if (Atomics.load(ctrl, C.GEN) !== gen) break;
      if (Atomics.compareExchange(ctrl, C.NEXT, x, x + 1) !== x) continue;
      try {
        vectorRange(op, v, a, ctrl[C.BOUNDS + idx], ctrl[C.BOUNDS + idx + 1], parts, 2 * idx);
      } catch (e) {
        Atomics.store(ctrl, C.ERROR, 1);
        console.error(e);
      }
      Atomics.add(ctrl, C.DONE, 1);
      Atomics.notify(ctrl, C.DONE);
    }
    return true;
  };
  const work = () => {
    for (;;) {
      gen = Atomics.load(ctrl, C.GEN);
      if (!sweep()) break;
      let k = 0;
      while (k < ${SPIN} && Atomics.load(ctrl, C.GEN) === gen) k++;
      if (Atomics.load(ctrl, C.GEN) === gen) break;
    }
    const r = Atomics.waitAsync(ctrl, C.GEN, gen);
    if (r.async) r.value.then(work);
    else setTimeout(work, 0);
  };
  work();
}
`;

/** VectorOps whose sweeps run in part on `threads - 1` worker threads (threads counts the caller). */
export class VectorPool implements VectorOps {
  readonly detail: string;
  readonly threads: number;
  private readonly ctrl: Int32Array;
  private readonly scalar: Float64Array;
  private readonly parts: Float64Array;
  private readonly workers: WorkerHandle[] = [];
  private readonly spawn: VectorSpawn;
  private readonly bufs: { ctrl: SharedArrayBuffer; scalar: SharedArrayBuffer; parts: SharedArrayBuffer };
  private readonly ids = new WeakMap<Float64Array, number>();
  /** Every buffer the workers hold, by id (live or free): what restarted workers are sent again. */
  private readonly buffers = new Map<number, SharedArrayBuffer>();
  /** Bytes on the free lists. */
  private freeBytes = 0;
  /** Vectors free for reuse, by length: the workers keep every buffer they were sent, so none is let go. */
  private readonly free = new Map<number, Float64Array[]>();
  /** The vectors now on a free list. */
  private readonly isFree = new WeakSet<Float64Array>();
  private readonly collected: FinalizationRegistry<{ id: number; buffer: SharedArrayBuffer }>;
  private readonly local = new Float64Array(2 * VECTOR_PARTS);
  private nextId = 1;
  private gen = 0;
  private disposed = false;
  /** Parts the workers ran over all sweeps (how much the threads took part). */
  workerParts = 0;
  /** Times the free vectors were dropped and the workers restarted (FREE_RESTART_BYTES). */
  restarts = 0;

  constructor(threads: number, spawn: VectorSpawn) {
    if (!(Number.isInteger(threads) && threads >= 1)) throw new LlmNrmError('INVALID_OPTION', `threads must be a positive integer, got ${threads}`);
    this.threads = threads;
    this.detail = `L-BFGS vectors on ${threads} threads`;
    const bufs = {
      ctrl: new SharedArrayBuffer(CTRL_SLOTS * 4),
      scalar: new SharedArrayBuffer(8),
      parts: new SharedArrayBuffer(2 * VECTOR_PARTS * 8),
    };
    this.ctrl = new Int32Array(bufs.ctrl);
    this.scalar = new Float64Array(bufs.scalar);
    this.parts = new Float64Array(bufs.parts);
    this.spawn = spawn;
    this.bufs = bufs;
    this.spawnWorkers(threads - 1);
    // A vector collected without `release` (e.g. an L-BFGS memory nobody continued): its buffer,
    // held here, goes back to the free list under a new view.
    this.collected = new FinalizationRegistry(({ id, buffer }) => {
      if (!this.disposed && this.buffers.has(id)) this.recycle(new Float64Array(buffer), id);
    });
  }

  alloc(n: number): Float64Array {
    if (this.disposed || this.workers.length === 0 || n < MIN_SHARED_LENGTH) return new Float64Array(n);
    const reuse = this.free.get(n)?.pop();
    if (reuse !== undefined) {
      this.isFree.delete(reuse);
      this.freeBytes -= reuse.byteLength;
      reuse.fill(0);
      return reuse;
    }
    if (this.freeBytes >= FREE_RESTART_BYTES) this.restart();
    const buffer = new SharedArrayBuffer(n * 8);
    const id = this.nextId++;
    this.buffers.set(id, buffer);
    this.post(id, buffer);
    const v = new Float64Array(buffer);
    this.ids.set(v, id);
    this.collected.register(v, { id, buffer }, v);
    return v;
  }

  release(v: Float64Array): void {
    const id = this.ids.get(v);
    // Freed once: a second release of the same vector must not hand it out twice.
    if (id === undefined || this.disposed || this.isFree.has(v)) return;
    this.collected.unregister(v);
    this.recycle(v, id);
  }

  private recycle(v: Float64Array, id: number): void {
    this.ids.set(v, id);
    this.isFree.add(v);
    this.collected.register(v, { id, buffer: v.buffer as SharedArrayBuffer }, v);
    let list = this.free.get(v.length);
    if (list === undefined) this.free.set(v.length, (list = []));
    list.push(v);
    this.freeBytes += v.byteLength;
  }

  /**
   * Drop the free vectors and restart the workers, sending the new ones every vector still live.
   * Called from `alloc`, between sweeps: no worker is inside one (run returns once every part is done).
   */
  private restart(): void {
    for (const list of this.free.values())
      for (const v of list) {
        this.collected.unregister(v);
        this.buffers.delete(this.ids.get(v)!);
        this.ids.delete(v);
      }
    this.free.clear();
    this.freeBytes = 0;
    for (const w of this.workers) w.terminate();
    const count = this.workers.length;
    this.workers.length = 0;
    this.spawnWorkers(count);
    for (const [id, buffer] of this.buffers) this.post(id, buffer);
    this.restarts++;
  }

  private spawnWorkers(count: number): void {
    for (let t = 0; t < count; t++) this.workers.push(this.spawn(this.bufs));
  }

  /** Send every worker a vector's buffer (once per worker: they keep it by id). */
  private post(id: number, buffer: SharedArrayBuffer): void {
    for (const w of this.workers) w.postMessage({ type: 'vector', id, buffer });
  }

  run(op: VectorOpCode, v: Float64Array[], a: number, out: Float64Array): void {
    const n = v[0]!.length;
    if (this.disposed || this.workers.length === 0 || n < MIN_SHARED_LENGTH) return runParts(op, v, a, out, this.local);
    const c = this.ctrl;
    for (let i = 0; i < v.length; i++) {
      const id = this.ids.get(v[i]!);
      if (id === undefined) return runParts(op, v, a, out, this.local);
      c[C.IDS + i] = id;
    }
    this.gen = (this.gen + 1) | 0;
    const tag = this.gen & TAG_MASK;
    // Parameters first, then NEXT (workers read them only after seeing the new GEN), then GEN.
    c[C.OP] = op;
    for (let p = 0; p <= VECTOR_PARTS; p++) c[C.BOUNDS + p] = vectorPart(n, p);
    c[C.ARITY] = v.length;
    this.scalar[0] = a;
    Atomics.store(c, C.ERROR, 0);
    Atomics.store(c, C.DONE, 0);
    Atomics.store(c, C.NEXT, tag << TAG_SHIFT);
    Atomics.store(c, C.GEN, this.gen);
    Atomics.notify(c, C.GEN);
    const parts = this.parts;
    const mine = runClaimed(c, C.NEXT, C.DONE, VECTOR_PARTS, true, (idx) => vectorRange(op, v, a, c[C.BOUNDS + idx]!, c[C.BOUNDS + idx + 1]!, parts, 2 * idx));
    this.workerParts += VECTOR_PARTS - mine;
    if (Atomics.load(c, C.ERROR) !== 0) throw new Error('engine-wasm: a worker failed in an L-BFGS vector sweep (its error went to stderr)');
    sumParts(op, this.parts, out);
  }

  /** Stop the workers; later sweeps run on the calling thread (the same bits). Safe to call twice. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const w of this.workers) w.terminate();
    this.workers.length = 0;
    this.free.clear();
    this.buffers.clear();
    this.freeBytes = 0;
  }

  get isDisposed(): boolean {
    return this.disposed;
  }
}
