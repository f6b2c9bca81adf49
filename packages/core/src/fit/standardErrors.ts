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

export interface StandardErrorOptions {
  /** LLMs to compute (default all). */
  rows?: readonly number[];
  /**
   * Profile each theta over the item parameters as well (fleet fits, where items are estimated from
   * the same LLMs). Default false: items held at their values (scoring against a calibration).
   */
  profileItems?: boolean;
}

/**
 * [H^-1]_00 of a symmetric P x P matrix by Cholesky (a shifted factor if H is not positive
 * definite, so the value stays finite): solve H y = e_0 and read y_0.
 */
export function inverseFirstDiagonal(H: Float64Array, P: number): number {
  const y = new Float64Array(P);
  y[0] = 1;
  cholSolve(cholesky(H, P), P, y);
  return y[0]!;
}

/** Inverse of a small symmetric positive definite matrix by Cholesky. */
function inverseSpd(H: Float64Array): Float64Array {
  const n = Math.round(Math.sqrt(H.length));
  const L = cholesky(H, n);
  const out = new Float64Array(n * n);
  const e = new Float64Array(n);
  for (let c = 0; c < n; c++) {
    e.fill(0);
    e[c] = 1;
    cholSolve(L, n, e);
    for (let r = 0; r < n; r++) out[r * n + c] = e[r]!;
  }
  return out;
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
  options: StandardErrorOptions = {},
): ThetaStandardErrors {
  const rows = options.rows;
  const J = layout.nModels;
  const se = new Float64Array(J).fill(NaN);
  const information = new Float64Array(J).fill(NaN);
  // Every LLM parameter counts as free here: under fixItems only those are, in a fleet fit too.
  const llmFree = new Uint8Array(free.length).fill(1);
  const at = family.curvature(bank, layout, priors);
  const curv = at(x, llmFree, { cross: true });
  // Items estimated with the fleet (not held fixed, as in scoring): profile theta_j over the items
  // it answered too, each item's information being the whole fleet's (other LLMs held at their
  // estimates). With few LLMs per item this is most of theta's uncertainty (NAEP: 18 LLMs).
  const profileItems = options.profileItems && curv.itemGN !== undefined;
  let llmItem: Float64Array[] | undefined;
  let llmItemGlobals: Float64Array[] | undefined;
  let globals = curv.globals;
  if (profileItems) {
    const inv = curv.itemGN!.map(inverseSpd);
    // Z_i = D_i^-1 G_i (items' cross with the globals); the globals' information net of the items:
    // Hg - sum_i G_i^T D_i^-1 G_i.
    const G = curv.itemGlobals;
    const nG0 = curv.globalIndices?.length ?? 0;
    let itemZ: Float64Array[] | undefined;
    if (G !== undefined && globals !== undefined && nG0 > 0) {
      itemZ = G.map((Gi, i) => {
        const D = inv[i]!;
        const n2 = Math.round(Math.sqrt(D.length));
        const Z = new Float64Array(n2 * nG0);
        for (let a = 0; a < n2; a++) for (let g = 0; g < nG0; g++) {
          let acc = 0;
          for (let b = 0; b < n2; b++) acc += D[a * n2 + b]! * Gi[b * nG0 + g]!;
          Z[a * nG0 + g] = acc;
        }
        return Z;
      });
      const Hg = Float64Array.from(globals);
      G.forEach((Gi, i) => {
        const Z = itemZ![i]!;
        const n2 = Z.length / nG0;
        for (let g = 0; g < nG0; g++) for (let h = 0; h < nG0; h++) {
          let acc = 0;
          for (let a = 0; a < n2; a++) acc += Gi[a * nG0 + g]! * Z[a * nG0 + h]!;
          Hg[g * nG0 + h]! -= acc;
        }
      });
      globals = Hg;
    }
    const second = at(x, llmFree, itemZ ? { itemInverse: inv, itemZ } : { itemInverse: inv });
    llmItem = second.llmItem;
    llmItemGlobals = second.llmItemGlobals;
  }
  const { llm } = curv;
  // Global parameters (the gate's w0, kbar) estimated with the fleet: theta_j is profiled over them
  // too, with their information from every cell. Without this, a gate that the fit made a step
  // (kappa in the hundreds, as on a 4 x 6 fleet) lends theta the step's huge, spurious precision.
  const gIdx = curv.globalIndices ?? [];
  const gKeep: number[] = [];
  gIdx.forEach((t, a) => {
    if (free[t]) gKeep.push(a);
  });
  const nG = gIdx.length;
  for (const j of rows ?? Array.from({ length: J }, (_, t) => t)) {
    const all = family.llmIndices(layout, j);
    const P = all.length;
    const H = Float64Array.from(llm[j]!);
    const corr = llmItem?.[j];
    if (corr !== undefined) for (let t = 0; t < H.length; t++) H[t]! -= corr[t]!;
    let X = curv.llmGlobals?.[j];
    const xz = llmItemGlobals?.[j];
    if (X !== undefined && xz !== undefined) {
      X = Float64Array.from(X);
      for (let t = 0; t < X.length; t++) X[t]! -= xz[t]!;
    }
    // Keep theta (position 0) and the free nuisance parameters, then the free globals.
    const keep: number[] = [];
    for (let r = 1; r < P; r++) if (free[all[r]!]) keep.push(r);
    const itt = H[0]! + thetaPrecision;
    const nL = keep.length;
    const n = nL + (X ? gKeep.length : 0);
    let info = itt;
    if (n > 0) {
      const Hnn = new Float64Array(n * n);
      const h = new Float64Array(n);
      for (let a = 0; a < nL; a++) {
        h[a] = H[keep[a]!]!;
        for (let b = 0; b < nL; b++) Hnn[a * n + b] = H[keep[a]! * P + keep[b]!]!;
      }
      if (X) {
        const Hg = globals!;
        for (let ga = 0; ga < gKeep.length; ga++) {
          const a = nL + ga;
          const gc = gKeep[ga]!;
          h[a] = X[gc]!;
          for (let b = 0; b < nL; b++) {
            Hnn[a * n + b] = X[keep[b]! * nG + gc]!;
            Hnn[b * n + a] = X[keep[b]! * nG + gc]!;
          }
          for (let gb = 0; gb < gKeep.length; gb++) Hnn[a * n + nL + gb] = Hg[gc * nG + gKeep[gb]!]!;
        }
      }
      const y = Float64Array.from(h);
      cholSolve(cholesky(Hnn, n), n, y);
      let q = 0;
      for (let a = 0; a < n; a++) q += h[a]! * y[a]!;
      info = itt - q;
    }
    information[j] = info;
    const identified = info > UNIDENTIFIED * Math.max(itt, 1e-300);
    se[j] = identified ? 1 / Math.sqrt(info) : Infinity;
  }
  return { se, information };
}
