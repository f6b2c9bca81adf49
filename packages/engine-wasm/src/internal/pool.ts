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

/** Control slots (Int32Array over a SharedArrayBuffer). */
export const CTRL = { GEN: 0, NEXT: 1, DONE: 2, COUNT: 3, KERNEL: 4, HEADER: 5, FIRST: 6, ERROR: 7, TASK: 8 } as const;
export const CTRL_SLOTS = 16;
/** NEXT holds (generation tag << TAG_SHIFT) | next block index. */
export const TAG_SHIFT = 20;
const TAG_MASK = 0x7ff;
const INDEX_MASK = (1 << TAG_SHIFT) - 1;

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
    const n = b1 - b0;
    if (n <= 0) return;
    if (n === 1 || this.workers.length === 0) {
      for (let b = b0; b < b1; b++) runTask(local, task, header, b);
      return;
    }
    if (n > INDEX_MASK) throw new LlmNrmError('INVALID_OPTION', `too many blocks for one pass: ${n}`);
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
    let mine = 0;
    for (;;) {
      const v = Atomics.load(c, CTRL.NEXT);
      const idx = v & INDEX_MASK;
      if (idx >= n) break;
      if (Atomics.compareExchange(c, CTRL.NEXT, v, v + 1) !== v) continue;
      runTask(local, task, header, b0 + idx);
      mine++;
      Atomics.add(c, CTRL.DONE, 1);
    }
    this.workerBlocks += n - mine;
    for (;;) {
      const d = Atomics.load(c, CTRL.DONE);
      if (d >= n) break;
      if (this.canBlock) Atomics.wait(c, CTRL.DONE, d, 1000);
    }
    if (Atomics.load(c, CTRL.ERROR) !== 0) {
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
