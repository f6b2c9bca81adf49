// Node entry of @llm-nrm/engine-wasm: threads are worker_threads. The browser entry
// (src/browser.ts, export condition `browser`) has the same API on web workers.
import type { LlmNrmLayout, Priors, ResponseBank } from '@llm-nrm/core';
import { createWasmEngine, disposeWasmThreads, type EngineObjective, type WasmEngine, type WasmEngineOptions } from './internal/engine.js';
import { kernelBytes, loadWasmKernel, sharedMemorySupported, type KernelVariant } from './internal/module.js';
import { nodePlatform } from './internal/nodePlatform.js';
import { createWasmObjective, type WasmObjective, type WasmObjectiveOptions } from './internal/objective.js';
import { BlockPool } from './internal/pool.js';
import { availableParallelism } from 'node:os';
import { AUTO_WASM_ENTRIES, registerWasmEngines } from './internal/providers.js';

/**
 * core's `llmNrmObjective` on the WebAssembly SIMD kernel: the same loss and gradient (to f32
 * rounding; see README "Precision"), `options.threads` worker threads over blocks of LLM rows.
 * Call `dispose()` when done (idle workers never keep the process alive either way).
 */
export function wasmLlmNrmObjective(bank: ResponseBank, layout: LlmNrmLayout, priors: Priors = {}, options: WasmObjectiveOptions = {}): WasmObjective {
  return createWasmObjective(bank, layout, priors, options, nodePlatform);
}

/**
 * The engine: `objective(bank, layout, priors)` on wasm for LLM-NRM/NRM, core's TS kernel for
 * 1PL-4PL. Threaded engines share one process-wide pool per thread count (`disposeWasmThreads`).
 */
export function wasmEngine(options: WasmEngineOptions = {}): WasmEngine {
  return createWasmEngine(options, nodePlatform);
}

/** A worker pool to share between objectives (`options.pool`); `threads` counts the caller. */
export function wasmThreadPool(threads: number): BlockPool {
  return new BlockPool(threads, nodePlatform);
}

/**
 * Threads of the registry's 'wasm' and 'auto' engines (the calling one included) unless
 * `loadEngine` says: the machine's cores, at most 4 (a pass at 189 x 2,000 is cut into 16 blocks;
 * past 4 threads the fixed per-pass costs dominate). Any count gives the same bits.
 */
export const WASM_THREADS = Math.max(1, Math.min(4, availableParallelism()));

// Importing the package registers 'wasm' and 'auto' with core: `await loadEngine('auto')`.
registerWasmEngines(wasmEngine, WASM_THREADS);

export { AUTO_WASM_ENTRIES, disposeWasmThreads, kernelBytes, loadWasmKernel, sharedMemorySupported };
export type { BlockPool, EngineObjective, KernelVariant, WasmEngine, WasmEngineOptions, WasmObjective, WasmObjectiveOptions };
