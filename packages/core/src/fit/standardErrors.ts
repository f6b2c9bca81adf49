import type { ResponseBank } from '../data/bank.js';
import type { CurvatureBuilder } from '../engines.js';
import type { ModelFamily } from '../model/family.js';
import { cholesky, choleskyInto, cholSolve } from '../internal/cholesky.js';
import type { Layout } from '../model/layout.js';
import { DEFAULT_PRIORS, type Priors } from '../model/objective.js';
import { LlmNrmError } from '../errors.js';

function itemPrecision(priors: Priors): number {
  const sd = priors.itemSd ?? DEFAULT_PRIORS.itemSd;
  return 1 / (sd * sd);
}

/** Standard errors of theta per LLM and whether each theta is identified by its data and priors. */
export interface ThetaStandardErrors {
  /** SE(theta_j) (see `errorModel`); Infinity where theta_j is not identified (its profiled information is ~0). */
  se: Float64Array;
  /** Profiled expected (Fisher) information of theta_j, 1 / [A^-1]_theta,theta. */
  information: Float64Array;
  /** Dispersion phi_j of LLM j's responses along theta's direction (1 under 'fisher' and for hard or binary data). */
  dispersion: Float64Array;
  /** The priors' expected squared bias of theta_j, the part of se^2 that no response noise explains ('quasi'; NaN under 'fisher'). */
  priorVariance: Float64Array;
  /** First-order shift of theta_j by the priors on its own nuisance parameters, -w^T S (x - mu) (NaN where unidentified). */
  priorShift: Float64Array;
  /** The fleet's spread rho_g per prior group, indexed by the family's group number ('quasi'; empty under 'fisher'). */
  spread: Float64Array;
  /** Under spread 'unbiased': per group the excess sum z^2 - sum_j phi_j s (1 - s) and the weight sum (1 - s)^2. */
  spreadEvidence?: { excess: Float64Array; weight: Float64Array };
}

export interface StandardErrorOptions {
  /** LLMs to compute (default all). */
  rows?: readonly number[];
  /** Profile each theta over the item parameters too (fleet fits). Default false: items held (scoring). */
  profileItems?: boolean;
  /**
   * 'fisher' (default): SE = sqrt([A^-1]_theta,theta), each cell one multinomial draw. 'quasi' (what
   * `fit` reports): the MAP's mean squared error w^T (phi H + rho S) w (see `thetaStandardErrors`).
   */
  errorModel?: 'fisher' | 'quasi';
  /**
   * The fleet's spread rho_g of each prior group under 'quasi'. 'posterior' (default): the mean of
   * z^2 + s, s the prior's share of the coordinate's information. 'unbiased': the moment with the
   * shrinkage undone and the noise at phi_j, (sum z^2 - phi_j s (1 - s)) / sum (1 - s)^2, floored at
   * SPREAD_FLOOR. 'measured': 'unbiased' for the groups the family's llmPrior lists as measured,
   * 'posterior' for the rest.
   */
  spread?: 'posterior' | 'unbiased' | 'measured';
  /** The family's curvature as an engine computes it (`Engine.curvature`), in place of `family.curvature`. */
  curvature?: CurvatureBuilder;
}

/** Inverse of a small symmetric positive definite matrix by Cholesky (internal; exported for tests). */
export function inverseSpd(H: Float64Array): Float64Array {
  const out = Float64Array.from(H);
  invertSpdInPlace(out, new InverseScratch());
  return out;
}

/** The factor and unit vector of invertSpdInPlace, one per block size, reused across blocks. */
export class InverseScratch {
  private readonly bySize: { L: Float64Array; e: Float64Array }[] = [];
  of(n: number): { L: Float64Array; e: Float64Array } {
    return (this.bySize[n] ??= { L: new Float64Array(n * n), e: new Float64Array(n) });
  }
}

/** inverseSpd(H) written over H, the same bits, with reused scratch (one block per item in the SEs). */
export function invertSpdInPlace(H: Float64Array, scratch: InverseScratch): void {
  const n = Math.round(Math.sqrt(H.length));
  const { L, e } = scratch.of(n);
  // choleskyInto writes every entry of L that is read later; its upper triangle stays 0.
  choleskyInto(H, n, L);
  for (let c = 0; c < n; c++) {
    // Forward solve from row c (e_c's first nonzero); the solves read only L.
    e.fill(0);
    e[c] = 1;
    cholSolve(L, n, e, c);
    for (let r = 0; r < n; r++) H[r * n + c] = e[r]!;
  }
}

/** Relative size below which theta's profiled information counts as zero (not identified). */
const UNIDENTIFIED = 1e-10;

/** Pseudo-cells of the fleet's pooled dispersion in each LLM's shrunk dispersion (c cells: relative SD about sqrt(2 / c)). */
const DISPERSION_PSEUDO_CELLS = 20;

/** A nuisance coordinate counts in its group's spread when its data carry at least this share of its information. */
const DATA_SHARE = 0.01;

/** The 'unbiased' spread's floor, in prior variances (StandardErrorOptions.spread). */
const SPREAD_FLOOR = 0.01;

/** rho_g per group (spread 'unbiased'): (sum z^2 - sum_j phi_j s (1 - s)) / sum (1 - s)^2, at least SPREAD_FLOOR. */
function unbiasedSpread(
  rho: Float64Array,
  usedGroups: Set<number>,
  momentZ: Float64Array,
  momentKeep: Float64Array,
  noiseShare: Float64Array[],
  phi: Float64Array,
  rows: readonly number[],
): { excess: Float64Array; weight: Float64Array } {
  const excess = new Float64Array(rho.length);
  for (const g of usedGroups) {
    if (!(momentKeep[g]! > 0)) continue;
    let noise = 0;
    for (const j of rows) {
      const ns = noiseShare[j];
      if (ns !== undefined && Number.isFinite(phi[j]!)) noise += phi[j]! * ns[g]!;
    }
    excess[g] = momentZ[g]! - noise;
    rho[g] = Math.max(SPREAD_FLOOR, excess[g]! / momentKeep[g]!);
  }
  return { excess, weight: momentKeep };
}

/** theta_j's profiled direction w = A^-1 e_theta over LLM j's kept parameters and the free globals. */
interface Direction {
  idx: Int32Array;
  w: Float64Array;
}

/**
 * SE(theta_j) from the expected (Gauss-Newton) information of LLM j's block at x, profiled over its
 * nuisance parameters (with `profileItems`, also the items it answered and the gate globals):
 *
 *   I_theta = a_tt - a_tn A_nn^-1 a_nt,   [A^-1]_tt = 1 / I_theta.
 *
 * The GN block is PSD by construction, unlike the observed Hessian where the gate curves.
 * `thetaPrecision` is theta's own prior precision (0 under standardisation).
 *
 * 'fisher': sqrt([A^-1]_tt), each soft target one multinomial draw. 'quasi': the MAP's mean squared
 * error to first order, with A = H + S and w = A^-1 e_theta,
 *
 *   E[(theta_hat - theta)^2] = w^T (phi H + S Sigma S) w,
 *
 * phi_j the observed over multinomial score variance along w (1 for hard cells and binary
 * families), and rho_g Sigma = S^-1 per prior group g, rho_g the fleet's spread in prior SDs
 * (StandardErrorOptions.spread).
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
  const quasi = options.errorModel === 'quasi';
  const J = layout.nModels;
  const rows = options.rows ?? Array.from({ length: J }, (_, t) => t);
  const se = new Float64Array(J).fill(NaN);
  const information = new Float64Array(J).fill(NaN);
  const dispersion = new Float64Array(J).fill(quasi ? NaN : 1);
  const priorVariance = new Float64Array(J).fill(NaN);
  const priorShift = new Float64Array(J).fill(NaN);
  // Every LLM parameter counts as free here: under fixItems only those are, in a fleet fit too.
  const llmFree = new Uint8Array(free.length).fill(1);
  const at = options.curvature ?? family.curvature(bank, layout, priors);
  // blocksUnused: the preconditioner's factorisations are not built.
  const curv = at(x, llmFree, { cross: true, blocksUnused: true });
  // Items estimated with the fleet: profile theta_j over the items it answered too, each item's
  // information being the whole fleet's.
  const profileItems = options.profileItems && curv.itemGN !== undefined;
  let itemDf = 0;
  let llmItem: Float64Array[] | undefined;
  let llmItemGlobals: Float64Array[] | undefined;
  // The LLM blocks are read only after the item corrections (an engine may sum them in that pass).
  let netGlobals: ((globals: Float64Array) => Float64Array) | undefined;
  if (profileItems) {
    // The item blocks are inverted in place (CurvatureAt.itemGN: the SEs consume them).
    const inv = curv.itemGN!;
    const scratch = new InverseScratch();
    // Effective parameters the items use: 2K - lamItem tr(D_i^-1) each.
    const lamItem = itemPrecision(priors);
    for (const D of inv) {
      invertSpdInPlace(D, scratch);
      const n2 = Math.round(Math.sqrt(D.length));
      let tr = 0;
      for (let a = 0; a < n2; a++) tr += D[a * n2 + a]!;
      itemDf += n2 - lamItem * tr;
    }
    // Z_i = D_i^-1 G_i; the globals' information net of the items: Hg - sum_i G_i^T D_i^-1 G_i.
    const G = curv.itemGlobals;
    const nG0 = curv.globalIndices?.length ?? 0;
    let itemZ: Float64Array[] | undefined;
    if (G !== undefined && curv.globalIndices !== undefined && nG0 > 0) {
      // One buffer for every item's Z, each a view.
      let zLength = 0;
      for (const D of inv) zLength += Math.round(Math.sqrt(D.length)) * nG0;
      const zAll = new Float64Array(zLength);
      let zAt = 0;
      itemZ = G.map((Gi, i) => {
        const D = inv[i]!;
        const n2 = Math.round(Math.sqrt(D.length));
        const Z = zAll.subarray(zAt, (zAt += n2 * nG0));
        for (let a = 0; a < n2; a++)
          for (let g = 0; g < nG0; g++) {
            let acc = 0;
            for (let b = 0; b < n2; b++) acc += D[a * n2 + b]! * Gi[b * nG0 + g]!;
            Z[a * nG0 + g] = acc;
          }
        return Z;
      });
      const Zs = itemZ;
      netGlobals = (globals) => {
        const Hg = Float64Array.from(globals);
        G.forEach((Gi, i) => {
          const Z = Zs[i]!;
          const n2 = Z.length / nG0;
          for (let g = 0; g < nG0; g++)
            for (let h = 0; h < nG0; h++) {
              let acc = 0;
              for (let a = 0; a < n2; a++) acc += Gi[a * nG0 + g]! * Z[a * nG0 + h]!;
              Hg[g * nG0 + h]! -= acc;
            }
        });
        return Hg;
      };
    }
    const second = at(x, llmFree, itemZ ? { itemInverse: inv, itemZ, correctionOnly: true } : { itemInverse: inv, correctionOnly: true });
    llmItem = second.llmItem;
    llmItemGlobals = second.llmItemGlobals;
  }
  const { llm } = curv;
  let globals = curv.globals;
  if (netGlobals !== undefined && globals !== undefined) globals = netGlobals(globals);
  // The gate globals estimated with the fleet: theta_j is profiled over them too (else a step-like
  // gate lends theta spurious precision).
  const gIdx = curv.globalIndices ?? [];
  const gKeep: number[] = [];
  gIdx.forEach((t, a) => {
    if (free[t]) gKeep.push(a);
  });
  const nG = gIdx.length;
  // Per LLM: the direction w, the prior parts w^T S_g w by group (0: theta's prior); the fleet's moments per group.
  const dirs: (Direction | undefined)[] = new Array(J);
  const nGroups = 256;
  const groupPart: Float64Array[] = new Array(J);
  const moment = new Float64Array(nGroups);
  const momentCount = new Float64Array(nGroups);
  const usedGroups = new Set<number>();
  // 'unbiased' spread: sum z^2 and sum (1 - s)^2 per group, and per LLM its sum s (1 - s) per group.
  const unbiased = options.spread === 'unbiased' || options.spread === 'measured';
  // Under 'measured', the groups any LLM's prior lists as measured.
  const measured = options.spread === 'measured' ? new Set<number>() : null;
  const momentZ = new Float64Array(nGroups);
  const momentKeep = new Float64Array(nGroups);
  const noiseShare: Float64Array[] = unbiased ? new Array(J) : [];
  // Parameters the fit spent on the computed LLMs (trace of A^-1 H), for the residual df.
  let llmDf = 0;
  for (const j of rows) {
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
    let y: Float64Array | undefined;
    let Lc: Float64Array | undefined;
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
      y = Float64Array.from(h);
      Lc = cholesky(Hnn, n);
      cholSolve(Lc, n, y);
      let q = 0;
      for (let a = 0; a < n; a++) q += h[a]! * y[a]!;
      info = itt - q;
    }
    information[j] = info;
    const identified = info > UNIDENTIFIED * Math.max(itt, 1e-300);
    se[j] = identified ? 1 / Math.sqrt(info) : Infinity;
    if (!identified) continue;
    // w = A^-1 e_theta = (1, -A_nn^-1 a_nt) / I_theta.
    const w0 = 1 / info;
    const idx = new Int32Array(1 + n);
    const w = new Float64Array(1 + n);
    idx[0] = all[0]!;
    w[0] = w0;
    for (let a = 0; a < nL; a++) idx[1 + a] = all[keep[a]!]!;
    for (let ga = 0; ga < n - nL; ga++) idx[1 + nL + ga] = gIdx[gKeep[ga]!]!;
    for (let a = 0; a < n; a++) w[1 + a] = -y![a]! * w0;
    dirs[j] = { idx, w };
    const parts = new Float64Array(nGroups);
    parts[0] = thetaPrecision * w0 * w0;
    llmDf += nL + 1 - thetaPrecision * w0; // the globals count once, below
    const pr = family.llmPrior(layout, x, priors, j);
    let shift = 0;
    if (measured !== null) for (const g of pr.measured ?? []) measured.add(g);
    const e = new Float64Array(n);
    for (let a = 0; a < nL; a++) {
      const r = keep[a]!;
      const g = pr.group[r]!;
      const lam = pr.precision[r]!;
      if (g === 0 || !(lam > 0)) continue;
      usedGroups.add(g);
      parts[g]! += lam * w[1 + a]! * w[1 + a]!;
      // The prior's gradient on this coordinate is sqrt(lam) z (z in prior SDs).
      shift -= w[1 + a]! * Math.sqrt(lam) * pr.z[r]!;
      // Posterior variance of this coordinate: [A_nn^-1]_aa + y_a^2 / I_theta.
      e.fill(0);
      e[a] = 1;
      cholSolve(Lc!, n, e);
      const v = e[a]! + y![a]! * y![a]! * w0;
      const shrink = lam * v; // the prior's share of its information
      llmDf -= shrink;
      if (1 - shrink >= DATA_SHARE) {
        moment[g]! += pr.z[r]! * pr.z[r]! + shrink;
        momentCount[g]! += 1;
        if (unbiased) {
          momentZ[g]! += pr.z[r]! * pr.z[r]!;
          momentKeep[g]! += (1 - shrink) * (1 - shrink);
          (noiseShare[j] ??= new Float64Array(nGroups))[g]! += shrink * (1 - shrink);
        }
      }
    }
    groupPart[j] = parts;
    priorShift[j] = shift;
  }
  if (!quasi) return { se, information, dispersion, priorVariance, priorShift, spread: new Float64Array(0) };
  // rho_g: the fleet's spread of group g in prior SDs (1, the prior itself, where no LLM informs it).
  const rho = new Float64Array(nGroups).fill(1);
  for (const g of usedGroups) if (momentCount[g]! > 0) rho[g] = moment[g]! / momentCount[g]!;
  // The items' and globals' share of the spent parameters goes with the computed rows' share of the cells.
  const share = rows.length / Math.max(1, J);
  const phi = directionalDispersion(family, bank, layout, x, dirs, rows, llmDf + share * (itemDf + gKeep.length));
  const evidence = unbiased ? unbiasedSpread(rho, measured ?? usedGroups, momentZ, momentKeep, noiseShare, phi, rows) : undefined;
  for (const j of rows) {
    const d = dirs[j];
    if (d === undefined) continue;
    const parts = groupPart[j]!;
    let prior = 0;
    let priorFull = parts[0]!;
    prior += parts[0]!;
    for (const g of usedGroups) {
      priorFull += parts[g]!;
      prior += rho[g]! * parts[g]!;
    }
    // The data part w^T H w = [A^-1]_tt - w^T S w (>= 0 up to rounding).
    const data = Math.max(0, d.w[0]! - priorFull);
    dispersion[j] = phi[j]!;
    priorVariance[j] = prior;
    se[j] = Math.sqrt(phi[j]! * data + prior);
  }
  return {
    se,
    information,
    dispersion,
    priorVariance,
    priorShift,
    spread: rho.slice(0, 1 + Math.max(0, ...usedGroups)),
    ...(evidence ? { spreadEvidence: evidence } : {}),
  };
}

/**
 * phi_j: observed over multinomial score variance of LLM j's cells along its direction w, pooled over
 * `rows` and shrunk per LLM (DISPERSION_PSEUDO_CELLS). The score along w is sum_k (Q p_k - q_k) d_k,
 * d_k = d log p_k / dw.
 */
function directionalDispersion(
  family: ModelFamily,
  bank: ResponseBank,
  layout: Layout,
  x: Float64Array,
  dirs: (Direction | undefined)[],
  rows: readonly number[],
  spentDf: number,
): Float64Array {
  const J = layout.nModels;
  const phi = new Float64Array(J).fill(1);
  if (family.kind !== 'option-level') return phi; // binary correctness: one Bernoulli draw per cell is the data model
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC]!;
  const { q, observed, hard, colOffsets } = bank;
  const num = new Float64Array(J);
  const den = new Float64Array(J);
  const cells = new Float64Array(J);
  const p0 = new Float64Array(bank.kMax);
  const dv = new Float64Array(bank.kMax);
  const base = family.predictor(bank, layout, x);
  // Scores summed per item before squaring: cluster-robust by item (rotations share the item's misfit).
  const itemScore = new Float64Array(bank.items.length);
  const touched: number[] = [];
  let numAll = 0;
  let denAll = 0;
  let dims = 0; // sum of K - 1 over the computed LLMs' soft cells
  for (const j of rows) {
    const d = dirs[j];
    if (d === undefined) continue;
    let wmax = 0;
    for (let a = 0; a < d.w.length; a++) wmax = Math.max(wmax, Math.abs(d.w[a]!));
    if (!(wmax > 0) || !Number.isFinite(wmax)) continue;
    // d log p_k / dw = dv_k - p.dv, from the logits' analytic derivative along w (the same SEs as
    // central differences to 1e-8: standardErrors.test.ts).
    const along = base.along?.(j, d.idx, d.w) ?? null;
    if (along === null) throw new LlmNrmError('INVALID_OPTION', `the ${family.name} predictor has no derivative along theta's direction (Predictor.along)`);
    touched.length = 0;
    for (let c = 0; c < nC; c++) {
      if (observed[j * nC + c] === 0) continue;
      const co = colOffsets[c]!;
      const K = colOffsets[c + 1]! - co;
      const o = j * width + co;
      // Q beside p.dv in one loop (the same sums in the same order as two).
      let Q = 0;
      let mean = 0;
      along(c, p0, dv);
      for (let k = 0; k < K; k++) {
        mean += p0[k]! * dv[k]!;
        Q += q[o + k]!;
      }
      let s = 0;
      let m1 = 0;
      let m2 = 0;
      for (let k = 0; k < K; k++) {
        const dk = dv[k]! - mean;
        s += (Q * p0[k]! - q[o + k]!) * dk;
        m1 += p0[k]! * dk;
        m2 += p0[k]! * dk * dk;
      }
      const e = Q * Math.max(0, m2 - m1 * m1);
      den[j]! += e;
      cells[j]! += 1;
      if (hard[j * nC + c]) {
        num[j]! += e; // one draw: the multinomial variance is exact
        continue;
      }
      dims += K - 1;
      const i = bank.colItem[c]!;
      if (itemScore[i] === 0) touched.push(i);
      itemScore[i]! += s;
    }
    for (const i of touched) {
      num[j]! += itemScore[i]! * itemScore[i]!;
      itemScore[i] = 0;
    }
    numAll += num[j]!;
    denAll += den[j]!;
  }
  // Residual df (quasi-likelihood's X^2 / (N - p)), capped so a fit with about as many parameters as data keeps a finite phi.
  const df = dims > 0 ? dims / Math.max(dims - spentDf, 0.1 * dims) : 1;
  const pooled = denAll > 0 ? (numAll / denAll) * df : 1;
  for (const j of rows) {
    if (dirs[j] === undefined) continue;
    const ebar = cells[j]! > 0 ? den[j]! / cells[j]! : 0;
    const prior = DISPERSION_PSEUDO_CELLS * ebar;
    phi[j] = den[j]! + prior > 0 ? (num[j]! * df + pooled * prior) / (den[j]! + prior) : pooled;
  }
  return phi;
}
