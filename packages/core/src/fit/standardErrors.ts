import type { ResponseBank } from '../bank.js';
import type { ModelFamily } from '../families/family.js';
import { cholesky, cholSolve } from '../internal/cholesky.js';
import type { Layout } from '../layout.js';
import type { Priors } from '../objective.js';

/** Standard errors of theta per LLM and whether each theta is identified by its data and priors. */
export interface ThetaStandardErrors {
  /** SE(theta_j); Infinity where theta_j is not identified (its profiled information is ~0). */
  se: Float64Array;
  /** Profiled Fisher information of theta_j (1 / se^2). */
  information: Float64Array;
}

/**
 * Relative size below which theta's profiled information counts as zero: the nuisance parameters
 * (sharpness, bias, fallback) then explain everything theta would (an LLM whose every answer the
 * fallback absorbs), and no finite SE is honest.
 */
const UNIDENTIFIED = 1e-10;

/**
 * SE(theta_j) from the expected (Fisher, Gauss-Newton) information of LLM j's own block at x, item
 * parameters held at their estimates, profiled over the LLM's nuisance parameters:
 *
 *   I = [[i_tt, i_tn], [i_nt, I_nn]],   I_theta = i_tt - i_tn I_nn^-1 i_nt,   SE = 1 / sqrt(I_theta),
 *
 * i.e. sqrt([I^-1]_theta,theta). For softmax cross-entropy the GN block sum_cells J^T Q (diag p - p p^T) J
 * is the expected information and positive semi-definite by construction, unlike the observed
 * Hessian by differences, which is indefinite where the gate curves (measured: an LLM of a 4 x 6
 * simulated fleet got SE 0.012 through a shifted Cholesky of such a Hessian, its peers 1.5).
 * The priors on the nuisance parameters make I_nn positive definite; `thetaPrecision` is theta's
 * own prior precision (0 under standardisation: the fleet pins the scale, not a prior).
 */
export function thetaStandardErrors(
  family: ModelFamily,
  bank: ResponseBank,
  layout: Layout,
  x: Float64Array,
  free: Uint8Array,
  priors: Priors,
  thetaPrecision: number,
  rows?: readonly number[],
): ThetaStandardErrors {
  const J = layout.nModels;
  const se = new Float64Array(J).fill(NaN);
  const information = new Float64Array(J).fill(NaN);
  // Every LLM parameter counts as free here: under fixItems only those are, in a fleet fit too.
  const llmFree = new Uint8Array(free.length).fill(1);
  const { llm } = family.curvature(bank, layout, priors)(x, llmFree);
  for (const j of rows ?? Array.from({ length: J }, (_, t) => t)) {
    const all = family.llmIndices(layout, j);
    const P = all.length;
    const H = llm[j]!;
    // Keep theta (position 0) and the free nuisance parameters.
    const keep: number[] = [];
    for (let r = 1; r < P; r++) if (free[all[r]!]) keep.push(r);
    const itt = H[0]! + thetaPrecision;
    let info = itt;
    const n = keep.length;
    if (n > 0) {
      const Hnn = new Float64Array(n * n);
      const h = new Float64Array(n);
      for (let a = 0; a < n; a++) {
        h[a] = H[keep[a]!]!;
        for (let b = 0; b < n; b++) Hnn[a * n + b] = H[keep[a]! * P + keep[b]!]!;
      }
      const y = Float64Array.from(h);
      cholSolve(cholesky(Hnn, n), n, y);
      let q = 0;
      for (let a = 0; a < n; a++) q += h[a]! * y[a]!;
      info = itt - q;
    }
    information[j] = info;
    se[j] = info > UNIDENTIFIED * Math.max(itt, 1e-300) ? 1 / Math.sqrt(info) : Infinity;
  }
  return { se, information };
}
