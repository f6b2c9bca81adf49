import type { ResponseBank } from './bank.js';
import { LlmNrmError } from './errors.js';
import type { CurvatureAt, CurvatureOptions, ModelFamily } from './families/family.js';
import type { Objective, Priors } from './objective.js';
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

const engines = new Map<string, Engine>([[tsEngine.name, tsEngine]]);

/** Add (or replace) an engine under its name, so `fit(bank, { engine: name })` finds it. */
export function registerEngine(engine: Engine): void {
  if (!/^[a-z][a-z0-9-]*$/.test(engine.name))
    throw new LlmNrmError('INVALID_OPTION', `invalid engine name: ${JSON.stringify(engine.name)} (lower-case letters, digits, dashes)`);
  engines.set(engine.name, engine);
}

/** The registered engine of that name; INVALID_OPTION naming the registered ones otherwise. */
export function getEngine(name: string): Engine {
  const e = engines.get(name);
  if (e === undefined) {
    throw new LlmNrmError('INVALID_OPTION', `unknown engine: ${JSON.stringify(name)} (registered: ${[...engines.keys()].join(', ')})`);
  }
  return e;
}

/** Names of the registered engines, in registration order. */
export function engineNames(): string[] {
  return [...engines.keys()];
}

/** An Engine object as is, or the registered engine of a name (default 'ts'). */
export function resolveEngine(engine: Engine | string | undefined): Engine {
  if (engine === undefined) return tsEngine;
  return typeof engine === 'string' ? getEngine(engine) : engine;
}
