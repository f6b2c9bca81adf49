// The engine object: builds objectives for core layouts, the LLM-NRM family on the wasm kernel,
// the binary 1PL-4PL family on core's binaryObjective with its cell pass on the wasm binary kernel
// (binaryKernel.ts; f64, by default the same bits as core's TypeScript pass). Threaded engines share one process-wide
// pool per thread count, so however many engines and fits a program makes, it holds at most
// threads - 1 workers per count (idle, unref'd); `disposeWasmThreads()` stops them.
import { type CurvatureBuilder, type Engine, type Layout, type Objective, type Priors, type ResponseBank } from '@llm-nrm/core';
import { binaryObjective, correctness } from '@llm-nrm/core/engine';
import { wasmBinaryKernel, type BinaryPass } from './binaryKernel.js';
import { createWasmObjective, type WasmObjective } from './objective.js';
import { sharedMemorySupported } from './module.js';
import { BlockPool, type PoolPlatform } from './pool.js';
import { VectorPool } from './vectorPool.js';

export interface WasmEngineOptions {
  /** Threads per pass, the calling one included (default 1). */
  threads?: number;
  /** Run on this pool (owned by the caller) instead of the process-wide one for `threads`. */
  pool?: BlockPool;
  /** Cells per LLM row the preconditioner's LLM blocks sum (WasmObjectiveOptions; default 2,000). */
  curvatureRowCells?: number;
  /** The preconditioner's cell work, 'f32' lanes (default) or scalar 'f64' (WasmObjectiveOptions). */
  curvaturePrecision?: 'f32' | 'f32-rows' | 'f64';
  /**
   * The binary (1PL-4PL) full pass (binaryKernel.ts BinaryPass) for every binary objective: 'phased'
   * gives core's bits; 'simd' is about 2x cheaper again but not core's bits (within
   * 1e-12). Default: 'simd' for families that allow a fast kernel (`ModelFamily.fastKernel`,
   * passed as `{ layout, fastKernel }`: 3PL and 4PL), else 'phased' (packages/engine-wasm/BENCHMARKS.md,
   * "Binary kernel").
   */
  binaryPass?: BinaryPass;
  /**
   * L-BFGS's vector sweeps of fits on this engine (`engine.vectors`) in part on `threads - 1`
   * worker threads of their own (Node, threads > 1), the same bits as on the calling thread (core's
   * fit/vectorOps.ts). Default true (where the platform can: not a browser's main thread); false:
   * every sweep on the calling thread. At paper scale it takes 5-8% off the default fit's time for
   * about 50 MB more peak RSS than serial sweeps (906 MB; BENCHMARKS.md "The SEs' memory, and
   * threaded L-BFGS vectors by default").
   */
  threadedVectors?: boolean;
}

/** An objective of the engine: core's `Objective` plus `dispose` (a no-op for binary objectives, whose wasm memory goes with them). */
export type EngineObjective = Objective & { dispose(): void; readonly engine: 'wasm' };

export interface WasmEngine {
  readonly name: 'wasm';
  readonly threads: number;
  /**
   * The objective of `layout` on `bank`: LLM-NRM layouts (NRM included) on the wasm kernel, binary
   * layouts on core's `binaryObjective` over `correctness(bank)` with the wasm binary cell pass. Also accepts `{ layout }` (e.g.
   * a model family object that carries its layout), with the family's `fastKernel` (binaryPass's default).
   */
  objective(bank: ResponseBank, layout: Layout | { layout: Layout; fastKernel?: boolean }, priors?: Priors): EngineObjective;
  /**
   * The curvature builder of an objective this engine made on the wasm kernel (its `curvature`,
   * core's `Engine.curvature` seam), or null (binary layouts, objectives from elsewhere, wrappers).
   */
  curvature(objective: Objective): CurvatureBuilder | null;
  /**
   * This engine as core's `Engine`, for `fit(bank, { engine: w.engine })`: the family's layout (and
   * its `fastKernel`) handed to `objective`, and `curvature` for the objectives it made.
   */
  readonly engine: Engine & { readonly name: 'wasm'; readonly detail: string };
  /** Dispose every objective this engine made that is still alive (their kernels leave the pool). */
  dispose(): void;
}

/** Something a process shares per platform and thread count: a kernel pool, a vector pool. */
interface SharedWorkers {
  readonly isDisposed: boolean;
  dispose(): void;
}

/** Process-wide worker sets, one per platform and thread count (made again once disposed). */
class SharedByCount<T extends SharedWorkers> {
  private readonly byPlatform = new Map<PoolPlatform, Map<number, T>>();
  constructor(private readonly make: (threads: number, platform: PoolPlatform) => T) {}
  get(threads: number, platform: PoolPlatform): T {
    let byCount = this.byPlatform.get(platform);
    if (byCount === undefined) this.byPlatform.set(platform, (byCount = new Map()));
    let pool = byCount.get(threads);
    if (pool === undefined || pool.isDisposed) byCount.set(threads, (pool = this.make(threads, platform)));
    return pool;
  }
  disposeAll(): void {
    for (const byCount of this.byPlatform.values()) for (const pool of byCount.values()) pool.dispose();
    this.byPlatform.clear();
  }
}

const sharedPools = new SharedByCount((threads, platform) => new BlockPool(threads, platform));
/** The L-BFGS vector workers, as the kernel pools: one set per thread count. */
const sharedVectors = new SharedByCount((threads, platform) => new VectorPool(threads, platform.spawnVectors!));

/** Stop the process-wide worker pools of the engines (they restart on the next threaded pass). */
export function disposeWasmThreads(): void {
  sharedPools.disposeAll();
  sharedVectors.disposeAll();
}

export function createWasmEngine(options: WasmEngineOptions, platform: PoolPlatform | null): WasmEngine {
  const threads = options.pool?.threads ?? options.threads ?? 1;
  const usePool = options.pool !== undefined || (threads > 1 && platform !== null && sharedMemorySupported());
  // Threaded vector sweeps (unless turned off) where the threads can block (Node; a browser's main
  // thread cannot) and the platform starts vector workers; made on first use.
  const vectors = usePool && platform !== null && platform.canBlock && platform.spawnVectors !== undefined && options.threadedVectors !== false;
  const vectorsOf = (): VectorPool => sharedVectors.get(threads, platform!);
  const made = new Set<WeakRef<WasmObjective>>();
  const mine = new WeakSet<Objective>();
  const w: WasmEngine = {
    name: 'wasm',
    threads: usePool ? threads : 1,
    objective(bank, layoutOrFamily, priors = {}) {
      const layout = 'kind' in layoutOrFamily ? layoutOrFamily : layoutOrFamily.layout;
      if (layout.kind === 'binary') {
        // On the calling thread (one wasm instance per objective; its memory goes with it).
        const fast = !('kind' in layoutOrFamily) && layoutOrFamily.fastKernel === true;
        const pass = options.binaryPass ?? (fast ? 'simd' : 'phased');
        const o = binaryObjective(bank, layout, correctness(bank), priors, { kernel: (cells) => wasmBinaryKernel(cells, { pass }) });
        return { ...o, engine: 'wasm', dispose() {} };
      }
      let pool = options.pool;
      if (pool === undefined && usePool) {
        pool = sharedPools.get(threads, platform!);
      }
      const rowCells = {
        ...(options.curvatureRowCells === undefined ? {} : { curvatureRowCells: options.curvatureRowCells }),
        ...(options.curvaturePrecision === undefined ? {} : { curvaturePrecision: options.curvaturePrecision }),
      };
      const o: WasmObjective = createWasmObjective(bank, layout, priors, pool === undefined ? rowCells : { pool, ...rowCells }, platform);
      for (const r of made) if (r.deref() === undefined) made.delete(r);
      made.add(new WeakRef(o));
      mine.add(o);
      return Object.assign(o, { engine: 'wasm' as const });
    },
    curvature(objective) {
      return mine.has(objective) ? (objective as WasmObjective).curvature : null;
    },
    engine: {
      name: 'wasm',
      detail: 'WebAssembly SIMD kernel (@llm-nrm/engine-wasm); 1PL-4PL on its f64 binary kernel',
      objective: (bank, family, priors) => w.objective(bank, { layout: family.layout(bank), fastKernel: family.fastKernel === true }, priors),
      // The preconditioner's curvature on the kernel too (parallel over rows and items).
      curvature: (_bank, _family, _priors, objective) => w.curvature(objective),
    },
    dispose() {
      for (const r of made) r.deref()?.dispose();
      made.clear();
    },
  };
  // L-BFGS's vector sweeps on as many threads as the passes (the same bits as on one), the workers
  // started on a fit's first use.
  if (vectors) Object.defineProperty(w.engine, 'vectors', { get: vectorsOf, enumerable: true });
  return w;
}
