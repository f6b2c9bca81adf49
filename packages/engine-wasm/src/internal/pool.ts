// A pool of worker threads that run kernel blocks on shared memory, driven synchronously: the
// caller posts a pass through a small shared control array, claims blocks itself like every
// worker, and waits (Atomics.wait; a spin where the thread may not block, i.e. a browser's main
// thread) until all blocks are done. Blocks are claimed dynamically, but each writes only its own
// partials, so the result does not depend on who ran what. A worker that has not started yet, or
// has not yet received a kernel, simply claims nothing: the pass never waits on it.
//
// Environment-free: the Node and browser entries pass a `spawn` that makes a worker from the
// source text below (src/internal/workerSource.ts).
import { LlmNrmError } from '@llm-nrm/core';
import { TASK, runTask, type KernelExports, type Task } from './module.js';
import type { VectorSpawn } from './vectorPool.js';
import { INDEX_MASK, runClaimed, TAG_SHIFT } from './claim.js';

/** Control slots (Int32Array over a SharedArrayBuffer). */
export const CTRL = { GEN: 0, NEXT: 1, DONE: 2, COUNT: 3, KERNEL: 4, HEADER: 5, FIRST: 6, ERROR: 7, TASK: 8, FLAGS: 16 } as const;
/**
 * Per-block done flags from CTRL.FLAGS on (the generation of the pass that finished block
 * FIRST + t at FLAGS + t, for t < FLAG_SLOTS): what `begin`'s caller reads to use a block's results
 * while the rest of the pass runs.
 */
export const FLAG_SLOTS = 64;
export const CTRL_SLOTS = CTRL.FLAGS + FLAG_SLOTS;
const TAG_MASK = 0x7ff;

/** What the pool needs of a worker (Node's worker_threads.Worker and the web Worker both fit). */
export interface WorkerHandle {
  postMessage(message: unknown): void;
  terminate(): unknown;
}

export interface PoolPlatform {
  /** Start a worker running the pool's worker source with the control buffer. */
  spawn(ctrl: SharedArrayBuffer): WorkerHandle;
  /** Whether this thread may block in Atomics.wait (not a browser's main thread). */
  canBlock: boolean;
  /** Start a worker for L-BFGS's vector sweeps (vectorPool.ts); absent: they run on the calling thread. */
  spawnVectors?: VectorSpawn;
}

/** Worker threads shared by any number of kernels (each attached by id with its memory). */
export class BlockPool {
  readonly threads: number;
  private readonly ctrl: Int32Array;
  private readonly workers: WorkerHandle[];
  private readonly canBlock: boolean;
  private gen = 0;
  /** Blocks run by the workers (not the caller) over all passes: how much the threads took part. */
  workerBlocks = 0;
  private nextId = 1;
  private disposed = false;

  /** `threads` counts the calling thread: threads - 1 workers are started. */
  constructor(threads: number, platform: PoolPlatform) {
    if (!(Number.isInteger(threads) && threads >= 1)) throw new LlmNrmError('INVALID_OPTION', `threads must be a positive integer, got ${threads}`);
    this.threads = threads;
    this.canBlock = platform.canBlock;
    const buf = new SharedArrayBuffer(CTRL_SLOTS * 4);
    this.ctrl = new Int32Array(buf);
    this.workers = [];
    for (let t = 1; t < threads; t++) this.workers.push(platform.spawn(buf));
  }

  /** Give every worker an instance of `module` on `memory`; returns the id passes refer to. */
  attach(module: WebAssembly.Module, memory: WebAssembly.Memory): number {
    this.checkOpen();
    const id = this.nextId++;
    for (const w of this.workers) w.postMessage({ type: 'attach', id, module, memory });
    return id;
  }

  /** Let the workers drop their instance of kernel `id` (and so its memory). */
  detach(id: number): void {
    if (this.disposed) return;
    for (const w of this.workers) w.postMessage({ type: 'detach', id });
  }

  /**
   * Run blocks [b0, b1) of kernel `id` (header address `header`), the calling thread taking part
   * through `local`; returns when every block is done. `task`: the loss pass (default) or a
   * curvature pass.
   */
  run(id: number, header: number, b0: number, b1: number, local: KernelExports, task: Task = TASK.LOSS): void {
    this.checkOpen();
    if (this.open !== null) throw new LlmNrmError('INVALID_OPTION', 'a pass begun on this pool is still open (end it first)');
    const n = b1 - b0;
    if (n <= 0) return;
    if (n === 1 || this.workers.length === 0) {
      for (let b = b0; b < b1; b++) runTask(local, task, header, b);
      return;
    }
    if (n > INDEX_MASK) throw new LlmNrmError('INVALID_OPTION', `too many blocks for one pass: ${n}`);
    const c = this.ctrl;
    this.publish(id, header, b0, n, task);
    const mine = runClaimed(c, CTRL.NEXT, CTRL.DONE, n, this.canBlock, (idx) => runTask(local, task, header, b0 + idx));
    this.workerBlocks += n - mine;
    if (Atomics.load(c, CTRL.ERROR) !== 0) {
      throw new Error('engine-wasm: a worker failed while running a kernel block (its error went to stderr)');
    }
  }

  /** A new pass of n blocks from b0 for the workers: a new generation, its parameters, then its start. */
  private publish(id: number, header: number, b0: number, n: number, task: Task): void {
    const c = this.ctrl;
    this.gen = (this.gen + 1) | 0;
    const tag = this.gen & TAG_MASK;
    // Parameters first, then NEXT (workers read them only after seeing NEXT's new tag), then GEN.
    c[CTRL.COUNT] = n;
    c[CTRL.KERNEL] = id;
    c[CTRL.HEADER] = header;
    c[CTRL.FIRST] = b0;
    c[CTRL.TASK] = task;
    Atomics.store(c, CTRL.ERROR, 0);
    Atomics.store(c, CTRL.DONE, 0);
    Atomics.store(c, CTRL.NEXT, tag << TAG_SHIFT);
    Atomics.store(c, CTRL.GEN, this.gen);
    Atomics.notify(c, CTRL.GEN);
  }

  /** The pass `begin` started and `end` has not closed: its block count and the caller's kernel. */
  private open: { n: number; header: number; local: KernelExports; task: Task } | null = null;

  /**
   * Start blocks [b0, b1) (at most FLAG_SLOTS) of kernel `id` on the workers and return at once:
   * the calling thread then runs blocks with `step`, asks `done` which ones are finished, and must
   * close the pass with `end` before any other. Each block still writes only its own results, so
   * they are the same as `run`'s whoever runs which; what the caller gains is to use the finished
   * blocks' results (e.g. assemble from them) while the workers run the rest.
   */
  begin(id: number, header: number, b0: number, b1: number, local: KernelExports, task: Task): void {
    this.checkOpen();
    const n = b1 - b0;
    if (n > FLAG_SLOTS) throw new LlmNrmError('INVALID_OPTION', `too many blocks for an overlapped pass: ${n}`);
    this.publish(id, header, b0, n, task);
    this.open = { n, header, local, task };
    this.firstBlock = b0;
    this.mine = 0;
  }

  private firstBlock = 0;
  /** Blocks of the open pass the calling thread ran. */
  private mine = 0;

  /** Run the next unclaimed block of the open pass here; false when every block is claimed. */
  step(): boolean {
    const o = this.open!;
    const c = this.ctrl;
    for (;;) {
      const v = Atomics.load(c, CTRL.NEXT);
      const idx = v & INDEX_MASK;
      if (idx >= o.n) return false;
      if (Atomics.compareExchange(c, CTRL.NEXT, v, v + 1) !== v) continue;
      runTask(o.local, o.task, o.header, this.firstBlock + idx);
      Atomics.store(c, CTRL.FLAGS + idx, this.gen);
      Atomics.add(c, CTRL.DONE, 1);
      this.mine++;
      return true;
    }
  }

  /** Whether block b0 + t of the open pass is finished (its results readable). */
  done(t: number): boolean {
    return Atomics.load(this.ctrl, CTRL.FLAGS + t) === this.gen;
  }

  /** Until block b0 + t of the open pass is finished: run unclaimed blocks here, else wait. */
  waitFor(t: number): void {
    const c = this.ctrl;
    while (!this.done(t)) {
      if (this.step()) continue;
      const d = Atomics.load(c, CTRL.DONE);
      // The workers notify DONE after each block (their flag first).
      if (!this.done(t) && this.canBlock) Atomics.wait(c, CTRL.DONE, d, 1000);
    }
  }

  /** Close the open pass: run what is left here, wait for the workers' blocks, report their errors. */
  end(): void {
    const o = this.open;
    if (o === null) return;
    while (this.step());
    for (let t = 0; t < o.n; t++) this.waitFor(t);
    this.open = null;
    this.workerBlocks += o.n - this.mine;
    if (Atomics.load(this.ctrl, CTRL.ERROR) !== 0) {
      throw new Error('engine-wasm: a worker failed while running a kernel block (its error went to stderr)');
    }
  }

  /** Stop the workers; the pool cannot run passes afterwards. Safe to call twice. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const w of this.workers) w.terminate();
    this.workers.length = 0;
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  private checkOpen(): void {
    if (this.disposed) throw new LlmNrmError('INVALID_OPTION', 'this wasm thread pool was disposed');
  }
}
