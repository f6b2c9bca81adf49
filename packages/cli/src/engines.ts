/**
 * The engines the CLI offers (`--engine`): core's registry, where `ts` is core's, `wasm` and `auto`
 * come with @llm-nrm/engine-wasm (imported here, so registered) and `tfjs` is registered here as a
 * provider importing @llm-nrm/engine-tfjs only when asked (the CLI does not install it).
 */
import { LlmNrmError, loadEngine as loadRegisteredEngine, registerEngine, type Engine } from '@llm-nrm/core';
import { engineNames } from '@llm-nrm/core/engine';
import { WASM_THREADS } from '@llm-nrm/engine-wasm';
import type { Argv } from 'yargs';

export { WASM_THREADS };

/** What a command may tell a loader: the thread count (default the engine's), and the wasm engine's settings. */
export interface EngineLoadOptions {
  threads?: number;
  /**
   * The wasm engine's 1PL-4PL full pass for every binary family (engine-wasm's
   * WasmEngineOptions.binaryPass): 'phased' keeps the TypeScript kernel's bits; 'simd' is about 2x
   * cheaper but not those bits. Default: per family (`ModelFamily.fastKernel`).
   */
  binaryPass?: 'phased' | 'simd';
  /** The wasm engine's L-BFGS vector sweeps in part on worker threads (default true; the same bits). */
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

registerEngine({ name: 'tfjs', describe: 'TensorFlow.js (GPU with tfjs-node-gpu, else tfjs-node, else pure JS)', load: () => loadTfjsEngine() });

/** The engine of a plain `llm-nrm fit`: wasm for large banks, else ts (engine-wasm's `auto`). */
export const DEFAULT_ENGINE = 'auto';

export const ENGINE_NAMES: readonly string[] = engineNames().map((e) => e.name);

/**
 * Load the engine of an `--engine` value (validated by yargs' choices). `threads` is for callers
 * that already run several fits at once (evaluate's CV workers), so threads never outnumber cores.
 */
export async function loadEngine(name: string, options: EngineLoadOptions = {}): Promise<Engine> {
  const { threads, ...settings } = options;
  return loadRegisteredEngine(name, {
    ...(threads !== undefined ? { threads } : {}),
    settings,
    warn: (message) => process.stderr.write(`note: ${message}\n`),
  });
}

/** The `--engine` option, shared by every command that fits. */
export function engineOption<T>(y: Argv<T>): Argv<T & { engine: string }> {
  return y.option('engine', {
    describe: `What computes loss and gradient: ${engineNames()
      .map((e) => `${e.name} (${e.describe})`)
      .join(', ')}`,
    choices: ENGINE_NAMES as string[],
    default: DEFAULT_ENGINE,
  }) as Argv<T & { engine: string }>;
}
