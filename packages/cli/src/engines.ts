/**
 * The engines the CLI offers (`--engine`) and its default: the one place to add an engine. Each
 * loader imports its package only when asked, so `--engine ts` never loads tfjs.
 */
import { availableParallelism } from 'node:os';
import { LlmNrmError, tsEngine, type Engine } from '@llm-nrm/core';
import type { Argv } from 'yargs';

/**
 * Threads of the wasm engine (the calling one included): the machine's cores, at most 4 (a pass at
 * 189 x 2,000 is cut into 16 blocks; past 4 threads the fixed per-pass costs dominate). Any count
 * gives the same bits (fixed blocks, reduced in block order), so the fit does not depend on it.
 */
export const WASM_THREADS = Math.max(1, Math.min(4, availableParallelism()));

/** What a loader may be told: the wasm engine's thread count (default WASM_THREADS), and its binary pass. */
export interface EngineLoadOptions {
  threads?: number;
  /**
   * The wasm engine's 1PL-4PL full pass for every binary family (engine-wasm's
   * WasmEngineOptions.binaryPass): 'phased' keeps the TypeScript kernel's bits; 'simd' is about 2x
   * cheaper but not those bits. Default: per family (`ModelFamily.fastKernel`: 'simd' for 3PL and
   * 4PL, 'phased' for 1PL and 2PL).
   */
  binaryPass?: 'phased' | 'simd';
  /**
   * The wasm engine's L-BFGS vector sweeps in part on worker threads (engine-wasm's
   * WasmEngineOptions.threadedVectors): the same bits, 5-8% faster at paper scale. Default
   * true; false keeps every sweep on the calling thread.
   */
  threadedVectors?: boolean;
}

/** What `--engine tfjs` says when its package is not installed (llm-nrm does not install it). */
export const TFJS_MISSING =
  '--engine tfjs needs @llm-nrm/engine-tfjs, which llm-nrm does not install (TensorFlow.js is about 270 MB): ' +
  'npm install @llm-nrm/engine-tfjs beside llm-nrm (npm install llm-nrm @llm-nrm/engine-tfjs), and for native speed ' +
  '@tensorflow/tfjs-node, or @tensorflow/tfjs-node-gpu with CUDA, where they install (they download libtensorflow)';

type TfjsModule = typeof import('@llm-nrm/engine-tfjs');

/**
 * The tfjs engine, from @llm-nrm/engine-tfjs, which the CLI does not depend on (a devDependency
 * for its tests only), so a plain `npm install llm-nrm` stays small. Not an optional peer either:
 * changesets would make every engine-tfjs release a major one of llm-nrm. `load` is the import
 * (a test passes one of a package that is absent); only that package's own absence becomes
 * TFJS_MISSING, any other failure (tfjs itself missing or broken under it) is thrown as it is.
 */
export async function loadTfjsEngine(load: () => Promise<TfjsModule> = () => import('@llm-nrm/engine-tfjs'), name = '@llm-nrm/engine-tfjs'): Promise<Engine> {
  let mod: TfjsModule;
  try {
    mod = await load();
  } catch (e) {
    // Node's words for an ESM import of an absent package (code ERR_MODULE_NOT_FOUND).
    if (String((e as Error)?.message).startsWith(`Cannot find package '${name}'`)) throw new LlmNrmError('INVALID_OPTION', TFJS_MISSING, { cause: e });
    throw e;
  }
  return mod.tfjsEngine();
}

const LOADERS: Record<string, (options: EngineLoadOptions) => Promise<Engine>> = {
  ts: async () => tsEngine,
  tfjs: () => loadTfjsEngine(),
  wasm: async (options) => {
    // engine-wasm's objective takes a layout; its `engine` is core's Engine, which takes the family.
    const wasm = await import('@llm-nrm/engine-wasm');
    // Compile now, so a runtime without WebAssembly SIMD fails here (and the default falls back to ts).
    await wasm.loadWasmKernel();
    return wasm.wasmEngine({
      threads: options.threads ?? WASM_THREADS,
      ...(options.binaryPass ? { binaryPass: options.binaryPass } : {}),
      ...(options.threadedVectors === false ? { threadedVectors: false } : {}),
    }).engine;
  },
};

/**
 * The engine of a plain `llm-nrm fit`: `auto`, the WebAssembly SIMD kernel (about 8x fewer CPU
 * cycles per pass than the TypeScript one, packages/engine-wasm/BENCHMARKS.md) for banks of at
 * least AUTO_WASM_ENTRIES option entries, else (or where wasm does not load) the TypeScript kernel.
 * Why not wasm always: its f32 softmax makes the loss rough at about 1e-8 relative, which on small
 * banks stops L-BFGS's line search short of the SE stopping rule (a 12 x 60 demo fleet ended
 * "not converged"), while there a TypeScript pass costs well under 15 ms anyway.
 */
export const DEFAULT_ENGINE = 'auto';

/** Observed-or-not option entries (J x sum of option counts) from which `auto` picks wasm. */
export const AUTO_WASM_ENTRIES = 250_000;

LOADERS.auto = async (options) => {
  let wasm: Engine | null = null;
  try {
    wasm = await LOADERS.wasm!(options);
  } catch (e) {
    process.stderr.write(`note: engine wasm did not load (${(e as Error).message}); fitting with ts\n`);
  }
  return {
    name: 'auto',
    detail: `wasm from ${AUTO_WASM_ENTRIES} option entries, else ts`,
    objective: (bank, family, priors) => {
      const entries = bank.models.length * bank.colOffsets[bank.colItem.length]!;
      const use = wasm !== null && entries >= AUTO_WASM_ENTRIES ? wasm : tsEngine;
      const objective = use.objective(bank, family, priors);
      // The bundle records the engine that ran, not 'auto' (engine-wasm names its own fallbacks).
      return objective.engine === undefined
        ? { layout: objective.layout, free: objective.free, engine: use.name, lossAndGrad: objective.lossAndGrad.bind(objective) }
        : objective;
    },
    curvature: (bank, family, priors, objective) => wasm?.curvature?.(bank, family, priors, objective) ?? null,
    // The wasm engine's threaded vector sweeps where asked for (on small banks they run on the
    // calling thread: the pool shares only vectors of 32,768 entries or more).
    ...(wasm?.vectors !== undefined ? { vectors: wasm.vectors } : {}),
  };
};

export const ENGINE_NAMES: readonly string[] = Object.keys(LOADERS);

/**
 * Load the engine of an `--engine` value (validated by yargs' choices). `threads` is for callers
 * that already run several fits at once (evaluate's CV workers), so threads never outnumber cores.
 */
export async function loadEngine(name: string, options: EngineLoadOptions = {}): Promise<Engine> {
  const load = LOADERS[name];
  if (load === undefined) throw new Error(`unknown engine ${JSON.stringify(name)}`);
  return load(options);
}

/** The `--engine` option, shared by every command that fits. */
export function engineOption<T>(y: Argv<T>): Argv<T & { engine: string }> {
  return y.option('engine', {
    describe:
      'What computes loss and gradient: auto (wasm for large banks, else ts), ts (fused TypeScript kernels), wasm (WebAssembly SIMD), tfjs (TensorFlow.js: GPU with tfjs-node-gpu, else tfjs-node, else pure JS)',
    choices: ENGINE_NAMES as string[],
    default: DEFAULT_ENGINE,
  }) as Argv<T & { engine: string }>;
}
