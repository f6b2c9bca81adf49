/**
 * The engines the CLI offers (`--engine`) and its default: the one place to add an engine. Each
 * loader imports its package only when asked, so `--engine ts` never loads tfjs.
 */
import { tsEngine, type Engine } from '@llm-nrm/core';
import type { Argv } from 'yargs';

const LOADERS: Record<string, () => Promise<Engine>> = {
  ts: async () => tsEngine,
  tfjs: async () => (await import('@llm-nrm/engine-tfjs')).tfjsEngine(),
  wasm: async () => {
    // engine-wasm's objective takes a layout; core's Engine takes the family.
    const w = (await import('@llm-nrm/engine-wasm')).wasmEngine();
    return { name: 'wasm', detail: 'WebAssembly SIMD kernel (@llm-nrm/engine-wasm)', objective: (bank, family, priors) => w.objective(bank, family.layout(bank), priors) };
  },
};

/** The engine of a plain `llm-nrm fit` (the integrator's switch: 'wasm' once its figures are confirmed). */
export const DEFAULT_ENGINE = 'ts';

export const ENGINE_NAMES: readonly string[] = Object.keys(LOADERS);

/** Load the engine of an `--engine` value (validated by yargs' choices). */
export async function loadEngine(name: string): Promise<Engine> {
  const load = LOADERS[name];
  if (load === undefined) throw new Error(`unknown engine ${JSON.stringify(name)}`);
  return load();
}

/** The `--engine` option, shared by every command that fits. */
export function engineOption<T>(y: Argv<T>): Argv<T & { engine: string }> {
  return y.option('engine', {
    describe: 'What computes loss and gradient: ts (fused TypeScript kernels), wasm (WebAssembly SIMD), tfjs (TensorFlow.js: GPU with tfjs-node-gpu, else tfjs-node, else pure JS)',
    choices: ENGINE_NAMES as string[],
    default: DEFAULT_ENGINE,
  }) as Argv<T & { engine: string }>;
}
