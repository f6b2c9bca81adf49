import { llmParamIndices } from '../model/registry.js';
import type { Objective } from '../model/objective.js';
import { standardizeInto, standardized } from '../internal/standardized.js';

export { standardized };

/**
 * The same objective with every non-LLM parameter (items, globals) held fixed: their gradient is
 * zeroed, and the item prior is left out of the loss since it is constant.
 */
export function freezeItems(inner: Objective): Objective {
  const layout = inner.layout;
  const free = new Uint8Array(inner.free.length);
  for (let j = 0; j < layout.nModels; j++) for (const t of llmParamIndices(layout, j)) free[t] = inner.free[t]!;
  return holding(inner, free, false);
}

/**
 * The mirror of freezeItems: every per-LLM parameter (theta, sharpness, bias, fallback) and the
 * globals (w0, kappa) held fixed, the items free. Given the LLMs each item's terms of the loss are
 * its own (paper.md's cross-entropy sums over cells), so this fits new items into a calibrated bank.
 * The fixed parameters' priors stay in the loss: constant, and the loss stays the full objective's.
 */
export function freezeLlms(inner: Objective): Objective {
  const layout = inner.layout;
  const free = Uint8Array.from(inner.free);
  for (let j = 0; j < layout.nModels; j++) for (const t of llmParamIndices(layout, j)) free[t] = 0;
  if (layout.kind === 'llm-nrm') free[layout.w0] = free[layout.kbar] = 0;
  return holding(inner, free, true);
}

/** inner with only `free` moving (the others' gradient zeroed); the item prior in the loss or not. */
function holding(inner: Objective, free: Uint8Array, itemPrior: boolean): Objective {
  return {
    layout: inner.layout,
    free,
    lossAndGrad(x, g, scope = {}) {
      const f = inner.lossAndGrad(x, g, itemPrior ? scope : { ...scope, itemPrior: false });
      for (let t = 0; t < g.length; t++) if (free[t] === 0) g[t] = 0;
      return f;
    },
  };
}

/** The objective with theta ~ N(0, sd^2) in place of N(0, 1). */
export function withThetaSd(inner: Objective, sd: number): Objective {
  const J = inner.layout.nModels;
  const lam = 1 / (sd * sd);
  return {
    layout: inner.layout,
    free: inner.free,
    lossAndGrad(x, g, scope = {}) {
      let f = inner.lossAndGrad(x, g, { ...scope, thetaPrior: false });
      if (scope.thetaPrior === false) return f;
      for (let j = scope.rowStart ?? 0; j < (scope.rowEnd ?? J); j++) {
        f += 0.5 * lam * x[j]! * x[j]!;
        if (inner.free[j]) g[j]! += lam * x[j]!;
      }
      return f;
    },
  };
}

/**
 * Reparametrise theta = (t - mean t) / sd t (theta occupies x[0..J) in every layout) and drop the
 * N(0,1) prior term: the objective in t, with the gradient by the chain rule
 * dL/dt_j = (g_j - mean g - theta_j mean(g theta)) / sd.
 */
export function standardizeTheta(inner: Objective): Objective {
  const J = inner.layout.nModels;
  // The standardised point, reused across passes (the inner objective keeps no reference to it).
  let xs = new Float64Array(0);
  return {
    layout: inner.layout,
    free: inner.free,
    lossAndGrad(x, g, scope = {}) {
      if (xs.length !== x.length) xs = new Float64Array(x.length);
      const sd = standardizeInto(x, J, xs);
      const f = inner.lossAndGrad(xs, g, { ...scope, thetaPrior: false });
      let mg = 0;
      let mgy = 0;
      for (let j = 0; j < J; j++) {
        mg += g[j]! / J;
        mgy += (g[j]! * xs[j]!) / J;
      }
      for (let j = 0; j < J; j++) g[j] = inner.free[j] ? (g[j]! - mg - xs[j]! * mgy) / sd : 0;
      return f;
    },
  };
}
