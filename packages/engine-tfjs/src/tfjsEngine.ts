import { LlmNrmError, type Engine, type EvalScope, type ModelFamily, type Objective, type Priors, type ResponseBank } from '@llm-nrm/core';
import { loadTfjs, type LoadedTfjs, type TfjsBackendName } from './loadTfjs.js';
import { tfjsFamilyObjective, type TfjsObjective, type TfjsObjectiveOptions } from './tfjsObjective.js';

export interface TfjsEngineOptions extends TfjsObjectiveOptions {
  /** A tfjs already loaded (default: `await loadTfjs()`: tfjs-node-gpu, else tfjs-node, else tfjs CPU). */
  tfjs?: LoadedTfjs;
  /**
   * Most option slots (cells x K_max) one autograd evaluation covers; a pass runs over contiguous
   * LLM rows in chunks of about this size, so autograd's intermediates (a dozen tensors of that
   * size) stay bounded at paper scale (189 x 31,554 cells x K_max 10 would be 60M slots at once).
   * Default 2,000,000 (about 8 MB per intermediate float32 tensor).
   */
  chunkSlots?: number;
}

/** The tfjs engine: an `Engine` named 'tfjs' plus what it loaded. */
export interface TfjsEngine extends Engine {
  readonly backend: TfjsBackendName;
  /** Objectives it built and has not disposed; `dispose()` frees them all. */
  dispose(): void;
}

const DEFAULT_CHUNK_SLOTS = 2_000_000;

/**
 * Split each evaluation over contiguous row ranges: the loss is a sum over LLM rows plus the item
 * prior (added once, with the first chunk), so summing the chunks' losses and gradients gives the
 * whole pass's. `bounds` are row starts, ending with J.
 */
export function chunkedObjective(inner: Objective, bounds: readonly number[]): Objective {
  const J = inner.layout.nModels;
  if (bounds[0] !== 0 || bounds[bounds.length - 1] !== J) throw new LlmNrmError('INVALID_OPTION', `chunk bounds must run from 0 to ${J}`);
  if (bounds.length <= 2) return inner;
  const gc = new Float64Array(inner.layout.size);
  return {
    layout: inner.layout,
    free: inner.free,
    lossAndGrad(x: Float64Array, g: Float64Array, scope: EvalScope = {}): number {
      const r0 = scope.rowStart ?? 0;
      const r1 = scope.rowEnd ?? J;
      if (r0 >= r1) return inner.lossAndGrad(x, g, scope);
      g.fill(0);
      let loss = 0;
      let first = true;
      for (let b = 0; b + 1 < bounds.length; b++) {
        const lo = Math.max(r0, bounds[b]!);
        const hi = Math.min(r1, bounds[b + 1]!);
        if (lo >= hi) continue;
        loss += inner.lossAndGrad(x, gc, { ...scope, rowStart: lo, rowEnd: hi, itemPrior: first && scope.itemPrior !== false });
        for (let t = 0; t < g.length; t++) g[t]! += gc[t]!;
        first = false;
      }
      return loss;
    },
  };
}

/** Row starts such that each chunk holds at most about `slots` observed option slots (one row at least). */
export function rowChunks(bank: ResponseBank, slots: number): number[] {
  const J = bank.models.length;
  const nC = bank.colItem.length;
  const bounds = [0];
  let acc = 0;
  for (let j = 0; j < J; j++) {
    let n = 0;
    for (let col = 0; col < nC; col++) n += bank.observed[j * nC + col]!;
    const rowSlots = n * bank.kMax;
    if (acc > 0 && acc + rowSlots > slots) {
      bounds.push(j);
      acc = 0;
    }
    acc += rowSlots;
  }
  bounds.push(J);
  return bounds;
}

/**
 * The 'tfjs' engine for core's `fit(bank, { engine })` (importing the package registers it:
 * `await loadEngine('tfjs')`, then `engine: 'tfjs'`). Loads tfjs once; every family of core's registry runs
 * (option-level families on the LLM-NRM graph, binary ones on correctness), chunked over LLM rows.
 *
 * @example
 *   const engine = await tfjsEngine();
 *   const result = fit(bank, { engine });
 *   engine.dispose();
 */
export async function tfjsEngine(options: TfjsEngineOptions = {}): Promise<TfjsEngine> {
  const loaded = options.tfjs ?? (await loadTfjs());
  const slots = options.chunkSlots ?? DEFAULT_CHUNK_SLOTS;
  if (!(slots > 0)) throw new LlmNrmError('INVALID_OPTION', `invalid chunkSlots: ${slots} (a positive number)`);
  const live = new Set<TfjsObjective>();
  const opts: TfjsObjectiveOptions = { gatherGradient: options.gatherGradient ?? 'auto' };
  return {
    name: 'tfjs',
    backend: loaded.backend,
    detail: loaded.detail,
    objective(bank: ResponseBank, family: ModelFamily, priors: Priors): Objective {
      const inner = tfjsFamilyObjective(bank, family, priors, loaded.tf, opts);
      live.add(inner);
      return chunkedObjective(inner, rowChunks(bank, slots));
    },
    dispose(): void {
      for (const o of live) o.dispose();
      live.clear();
    },
  };
}
