import { registerEngine, tsEngine, type Engine, type EngineLoadOptions, type ResponseBank } from '@llm-nrm/core';
import type { WasmEngine, WasmEngineOptions } from './engine.js';
import { loadWasmKernel } from './module.js';

/**
 * Option entries (LLMs x the sum of the items' option counts, observed or not) from which `auto`
 * picks wasm. Below, ts: the wasm kernel's f32 softmax makes the loss rough at about 1e-8 relative,
 * which on small banks stops L-BFGS's line search short of the SE stopping rule (a 12 x 60 demo
 * fleet ended "not converged"), while there a TypeScript pass costs well under 15 ms anyway.
 */
export const AUTO_WASM_ENTRIES = 250_000;

/** The wasm engine of core's registry: the kernel compiled first, so a runtime without WebAssembly SIMD fails here. */
async function loadWasm(make: (options: WasmEngineOptions) => WasmEngine, defaultThreads: number, options: EngineLoadOptions): Promise<Engine> {
  await loadWasmKernel();
  const settings = (options.settings ?? {}) as Pick<WasmEngineOptions, 'binaryPass' | 'threadedVectors'>;
  return make({
    threads: options.threads ?? defaultThreads,
    ...(settings.binaryPass ? { binaryPass: settings.binaryPass } : {}),
    ...(settings.threadedVectors === false ? { threadedVectors: false } : {}),
  }).engine;
}

/**
 * `auto`: wasm (about 8x fewer CPU cycles per pass than the TypeScript kernel,
 * packages/engine-wasm/BENCHMARKS.md) for banks of at least AUTO_WASM_ENTRIES option entries, else
 * (or where wasm does not load, said through `options.warn`) core's TypeScript kernel.
 */
async function loadAuto(make: (options: WasmEngineOptions) => WasmEngine, defaultThreads: number, options: EngineLoadOptions): Promise<Engine> {
  let wasm: Engine | null = null;
  try {
    wasm = await loadWasm(make, defaultThreads, options);
  } catch (e) {
    options.warn?.(`engine wasm did not load (${(e as Error).message}); fitting with ts`);
  }
  const pick = (bank: ResponseBank): Engine =>
    wasm !== null && bank.models.length * bank.colOffsets[bank.colItem.length]! >= AUTO_WASM_ENTRIES ? wasm : tsEngine;
  return {
    name: 'auto',
    detail: `wasm from ${AUTO_WASM_ENTRIES} option entries, else ts`,
    objective: (bank, family, priors) => {
      const use = pick(bank);
      const objective = use.objective(bank, family, priors);
      // The bundle records the engine that ran, not 'auto'.
      return objective.engine === undefined
        ? { layout: objective.layout, free: objective.free, engine: use.name, lossAndGrad: objective.lossAndGrad.bind(objective) }
        : objective;
    },
    curvature: (bank, family, priors, objective) => wasm?.curvature?.(bank, family, priors, objective) ?? null,
    // The threaded vector sweeps where asked for (small banks keep them on the calling thread).
    ...(wasm?.vectors !== undefined ? { vectors: wasm.vectors } : {}),
  };
}

/** Register 'wasm' and 'auto' in core's engine registry (each entry of the package calls this once, with its platform's engine maker). */
export function registerWasmEngines(make: (options: WasmEngineOptions) => WasmEngine, defaultThreads: number): void {
  registerEngine({ name: 'wasm', describe: 'WebAssembly SIMD kernel (@llm-nrm/engine-wasm)', load: (o) => loadWasm(make, defaultThreads, o) });
  registerEngine({ name: 'auto', describe: 'wasm for large banks, else ts', load: (o) => loadAuto(make, defaultThreads, o) });
}
