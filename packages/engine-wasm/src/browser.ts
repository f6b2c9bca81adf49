// Browser entry of @llm-nrm/engine-wasm (export condition `browser`): the same API as the Node
// entry with web workers as threads. No `node:` imports anywhere below this module. On a page's
// main thread call `await loadWasmKernel()` once first (browsers refuse synchronous compilation
// of larger modules there); threads need a cross-origin isolated page.
import type { LlmNrmLayout, Priors, ResponseBank } from '@llm-nrm/core';
import { browserPlatform } from './internal/browserPlatform.js';
import { createWasmEngine, disposeWasmThreads, type EngineObjective, type WasmEngine, type WasmEngineOptions } from './internal/engine.js';
import { kernelBytes, loadWasmKernel, sharedMemorySupported, type KernelVariant } from './internal/module.js';
import { createWasmObjective, type WasmObjective, type WasmObjectiveOptions } from './internal/objective.js';
import { BlockPool } from './internal/pool.js';
import type { PoolPlatform } from './internal/pool.js';
import { AUTO_WASM_ENTRIES, registerWasmEngines } from './internal/providers.js';

let platform: PoolPlatform | null | undefined;
const web = (): PoolPlatform | null => (platform === undefined ? (platform = browserPlatform()) : platform);

/** See the Node entry: core's `llmNrmObjective` on the wasm kernel, threads on web workers. */
export function wasmLlmNrmObjective(bank: ResponseBank, layout: LlmNrmLayout, priors: Priors = {}, options: WasmObjectiveOptions = {}): WasmObjective {
  return createWasmObjective(bank, layout, priors, options, (options.threads ?? 1) > 1 ? web() : null);
}

export function wasmEngine(options: WasmEngineOptions = {}): WasmEngine {
  return createWasmEngine(options, (options.threads ?? 1) > 1 ? web() : null);
}

export function wasmThreadPool(threads: number): BlockPool {
  const p = web();
  if (p === null) throw new Error('engine-wasm: no web workers here');
  return new BlockPool(threads, p);
}

// Importing the package registers 'wasm' and 'auto' with core (threads: 1 unless `loadEngine` says;
// more need a cross-origin isolated page).
registerWasmEngines(wasmEngine, 1);

export { AUTO_WASM_ENTRIES, disposeWasmThreads, kernelBytes, loadWasmKernel, sharedMemorySupported };
export type { BlockPool, EngineObjective, KernelVariant, WasmEngine, WasmEngineOptions, WasmObjective, WasmObjectiveOptions };
