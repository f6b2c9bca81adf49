import type { ResponseBank } from './data/bank.js';
import { LlmNrmError } from './errors.js';
import type { CurvatureAt, CurvatureOptions, ModelFamily } from './model/family.js';
import type { Objective, Priors } from './model/objective.js';
import type { VectorOps } from './fit/vectorOps.js';

/**
 * An engine computes a family's MAP objective and gradient (the `Objective` seam every optimizer
 * uses). Core registers 'ts' (the fused TypeScript kernels); other packages add theirs with
 * `registerEngine` (`@llm-nrm/engine-tfjs`: 'tfjs'). An engine that has no kernel for a family may
 * delegate to `tsEngine`; it must give the same loss and gradient to float tolerance.
 */
export interface Engine {
  /** Registry name, recorded in the bundle (`fit.engine`). */
  readonly name: string;
  /** One line on what runs (backend, version), for logs. */
  readonly detail?: string;
  /**
   * The objective of `family` on `bank` (already `family.prepare`d), on the layout
   * `family.layout(bank)`, with the given priors.
   */
  objective(bank: ResponseBank, family: ModelFamily, priors: Priors): Objective;
  /**
   * Optional: the family's block Gauss-Newton curvature (the preconditioner's refresh) computed by
   * this engine for an objective it made, the same blocks as `family.curvature` to float tolerance;
   * null (or no method) where it has none, and the optimizer uses the family's TypeScript one.
   */
  curvature?(bank: ResponseBank, family: ModelFamily, priors: Priors, objective: Objective): CurvatureBuilder | null;
  /**
   * Optional: where L-BFGS's vector sweeps run on this engine's fits (e.g. in part on its worker
   * threads); the same bits as core's serialVectorOps (fit/vectorOps.ts fixes every reduction's order).
   */
  readonly vectors?: VectorOps;
}

/** A curvature at x (see ModelFamily.curvature). */
export type CurvatureBuilder = (x: Float64Array, free: Uint8Array, opts?: CurvatureOptions) => CurvatureAt;

/** The fused TypeScript kernels (one pass over the ragged f32 data, f64 accumulation). */
export const tsEngine: Engine = {
  name: 'ts',
  detail: 'fused TypeScript kernels (float64 accumulation)',
  objective: (bank, family, priors) => family.objective(bank, family.layout(bank), priors),
};

/** What `loadEngine` may pass a provider: generic settings, and engine-specific ones passed through. */
export interface EngineLoadOptions {
  /** Threads the engine may use, the calling one included (default: the provider's choice). */
  threads?: number;
  /** Where a provider says that it fell back (e.g. 'auto' to ts where wasm does not load); default: silent. */
  warn?: (message: string) => void;
  /** Engine-specific settings (e.g. engine-wasm's `binaryPass`, `threadedVectors`), read by the provider that knows them. */
  settings?: Readonly<Record<string, unknown>>;
}

/**
 * An engine by name, made when asked (its package loaded, its kernel compiled). Packages register
 * theirs on import (`@llm-nrm/engine-wasm`: 'wasm' and 'auto'; `@llm-nrm/engine-tfjs`: 'tfjs').
 */
export interface EngineProvider {
  readonly name: string;
  /** One line for `--help` and errors. */
  readonly describe: string;
  load(options: EngineLoadOptions): Promise<Engine>;
}

const providers = new Map<string, EngineProvider>([[tsEngine.name, { name: tsEngine.name, describe: tsEngine.detail!, load: async () => tsEngine }]]);
/** Engines made by `loadEngine` or registered as objects, for `fit(bank, { engine: name })`. */
const loaded = new Map<string, Engine>([[tsEngine.name, tsEngine]]);

/**
 * Add (or replace) an engine under its name: an Engine object (then `fit(bank, { engine: name })`
 * finds it at once) or a provider (`loadEngine(name)` makes it).
 */
export function registerEngine(engine: Engine | EngineProvider): void {
  if (!/^[a-z][a-z0-9-]*$/.test(engine.name))
    throw new LlmNrmError('INVALID_OPTION', `invalid engine name: ${JSON.stringify(engine.name)} (lower-case letters, digits, dashes)`);
  if ('load' in engine) {
    providers.set(engine.name, engine);
    loaded.delete(engine.name);
  } else {
    providers.set(engine.name, { name: engine.name, describe: engine.detail ?? engine.name, load: async () => engine });
    loaded.set(engine.name, engine);
  }
}

/** The registered engines' names and one-line descriptions, in registration order. */
export function engineNames(): { name: string; describe: string }[] {
  return [...providers.values()].map(({ name, describe }) => ({ name, describe }));
}

function unknownEngine(name: string): LlmNrmError {
  return new LlmNrmError('INVALID_OPTION', `unknown engine: ${JSON.stringify(name)} (registered: ${[...providers.keys()].join(', ')})`);
}

/** Make the engine registered under `name` (INVALID_OPTION naming the registered ones otherwise); `fit` then finds it by name too. */
export async function loadEngine(name: string, options: EngineLoadOptions = {}): Promise<Engine> {
  const provider = providers.get(name);
  if (provider === undefined) throw unknownEngine(name);
  const engine = await provider.load(options);
  loaded.set(name, engine);
  return engine;
}

/** The engine of that name made already (registered as an object, or by `loadEngine`); INVALID_OPTION otherwise. */
export function getEngine(name: string): Engine {
  const e = loaded.get(name);
  if (e !== undefined) return e;
  if (providers.has(name))
    throw new LlmNrmError('INVALID_OPTION', `engine ${JSON.stringify(name)} is registered but not loaded: await loadEngine(${JSON.stringify(name)}) first`);
  throw unknownEngine(name);
}

/** An Engine object as is, or the loaded engine of a name (default 'ts'). */
export function resolveEngine(engine: Engine | string | undefined): Engine {
  if (engine === undefined) return tsEngine;
  return typeof engine === 'string' ? getEngine(engine) : engine;
}
