// The engine object: builds objectives for core layouts, the LLM-NRM family on the wasm kernel
// (sharing one worker pool), the binary 1PL-4PL family on core's TypeScript kernel.
import {
  binaryObjective, correctness, type Layout, type Objective, type Priors, type ResponseBank,
} from '@llm-nrm/core';
import { createWasmObjective, type WasmObjective } from './objective.js';
import { sharedMemorySupported } from './module.js';
import { BlockPool, type PoolPlatform } from './pool.js';

export interface WasmEngineOptions {
  /** Threads per pass, the calling one included (default 1). */
  threads?: number;
}

/** An objective of the engine: core's `Objective` plus `dispose` (a no-op for the TS fallback). */
export type EngineObjective = Objective & { dispose(): void; readonly engine: 'wasm' | 'typescript-fused' };

export interface WasmEngine {
  readonly name: 'wasm';
  readonly threads: number;
  /**
   * The objective of `layout` on `bank`: LLM-NRM layouts (NRM included) on the wasm kernel, binary
   * layouts on core's `binaryObjective` over `correctness(bank)`. Also accepts `{ layout }` (e.g.
   * a model family object that carries its layout).
   */
  objective(bank: ResponseBank, layout: Layout | { layout: Layout }, priors?: Priors): EngineObjective;
  /** Stop the engine's workers (objectives made by it can no longer run threaded passes). */
  dispose(): void;
}

export function createWasmEngine(options: WasmEngineOptions, platform: PoolPlatform | null): WasmEngine {
  const threads = options.threads ?? 1;
  let pool: BlockPool | null = null;
  const usePool = threads > 1 && platform !== null && sharedMemorySupported();
  return {
    name: 'wasm',
    threads: usePool ? threads : 1,
    objective(bank, layoutOrFamily, priors = {}) {
      const layout = 'kind' in layoutOrFamily ? layoutOrFamily : layoutOrFamily.layout;
      if (layout.kind === 'binary') {
        const o = binaryObjective(bank, layout, correctness(bank), priors);
        return { ...o, engine: 'typescript-fused', dispose() {} };
      }
      if (usePool && pool === null) pool = new BlockPool(threads, platform!);
      const o: WasmObjective = createWasmObjective(bank, layout, priors, pool === null ? {} : { pool }, platform);
      return Object.assign(o, { engine: 'wasm' as const });
    },
    dispose() {
      pool?.dispose();
      pool = null;
    },
  };
}
