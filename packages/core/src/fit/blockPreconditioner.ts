import type { ResponseBank } from '../data/bank.js';
import { LlmNrmError } from '../errors.js';
import type { Engine } from '../engines.js';
import type { ModelFamily } from '../model/family.js';
import { familyOfLayout } from '../model/registry.js';
import type { Blocks } from '../internal/blocks.js';
import type { Objective, Priors } from '../model/objective.js';

/**
 * A block-diagonal Gauss-Newton approximation of the MAP objective's Hessian, L-BFGS's initial
 * inverse Hessian: each block (an item's 2K option parameters, an LLM's parameters, the gate globals)
 * has its own strongly coupled curvature; L-BFGS only learns the weaker item-LLM coupling. For
 * softmax cross-entropy d2L/dv2 = Q (diag p - p p^T) exactly; GN drops the second derivatives of v,
 * which keeps every block PSD.
 */
export interface BlockPreconditioner {
  /** out = H^-1 v, block by block (0 where a parameter is fixed). */
  apply(v: Float64Array, out: Float64Array): void;
  /** out1 = H^-1 v1 and out2 = H^-1 v2, each the same bits as `apply`, in one sweep over the blocks. */
  applyPair(v1: Float64Array, out1: Float64Array, v2: Float64Array, out2: Float64Array): void;
  /** Recompute the blocks at x (one pass over the data). */
  refresh(x: Float64Array): void;
}

// The step caps live in internal/stepCaps.ts (no import cycle with the family curvatures).
export { ITEM_STEP_CAP, LLM_STEP_CAP } from '../internal/stepCaps.js';

/**
 * Largest move of the gate globals (w0, kbar) in one application during a gate restart (see fit):
 * with the gate nearly shut their GN block is tiny, and uncapped steps go straight back to the shut
 * gate. The first run goes uncapped (a gate sharpening into a step would crawl).
 */
export const GLOBAL_STEP_CAP = 0.5;

export interface PreconditionerOptions {
  /** Largest move of the global parameters in one application (default: none). */
  globalStepCap?: number;
  /** The engine that made `obj`: its curvature is used where it has one. */
  engine?: Engine;
}

/**
 * The block Gauss-Newton preconditioner of a family's objective (`obj` gives the free mask; it may
 * come from any engine). The blocks come from `opts.engine`'s curvature where it has one for this
 * objective (engine-wasm: parallel over LLM rows and items), else from the family's TypeScript one.
 */
export function blockPreconditioner(bank: ResponseBank, obj: Objective, priors?: Priors): BlockPreconditioner;
export function blockPreconditioner(
  bank: ResponseBank,
  family: ModelFamily,
  obj: Objective,
  priors?: Priors,
  opts?: PreconditionerOptions,
): BlockPreconditioner;
export function blockPreconditioner(
  bank: ResponseBank,
  a: ModelFamily | Objective,
  b?: Objective | Priors,
  c: Priors = {},
  opts: PreconditionerOptions = {},
): BlockPreconditioner {
  // (bank, objective, priors): the family read from the objective's layout.
  const isObjective = 'lossAndGrad' in a;
  const obj = isObjective ? a : (b as Objective);
  const family = isObjective ? familyOfLayout(a.layout) : a;
  const priors = isObjective ? ((b as Priors | undefined) ?? {}) : c;
  const at = opts.engine?.curvature?.(bank, family, priors, obj) ?? family.curvature(bank, obj.layout, priors);
  let blocks: Blocks | null = null;
  const refreshed = (): Blocks => {
    if (blocks === null) throw new LlmNrmError('INVALID_OPTION', 'blockPreconditioner: refresh(x) before apply');
    return blocks;
  };
  return {
    apply: (v, out) => refreshed().apply(v, out),
    applyPair: (v1, out1, v2, out2) => refreshed().applyPair(v1, out1, v2, out2),
    refresh: (x) => {
      blocks = at(x, obj.free, opts.globalStepCap !== undefined ? { globalStepCap: opts.globalStepCap } : {}).blocks;
    },
  };
}
