// The LLM-NRM objective on the wasm kernel: core's `Objective` with the same loss and gradient as
// core's `llmNrmObjective` (paper.md, LLM-NRM; priors, gate difficulty guard, row ranges and prior
// switches as there). The data pass runs in wasm; the O(#parameters) parts stay in TypeScript
// around it: parameters in (f64 -> f32), the gate difficulties b_i and their backward pass (core's
// `computeDifficulties` / `difficultyBackward`), the priors and the free mask.
import {
  LlmNrmError,
  getFamily,
  sigmoid,
  softplus,
  type CurvatureAt,
  type CurvatureOptions,
  type EvalScope,
  type LlmNrmLayout,
  type Objective,
  type Priors,
  type ResponseBank,
} from '@llm-nrm/core';
import {
  priorPrecisions,
  computeDifficulties,
  difficultyBackward,
  finishLlmNrmPass,
  llmNrmCorrectionInputs,
  llmNrmCorrectionsFromSums,
  llmNrmCurvatureFromSums,
  llmNrmRowBlocksFromSums,
  freeMask,
} from '@llm-nrm/core/engine';
import { LlmNrmKernel, type KernelLayoutOptions } from './kernelHost.js';
import { TASK, kernelModule, runTask, sharedMemorySupported } from './module.js';
import { BlockApplyHost } from './blockApplyHost.js';
import { BlockPool, FLAG_SLOTS, type PoolPlatform } from './pool.js';

export interface WasmObjectiveOptions extends KernelLayoutOptions {
  /**
   * Threads for the data pass, the calling one included (default 1). More than 1 needs shared
   * memory (Node; browsers: cross-origin isolated pages); where it is missing the objective runs
   * on one thread (see `threads` of the result).
   */
  threads?: number;
  /** Run on this pool's workers (e.g. an engine's, shared by its objectives) instead of a private one. */
  pool?: BlockPool;
  /**
   * About how many cells of each LLM row the curvature's LLM blocks sum (every stride-th column,
   * stride = floor(columns / this), scaled back): default 2,000, which leaves banks of up to 3,999
   * columns exact (at 189 x 2,000 a stride of 4 halved a refresh, but moved one fleet of four to
   * another basin of a weak item, 0.1 nats higher) and reads every 15th column at paper scale;
   * 0 or Infinity: every cell. The item blocks always use every cell.
   */
  curvatureRowCells?: number;
  /**
   * The preconditioner's cell work: 'f32' (default) in f32x4 lanes over four LLM rows, on the loss
   * kernel's f32 parameters, sums flushed to f64 every 32 cells (assembly/curvature4.ts); 'f64' in
   * scalar f64 (assembly/curvature.ts), the blocks of core's TypeScript curvature to about 1e-14.
   * 'f32-rows': the rows pass in lanes, the items pass in f64. The standard errors' passes are always f64.
   */
  curvaturePrecision?: 'f32' | 'f32-rows' | 'f64';
}

/** core's `Objective`, plus what the wasm engine adds. */
export interface WasmObjective extends Objective {
  /** Threads a pass runs on (the calling one included). */
  readonly threads: number;
  /** Fixed blocks a pass is cut into (the same for every thread count). */
  readonly blocks: number;
  /** Bytes of kernel memory (data, parameters, per-block partials). */
  readonly memoryBytes: number;
  /**
   * The block Gauss-Newton curvature at x (core's `llmNrmCurvature`, the preconditioner's refresh)
   * with its cell sums on the kernel, parallel over fixed blocks of LLM rows and of items: the same
   * blocks to float tolerance (the LLM blocks from a subset of each row's cells on banks of 1,000+
   * columns: `curvatureRowCells`), the same bits for any thread count. With `cross` (the standard
   * errors' first pass) every cell counts, and the kernel also sums the cross blocks (LLM-globals,
   * item-globals) that core turns into `llmGlobals`, `globals`, `itemGlobals` and `itemGN`;
   * the SEs' second pass (`itemInverse` with `correctionOnly`: the item corrections) runs on the
   * kernel too (f64) for banks with one cell per (LLM, item) pair, else in core's TypeScript curvature.
   */
  curvature(x: Float64Array, free: Uint8Array, opts?: CurvatureOptions): CurvatureAt;
  /** New targets q on the same cells, copied into the kernel's lanes (core's Objective.retarget). */
  retarget(q: Float32Array): void;
  /** The model's own p at x as the targets of every observed cell, by one kernel pass (core's Objective.predictTargets). */
  predictTargets(x: Float64Array): void;
  /** Stop this objective's private workers and release its kernel from a shared pool. Idempotent. */
  dispose(): void;
}

interface Held {
  pool: BlockPool | null;
  owned: boolean;
  id: number;
  /** The preconditioner's solves on the pool (threaded objectives). */
  solves: BlockApplyHost | null;
}

const registry = typeof FinalizationRegistry === 'undefined' ? null : new FinalizationRegistry<Held>((held) => release(held));

function release(held: Held): void {
  if (held.pool === null) return;
  held.solves?.dispose();
  held.solves = null;
  if (held.owned) held.pool.dispose();
  else held.pool.detach(held.id);
  held.pool = null;
}

export function createWasmObjective(
  bank: ResponseBank,
  layout: LlmNrmLayout,
  priors: Priors,
  options: WasmObjectiveOptions,
  platform: PoolPlatform | null,
): WasmObjective {
  if (layout.kind !== 'llm-nrm')
    throw new LlmNrmError('INVALID_OPTION', `the wasm kernel computes LLM-NRM layouts, got ${String((layout as { kind?: unknown }).kind)}`);
  const requested = options.pool?.threads ?? options.threads ?? 1;
  if (!(Number.isInteger(requested) && requested >= 1)) throw new LlmNrmError('INVALID_OPTION', `threads must be a positive integer, got ${requested}`);
  const threaded = requested > 1 && (options.pool !== undefined || (platform !== null && sharedMemorySupported()));
  const kernel = new LlmNrmKernel(bank, layout, threaded ? 'shared' : 'plain', options);
  // A preconditioner block of 2 + 2 kMax parameters needs a few thousand cells, not 31,554: at
  // paper scale the rows pass was half of a refresh (BENCHMARKS.md, "The curvature refresh").
  const rowCells = options.curvatureRowCells ?? 2000;
  kernel.setCurvatureRowStride(rowCells > 0 && Number.isFinite(rowCells) ? Math.floor(bank.colItem.length / rowCells) : 1);
  const held: Held = { pool: null, owned: false, id: 0, solves: null };
  if (threaded) {
    held.pool = options.pool ?? new BlockPool(requested, platform!);
    held.owned = options.pool === undefined;
    held.id = held.pool.attach(kernelModule('shared'), kernel.memory);
    held.solves = new BlockApplyHost(held.pool);
  }

  const free = freeMask(layout);
  const prec = priorPrecisions(priors);
  const { llm: lamLlm, sharpness: lamS } = prec;
  const J = layout.nModels;
  const I = layout.nItems;
  const kMax = layout.kMax;
  const sumK = layout.sumK;
  const { sharpness: useS, position: usePos, fallback: useFb } = layout.parts;
  const A = layout.a;
  const Cc = layout.c;
  const b = new Float64Array(I);
  const aux = new Float64Array(3 * I);
  const wts = new Float64Array(sumK);
  const gb = new Float64Array(I);
  const { th4, s4, dr4, acf, bf, gth, gs, gdelta, grho, outGac, outGb, outScalars } = kernel;

  // Parameters in, rounded to f32, for rows [r0, r1), the items and the gate difficulties `diff` (x's).
  function paramsIn(x: Float64Array, r0: number, r1: number, diff: Float64Array): void {
    // Parameters in, rounded to f32 (rows past the range are masked off in the kernel).
    // Lanes of the covered groups outside the range get neutral values (their q is masked to 0,
    // and finite parameters keep their zero contributions exactly zero).
    const lanesEnd = Math.min(J, (r1 + 3) & ~3);
    for (let j = r0 & ~3; j < lanesEnd; j++) {
      const lane = (j >> 2) * kMax * 8 + (j & 3);
      const inRange = j >= r0 && j < r1;
      th4[j] = inRange ? x[layout.theta + j]! : 0;
      s4[j] = inRange && useS ? softplus(x[layout.sbar + j]!) : 1;
      const dOff = layout.delta + j * kMax;
      const rOff = layout.rho + j * kMax;
      for (let k = 0; k < kMax; k++) {
        dr4[lane + 8 * k] = inRange && usePos ? x[dOff + k]! : 0;
        dr4[lane + 8 * k + 4] = inRange && useFb ? x[rOff + k]! : 0;
      }
    }
    for (let t = 0; t < sumK; t++) {
      acf[2 * t] = x[A + t]!;
      acf[2 * t + 1] = x[Cc + t]!;
    }
    if (useFb) bf.set(diff);
  }

  // A loss pass's set-up at x for rows [r0, r1): the gate's difficulties, the parameters in f32 and
  // the gate scalars; returns the blocks it covers.
  function setPassAt(x: Float64Array, r0: number, r1: number): [number, number] {
    if (held.pool === null && threaded) throw new LlmNrmError('INVALID_OPTION', 'this wasm objective was disposed');
    if (useFb) computeDifficulties(bank, x, A, Cc, b, aux, wts);
    paramsIn(x, r0, r1, b);
    return kernel.setPass(r0, r1, useFb ? x[layout.w0]! : 0, useFb ? softplus(x[layout.kbar]!) : 0);
  }

  // Blocks [b0, b1) of the set pass, on the pool or here.
  function runBlocks(b0: number, b1: number): void {
    if (held.pool !== null) held.pool.run(held.id, kernel.header, b0, b1, kernel.exports);
    else for (let blk = b0; blk < b1; blk++) kernel.exports.runBlock(kernel.header, blk);
  }

  // The twin's targets: a loss pass over every row at x whose cells write p into their lanes (f32,
  // on the kernel's f32 parameters) instead of summing the loss.
  function predictTargets(x: Float64Array): void {
    const [b0, b1] = setPassAt(x, 0, J);
    kernel.setPredictTargets(true);
    try {
      runBlocks(b0, b1);
    } finally {
      kernel.setPredictTargets(false);
    }
  }

  function lossAndGrad(x: Float64Array, g: Float64Array, scope: EvalScope = {}): number {
    const r0 = Math.max(0, scope.rowStart ?? 0);
    const r1 = Math.min(J, scope.rowEnd ?? J);
    const tp = scope.thetaPrior === false ? 0 : 1;
    const [b0, b1] = setPassAt(x, r0, r1);
    g.fill(0);
    const kappa = useFb ? softplus(x[layout.kbar]!) : 0;
    runBlocks(b0, b1);
    if (held.pool !== null) {
      // The blocks' partials added on the threads too (the same sums in the same order).
      if (kernel.setReduce(b0, b1)) held.pool.run(held.id, kernel.header, 0, kernel.reduceTasks, kernel.exports, TASK.REDUCE);
    } else {
      kernel.reduce(b0, b1);
    }

    let loss = outScalars[0]!;
    for (let j = r0; j < r1; j++) {
      const th = x[layout.theta + j]!;
      // Priors: theta ~ N(0, 1); log s ~ N(0, sharpnessSd^2); delta, rho ~ N(0, llmSd^2).
      loss += 0.5 * tp * th * th;
      g[layout.theta + j] = gth[j]! + tp * th;
      if (useS) {
        const sb = x[layout.sbar + j]!;
        const s = softplus(sb);
        const ls = Math.log(s);
        loss += 0.5 * lamS * ls * ls;
        // d log s / d sbar = sigmoid(sbar) / s.
        g[layout.sbar + j] = (gs[j]! + (lamS * ls) / s) * sigmoid(sb);
      }
      if (usePos) {
        const dOff = layout.delta + j * kMax;
        for (let k = 0; k < kMax; k++) {
          const d = x[dOff + k]!;
          loss += 0.5 * lamLlm * d * d;
          g[dOff + k] = gdelta[j * kMax + k]! + lamLlm * d;
        }
      }
      if (useFb) {
        const rOff = layout.rho + j * kMax;
        for (let k = 0; k < kMax; k++) {
          const r = x[rOff + k]!;
          loss += 0.5 * lamLlm * r * r;
          g[rOff + k] = grho[j * kMax + k]! + lamLlm * r;
        }
      }
    }
    for (let t = 0; t < sumK; t++) {
      g[A + t] = outGac[2 * t]!;
      g[Cc + t] = outGac[2 * t + 1]!;
    }
    if (useFb) {
      // The kernel sums dL/d(eta) per item; eta = w0 - kappa (theta - b_i).
      let gw0 = 0;
      for (let i = 0; i < I; i++) {
        gw0 += outGb[i]!;
        gb[i] = kappa * outGb[i]!;
      }
      difficultyBackward(bank, x, A, gb, aux, wts, g, Cc);
      g[layout.w0]! += gw0;
      g[layout.kbar]! += outScalars[1]! * sigmoid(x[layout.kbar]!);
    }
    return finishLlmNrmPass(layout, x, g, free, prec, loss, scope);
  }

  let tsCurvature: ((x: Float64Array, free: Uint8Array, opts?: CurvatureOptions) => CurvatureAt) | null = null;
  // The SEs' first pass whose rows sums wait for the corrections' pass (deferRows), if any.
  let pending: Pending | null = null;
  const cv = kernel.cv;
  const cvB = new Float64Array(I);
  const precision = options.curvaturePrecision ?? 'f32';
  if (precision !== 'f32' && precision !== 'f32-rows' && precision !== 'f64')
    throw new LlmNrmError('INVALID_OPTION', `curvaturePrecision must be 'f32', 'f32-rows' or 'f64', got ${String(precision)}`);

  function curvature(x: Float64Array, freeAt: Uint8Array, opts: CurvatureOptions = {}): CurvatureAt {
    if (opts.itemInverse !== undefined || opts.itemZ !== undefined) {
      const corr = opts.correctionOnly === true && opts.itemInverse !== undefined ? corrections(x, opts.itemInverse, opts.itemZ) : null;
      if (corr !== null) return corr;
      tsCurvature ??= getFamily('llm-nrm', layout.parts).curvature(bank, layout, priors);
      return tsCurvature(x, freeAt, opts);
    }
    if (held.pool === null && threaded) throw new LlmNrmError('INVALID_OPTION', 'this wasm objective was disposed');
    if (x.length !== layout.size) throw new LlmNrmError('INVALID_OPTION', `curvature: x has ${x.length} parameters, the layout ${layout.size}`);
    // The SEs' first pass (cross): its blocks from every cell, and the cross sums with them. Its
    // LLM blocks (llm, llmGlobals, globals) are read only after the item corrections
    // (thetaStandardErrors), so their rows pass is deferred to the corrections' pass, which walks
    // the same cells with the same forward; read earlier (or without that pass), they get a rows
    // pass of their own (`deferRows`).
    const cross = opts.cross === true && useFb;
    const defer = opts.cross === true && opts.blocksUnused === true;
    pending = null;
    // The preconditioner's refresh on threads: its items pass overlaps core's assembly of the item
    // blocks (overlapItems); otherwise the passes first, then the assembly.
    const overlap = held.pool !== null && opts.cross !== true && opts.blocksUnused !== true && kernel.itemBlocks <= FLAG_SLOTS;
    let at: CurvatureAt;
    if (overlap) at = overlapItems(x, (itemsReady) => fromSums(x, freeAt, opts, false, false, itemsReady));
    else {
      runPasses(x, opts.cross === true, cross, !defer);
      at = fromSums(x, freeAt, opts, cross, defer);
    }
    // The preconditioner's solves (L-BFGS's two a iteration) on the pool's threads, core's bits.
    if (held.solves !== null && opts.cross !== true && opts.blocksUnused !== true) held.solves.install(at.blocks, layout.size);
    return defer ? deferRows(at, x, cross) : at;
  }

  // core's blocks from the cell sums in cv at x (the passes run, or with itemsReady running).
  function fromSums(
    x: Float64Array,
    freeAt: Uint8Array,
    opts: CurvatureOptions,
    cross: boolean,
    defer: boolean,
    itemsReady?: (i: number) => number,
  ): CurvatureAt {
    const globals = defer ? new Float64Array(4) : blockGlobals();
    const at = llmNrmCurvatureFromSums(
      bank,
      layout,
      x,
      freeAt,
      priors,
      {
        llm: cv.hl,
        s0: cv.s0,
        s1: cv.s1,
        s2: cv.s2,
        u1: cv.u1,
        u0: cv.u0,
        hh: cv.hh,
        gb: cv.gb,
        globals,
        ...(cross ? { cross: { llmGlobals: cv.hx, ig: cv.ig, eg: cv.eg } } : {}),
        // runPasses' difficulties at this x (one computeDifficulties a refresh, not two).
        ...(useFb ? { difficulty: { aux, w: wts } } : {}),
        ...(itemsReady !== undefined ? { itemsReady } : {}),
      },
      opts,
    );
    return at;
  }

  // The refresh's passes with its items pass left running on the pool: `assemble` gets
  // itemsReady(i), which returns once item i's sums are final (the calling thread runs unclaimed
  // item blocks while it waits) with how many items are. So the main thread assembles finished
  // item blocks (core's TypeScript: the b-Hessian columns, the factorisations) while the workers
  // sum the rest: at paper scale the assembly was as long as the passes, with the workers idle.
  // Every item block writes only its items' sums, so the sums and the blocks are the bits of the
  // passes run first.
  function overlapItems<T>(x: Float64Array, assemble: (itemsReady: (i: number) => number) => T): T {
    const pool = held.pool!;
    const nIB = kernel.itemBlocks;
    const ipb = kernel.itemsPerBlock;
    const restore = setupPasses(x, false, false);
    try {
      pool.run(held.id, kernel.header, 0, kernel.blocks, kernel.exports, TASK.CURV_ROWS);
      pool.begin(held.id, kernel.header, 0, nIB, kernel.exports, TASK.CURV_ITEMS);
      try {
        return assemble((i) => {
          const blk = Math.floor(i / ipb);
          pool.waitFor(blk);
          let e = blk + 1;
          while (e < nIB && pool.done(e)) e++;
          return Math.min(I, e * ipb);
        });
      } finally {
        pool.end();
      }
    } finally {
      restore();
    }
  }

  // The curvature passes at x: the rows pass (unless `rows` is false) and the items pass; `all`: every
  // column of a row (the SEs), `cross`: with the cross sums.
  function runPasses(x: Float64Array, all: boolean, cross: boolean, rows: boolean, items = true): void {
    const restore = setupPasses(x, all, cross);
    try {
      for (const [task, n] of [
        [TASK.CURV_ROWS, rows ? kernel.blocks : 0],
        [TASK.CURV_ITEMS, items ? kernel.itemBlocks : 0],
      ] as const) {
        if (n === 0) continue;
        if (held.pool !== null) held.pool.run(held.id, kernel.header, 0, n, kernel.exports, task);
        else for (let blk = 0; blk < n; blk++) runTask(kernel.exports, task, kernel.header, blk);
      }
    } finally {
      restore();
    }
  }

  // The curvature passes' inputs at x and their settings (`all`: every column of a row, `cross`:
  // with the cross sums); returns what puts the settings back.
  function setupPasses(x: Float64Array, all: boolean, cross: boolean): () => void {
    const stride = kernel.curvatureRowStride;
    const restore = (): void => {
      kernel.setCurvatureRowStride(stride);
      kernel.setCurvatureCross(false);
      kernel.setCurvatureSimd(false, false);
    };
    if (all) kernel.setCurvatureRowStride(1);
    kernel.setCurvatureCross(cross);
    const simd = precision !== 'f64' && !all;
    kernel.setCurvatureSimd(simd, simd && precision === 'f32');
    try {
      writeInputs(x, simd);
    } catch (e) {
      restore();
      throw e;
    }
    return restore;
  }

  // The LLM blocks from the rows sums in cv (hl, hg and with `cross` hx), copied out.
  function rowBlocks(x: Float64Array, cross: boolean): { llm: Float64Array[]; globals: Float64Array; llmGlobals?: Float64Array[] } {
    return llmNrmRowBlocksFromSums(layout, x, priors, { llm: cv.hl, globals: blockGlobals(), ...(cross ? { llmGlobals: cv.hx } : {}) });
  }

  // The rows pass's partials of the gate globals' 2 x 2 (cv.hg), added in block order.
  function blockGlobals(): Float64Array {
    const globals = new Float64Array(4);
    for (let blk = 0; blk < kernel.blocks; blk++) for (let t = 0; t < 4; t++) globals[t]! += cv.hg[4 * blk + t]!;
    return globals;
  }

  // The SEs' first pass without its rows pass: `at`'s llm (and with `cross` llmGlobals, globals)
  // become getters, filled by the corrections' pass at the same x (`pending`) or, read before it,
  // by a rows pass of their own. Either way the same sums, the same bits.
  function deferRows(at: CurvatureAt, x: Float64Array, cross: boolean): CurvatureAt {
    const xs = Float64Array.from(x);
    let blocks: ReturnType<typeof rowBlocks> | null = null;
    const me: Pending = {
      x: xs,
      cross,
      fill: () => {
        blocks = rowBlocks(xs, cross);
      },
    };
    const get = (): ReturnType<typeof rowBlocks> => {
      if (blocks === null) {
        if (held.pool === null && threaded) throw new LlmNrmError('INVALID_OPTION', 'this wasm objective was disposed before its LLM blocks were read');
        if (pending === me) pending = null;
        runPasses(xs, true, cross, true, false);
        blocks = rowBlocks(xs, cross);
      }
      return blocks;
    };
    pending = me;
    Object.defineProperty(at, 'llm', { get: () => get().llm, enumerable: true, configurable: true });
    if (cross) {
      Object.defineProperty(at, 'llmGlobals', { get: () => get().llmGlobals, enumerable: true, configurable: true });
      Object.defineProperty(at, 'globals', { get: () => get().globals, enumerable: true, configurable: true });
    }
    return at;
  }

  // The SEs' second pass on the kernel (curvCorrRows, f64) where the bank has one cell per
  // (LLM, item) pair; null otherwise (core's TypeScript curvature then runs it).
  function corrections(x: Float64Array, itemInverse: Float64Array[], itemZ: Float64Array[] | undefined): CurvatureAt | null {
    if (held.pool === null && threaded) throw new LlmNrmError('INVALID_OPTION', 'this wasm objective was disposed');
    // The first pass's buffers hold the per-item inputs (curvature.ts, curvCorrRows), written there
    // by core directly (no second set of 30 MB at paper scale beside them).
    const into = { daa: cv.s0, dac: cv.s1, dcc: cv.s2, ma: cv.u1, mc: cv.u0, tm: cv.hh, tz: cv.eg, z: itemZ !== undefined ? cv.ig : null };
    const inputs = llmNrmCorrectionInputs(bank, layout, x, itemInverse, itemZ, into);
    if (inputs === null) return null;
    writeInputs(x, false);
    // The first pass's deferred rows sums at this x, in this pass (deferRows).
    const fuse = pending !== null && sameValues(pending.x, x) ? pending : null;
    pending = null;
    kernel.setCurvatureCorrections(true, inputs.z !== null, fuse !== null);
    kernel.setCurvatureCross(fuse?.cross === true);
    try {
      if (held.pool !== null) held.pool.run(held.id, kernel.header, 0, kernel.blocks, kernel.exports, TASK.CURV_ROWS);
      else for (let blk = 0; blk < kernel.blocks; blk++) runTask(kernel.exports, TASK.CURV_ROWS, kernel.header, blk);
    } finally {
      kernel.setCurvatureCorrections(false, false);
      kernel.setCurvatureCross(false);
    }
    fuse?.fill();
    return llmNrmCorrectionsFromSums(layout, cv.cm, inputs.z !== null ? cv.bz : null);
  }

  // What every curvature pass reads at x: the gate's difficulties, x itself and the rows' theta and
  // sharpness; with `simd` also the f32 lanes' parameters (the loss kernel's, which every pass rewrites).
  function writeInputs(x: Float64Array, simd: boolean): void {
    if (useFb) computeDifficulties(bank, x, A, Cc, cvB, aux, wts);
    if (simd) paramsIn(x, 0, J, cvB);
    cv.x.set(x);
    cv.b.set(cvB);
    setRows(x);
  }

  // theta, s = softplus(sbar) and ds/dsbar per row, for the curvature passes.
  function setRows(x: Float64Array): void {
    for (let j = 0; j < J; j++) {
      const sb = useS ? x[layout.sbar + j]! : 0;
      cv.row[4 * j] = x[layout.theta + j]!;
      cv.row[4 * j + 1] = useS ? softplus(sb) : 1;
      cv.row[4 * j + 2] = sigmoid(sb);
    }
  }

  const objective: WasmObjective = {
    layout,
    free,
    lossAndGrad,
    curvature,
    retarget: (q) => kernel.setTargets(q),
    predictTargets,
    // f32 cell terms summed in f64: measured 8e-9 relative to the f64 kernel at 189 x 2,000 and at
    // paper scale (BENCHMARKS.md); below 1e-6 relative, L-BFGS judges steps by the gradient.
    lossNoise: 1e-8,
    threads: threaded ? held.pool!.threads : 1,
    blocks: kernel.blocks,
    memoryBytes: kernel.bytes,
    dispose() {
      registry?.unregister(objective);
      release(held);
    },
  };
  if (threaded) registry?.register(objective, held, objective);
  return objective;
}

/** A first SE pass whose rows sums the corrections' pass at the same x computes (objective.ts deferRows). */
interface Pending {
  x: Float64Array;
  cross: boolean;
  fill(): void;
}

function sameValues(a: Float64Array, b: Float64Array): boolean {
  if (a.length !== b.length) return false;
  for (let t = 0; t < a.length; t++) if (!Object.is(a[t], b[t])) return false;
  return true;
}
