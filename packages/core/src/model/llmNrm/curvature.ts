import type { ResponseBank } from '../../data/bank.js';
import { ITEM_STEP_CAP, LLM_STEP_CAP } from '../../internal/stepCaps.js';
import { computeDifficulties } from '../difficulty.js';
import { difficultyGradBase, difficultyGradColumn, difficultyGradScratch } from './difficultyGradColumns.js';
import { Blocks } from '../../internal/blocks.js';
import { gateGrad, llmNrmItemCorrections, oneCellPerItem, prepareItems } from './itemCorrection.js';
import { sigmoid, softplus, type LlmNrmLayout } from '../layout.js';
import { cellWeights } from './cellWeights.js';
import { llmNrmParamIndices } from './layout.js';
import { priorPrecisions, type Priors } from '../objective.js';
import { LlmNrmError } from '../../errors.js';
import type { CurvatureAt, CurvatureOptions } from '../family.js';

/**
 * Block Gauss-Newton curvature of the LLM-NRM objective at x (see BlockPreconditioner): the cell sums
 * in TypeScript (llmNrmCurvatureSums), assembled as an engine's are (llmNrmCurvatureFromSums); with
 * itemInverse the SEs' item corrections too (llmNrmItemCorrections), with correctionOnly only those.
 */
export function llmNrmCurvature(
  bank: ResponseBank,
  L: LlmNrmLayout,
  x: Float64Array,
  free: Uint8Array,
  priors: Priors,
  opts: CurvatureOptions = {},
): CurvatureAt {
  const { itemInverse, itemZ, correctionOnly, ...rest } = opts;
  const out: CurvatureAt =
    itemInverse !== undefined && correctionOnly === true
      ? { blocks: new Blocks(L.size), llm: [] }
      : llmNrmCurvatureFromSums(bank, L, x, free, priors, llmNrmCurvatureSums(bank, L, x, opts.cross === true), rest);
  if (itemInverse === undefined) return out;
  const corrections = llmNrmItemCorrections(bank, L, x, itemInverse, itemZ);
  out.llmItem = corrections.llmItem;
  if (itemZ) out.llmItemGlobals = corrections.llmItemGlobals;
  return out;
}

/** The cell sums of llmNrmCurvature at x (LlmNrmCurvatureSums), as an engine computes them; with `cross` the cross blocks' sums too. */
function llmNrmCurvatureSums(bank: ResponseBank, L: LlmNrmLayout, x: Float64Array, cross: boolean): LlmNrmCurvatureSums {
  const J = L.nModels;
  const I = L.nItems;
  const Kmax = L.kMax;
  const P = 2 + 2 * Kmax;
  const { sharpness: useS, position: usePos, fallback: useFb } = L.parts;
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC]!;
  const { q, observed, colItem, colOffsets, itemOffsets, colPosition } = bank;
  const b = new Float64Array(I);
  const aux = new Float64Array(3 * I);
  const wts = new Float64Array(L.sumK);
  if (useFb) computeDifficulties(bank, x, L.a, L.c, b, aux, wts);
  // The gate's b_i depends on a_i, c_i: the Jacobian of v in the item block is A + h t^T, with
  // h_k = dv_k/db_i and t = db_i/d(a_i, c_i). Its GN block adds u t^T + t u^T + (h^T M h) t t^T,
  // u = A^T M h. Without it the GN step ignores that moving a_i can flip the gate.
  const U1 = new Float64Array(L.sumK);
  const U0 = new Float64Array(L.sumK);
  const HH = new Float64Array(I);
  // dL/db_i over all cells: the weight of b_i's own curvature in the item block's Hessian.
  const GB = new Float64Array(I);
  const w0 = x[L.w0]!;
  const kappa = useFb ? softplus(x[L.kbar]!) : 0;
  const dkappa = sigmoid(x[L.kbar]!);
  // Item accumulators: S_m = sum over cells of w^2 theta^m M (m = 0, 1, 2), K x K each.
  const sq = itemSquareOffsets(bank);
  const S0 = new Float64Array(sq[I]!);
  const S1 = new Float64Array(sq[I]!);
  const S2 = new Float64Array(sq[I]!);
  const Hg = new Float64Array(4); // globals (w0, kbar)
  const p = new Float64Array(Kmax);
  const zd = new Float64Array(Kmax);
  const pos = new Int32Array(Kmax);
  const mass = new Float64Array(1);
  const u = new Float64Array(P);
  const touched = new Int32Array(2 + 2 * Kmax);
  // Per LLM j its P x P block at j P^2 (upper triangle).
  const llm = new Float64Array(J * P * P);
  // LLM-globals cross blocks (P x 2 per LLM at 2 P j, over w0 and kbar), for the SEs' profile over the gate.
  const withCross = cross && useFb;
  const llmGlobals = new Float64Array(withCross ? J * 2 * P : 0);
  // Item-globals cross blocks over every cell (2K x 2 per item: a_i then c_i, by w0, kbar), and the
  // per-option global Jacobians of the current cell.
  const IG = withCross ? new Float64Array(2 * 2 * L.sumK) : null;
  const EG = withCross ? new Float64Array(2 * I) : null;
  const JW = new Float64Array(Kmax);
  const JK = new Float64Array(Kmax);
  for (let j = 0; j < J; j++) {
    const HL = llm.subarray(j * P * P, (j + 1) * P * P);
    const HX = llmGlobals.subarray(withCross ? 2 * P * j : 0, withCross ? 2 * P * (j + 1) : 0);
    const th = x[L.theta + j]!;
    const sb = x[L.sbar + j]!;
    const s = useS ? softplus(sb) : 1;
    const ds = sigmoid(sb);
    const dOff = L.delta + j * Kmax;
    const rOff = L.rho + j * Kmax;
    for (let col = 0; col < nC; col++) {
      if (observed[j * nC + col] === 0) continue;
      const i = colItem[col]!;
      const io = itemOffsets[i]!;
      const co = colOffsets[col]!;
      const K = colOffsets[col + 1]! - co;
      const qo = j * width + co;
      const G = useFb ? sigmoid(w0 - kappa * (th - b[i]!)) : 0;
      const omg = 1 - G;
      const sum = cellWeights(L, x, q, colPosition, co, io, qo, K, th, s, G, dOff, rOff, pos, zd, p, mass);
      const Q = mass[0]!;
      for (let k = 0; k < K; k++) p[k]! /= sum;
      // Item block: w = (1 - G) s; M = Q (diag p - p p^T).
      const w2 = omg * s * omg * s * Q;
      const base = sq[i]!;
      const th2 = th * th;
      for (let k = 0; k < K; k++) {
        const pk = p[k]!;
        const wk = w2 * pk;
        for (let l = k; l < K; l++) {
          const mkl = (k === l ? wk : 0) - wk * p[l]!;
          const t = base + k * K + l;
          S0[t]! += mkl;
          S1[t]! += mkl * th;
          S2[t]! += mkl * th2;
        }
      }
      const gg = G * omg;
      if (useFb) {
        // h_k = dv_k/db = (rho - s z_k) G (1 - G) kappa; (M h)_k = Q p_k (h_k - p.h).
        let ph = 0;
        for (let k = 0; k < K; k++) ph += p[k]! * (x[rOff + pos[k]!]! - s * zd[k]!);
        ph *= gg * kappa;
        const wq = omg * s * Q;
        let hMh = 0;
        let rh = 0;
        for (let k = 0; k < K; k++) {
          const hk = (x[rOff + pos[k]!]! - s * zd[k]!) * gg * kappa;
          rh += (Q * p[k]! - q[qo + k]!) * hk;
          const mh = p[k]! * (hk - ph);
          U1[io + k]! += wq * th * mh;
          U0[io + k]! += wq * mh;
          hMh += Q * hk * mh;
        }
        HH[i]! += hMh;
        GB[i]! += rh;
      }
      // LLM block: sparse Jacobian rows J_k over (theta, sbar, delta_pos, rho_pos).
      u.fill(0);
      let ug0 = 0;
      let ug1 = 0;
      let gq0 = 0;
      let gq1 = 0;
      let gq01 = 0;
      for (let k = 0; k < K; k++) {
        const rho = useFb ? x[rOff + pos[k]!]! : 0;
        const dvdG = rho - s * zd[k]!;
        const jt = omg * s * x[L.a + io + k]! - dvdG * kappa * gg;
        const js = useS ? omg * zd[k]! * ds : 0;
        const jd = usePos ? omg * s : 0;
        const jr = useFb ? G : 0;
        const pk = p[k]!;
        u[0]! += pk * jt;
        u[1]! += pk * js;
        u[2 + pos[k]!]! += pk * jd;
        u[2 + Kmax + pos[k]!]! += pk * jr;
        // sum_k p_k J_k J_k^T over (theta, sbar, delta_pos, rho_pos), written out (hot loop).
        const i2 = 2 + pos[k]!;
        const i3 = 2 + Kmax + pos[k]!;
        const wq = pk * Q;
        HL[0]! += wq * jt * jt;
        HL[1]! += wq * jt * js;
        HL[P + 1]! += wq * js * js;
        HL[i2]! += wq * jt * jd;
        HL[P + i2]! += wq * js * jd;
        HL[i2 * P + i2]! += wq * jd * jd;
        HL[i3]! += wq * jt * jr;
        HL[P + i3]! += wq * js * jr;
        HL[i2 * P + i3]! += wq * jd * jr;
        HL[i3 * P + i3]! += wq * jr * jr;
        // Globals: dv/dw0 = dvdG G(1-G); dv/dkbar = -(theta - b) dvdG G(1-G) kappa'.
        if (useFb) {
          const jw = dvdG * gg;
          const jk = -(th - b[i]!) * dvdG * gg * dkappa;
          JW[k] = jw;
          JK[k] = jk;
          gq0 += pk * jw * jw;
          gq1 += pk * jk * jk;
          gq01 += pk * jw * jk;
          ug0 += pk * jw;
          ug1 += pk * jk;
          if (withCross) {
            const a0 = wq * jw;
            const a1 = wq * jk;
            HX[0]! += a0 * jt;
            HX[1]! += a1 * jt;
            HX[2]! += a0 * js;
            HX[3]! += a1 * js;
            HX[2 * i2]! += a0 * jd;
            HX[2 * i2 + 1]! += a1 * jd;
            HX[2 * i3]! += a0 * jr;
            HX[2 * i3 + 1]! += a1 * jr;
          }
        }
      }
      // - Q u u^T over the touched indices (upper triangle; mirrored after the LLM's cells), each entry
      // once, written out by kind (the positions are a permutation).
      {
        const q0 = u[0]! * Q;
        const q1 = u[1]! * Q;
        if (q0 !== 0) {
          HL[0]! -= q0 * u[0]!;
          HL[1]! -= q0 * u[1]!;
        }
        if (q1 !== 0) HL[P + 1]! -= q1 * u[1]!;
        for (let k = 0; k < K; k++) {
          const i2 = 2 + pos[k]!;
          const i3 = 2 + Kmax + pos[k]!;
          const ud = u[i2]!;
          const ur = u[i3]!;
          if (q0 !== 0) {
            HL[i2]! -= q0 * ud;
            HL[i3]! -= q0 * ur;
          }
          if (q1 !== 0) {
            HL[P + i2]! -= q1 * ud;
            HL[P + i3]! -= q1 * ur;
          }
          const qd = ud * Q;
          const qr = ur * Q;
          for (let l = 0; l < K; l++) {
            const l2 = 2 + pos[l]!;
            const l3 = 2 + Kmax + pos[l]!;
            if (qd !== 0) {
              if (l2 >= i2) HL[i2 * P + l2]! -= qd * u[l2]!;
              HL[i2 * P + l3]! -= qd * u[l3]!;
            }
            if (qr !== 0 && l3 >= i3) HL[i3 * P + l3]! -= qr * u[l3]!;
          }
        }
      }
      if (withCross) {
        // Item-globals: a_l, c_l enter v_l as (1 - G) s (a_l theta + c_l); b_i through h t^T.
        const wbase = Q * omg * s;
        let ph = 0;
        let phw = 0;
        let phk = 0;
        for (let l = 0; l < K; l++) {
          const f = wbase * p[l]!;
          const w0l = f * (JW[l]! - ug0);
          const w1l = f * (JK[l]! - ug1);
          const sa = 2 * (2 * io + l);
          const sc = 2 * (2 * io + K + l);
          IG![sa]! += th * w0l;
          IG![sa + 1]! += th * w1l;
          IG![sc]! += w0l;
          IG![sc + 1]! += w1l;
          const hl = (x[rOff + pos[l]!]! - s * zd[l]!) * gg * kappa;
          ph += p[l]! * hl;
          phw += p[l]! * hl * JW[l]!;
          phk += p[l]! * hl * JK[l]!;
        }
        EG![2 * i]! += Q * (phw - ph * ug0);
        EG![2 * i + 1]! += Q * (phk - ph * ug1);
        let nt = 2;
        touched[0] = 0;
        touched[1] = 1;
        for (let k = 0; k < K; k++) {
          touched[nt++] = 2 + pos[k]!;
          touched[nt++] = 2 + Kmax + pos[k]!;
        }
        for (let a = 0; a < nt; a++) {
          const r = touched[a]!;
          HX[2 * r]! -= Q * u[r]! * ug0;
          HX[2 * r + 1]! -= Q * u[r]! * ug1;
        }
      }
      if (useFb) {
        Hg[0]! += Q * (gq0 - ug0 * ug0);
        Hg[3]! += Q * (gq1 - ug1 * ug1);
        Hg[1]! += Q * (gq01 - ug0 * ug1);
        Hg[2]! += Q * (gq01 - ug0 * ug1);
      }
    }
  }
  return {
    llm,
    s0: S0,
    s1: S1,
    s2: S2,
    u1: U1,
    u0: U0,
    hh: HH,
    gb: GB,
    globals: Hg,
    ...(withCross ? { cross: { llmGlobals, ig: IG!, eg: EG! } } : {}),
    ...(useFb ? { difficulty: { aux, w: wts } } : {}),
  };
}

/** Offsets of each item's K x K square (K its option count), I + 1 entries. */
export function itemSquareOffsets(bank: ResponseBank): Int32Array {
  const I = bank.items.length;
  const sq = new Int32Array(I + 1);
  for (let i = 0; i < I; i++) {
    const K = bank.itemOffsets[i + 1]! - bank.itemOffsets[i]!;
    sq[i + 1] = sq[i]! + K * K;
  }
  return sq;
}

/** Mirror an LLM's upper triangle and add its priors' curvature (theta's N(0, 1) is left to the caller). */
function finishLlmHessian(HL: Float64Array, L: LlmNrmLayout, lamS: number, lamLlm: number, s: number, ds: number): void {
  const Kmax = L.kMax;
  const P = 2 + 2 * Kmax;
  for (let r = 0; r < P; r++) for (let c = r + 1; c < P; c++) HL[c * P + r] = HL[r * P + c]!;
  if (L.parts.sharpness) HL[P + 1]! += lamS * (ds / s) * (ds / s);
  if (L.parts.position) for (let r = 2; r < 2 + Kmax; r++) HL[r * P + r]! += lamLlm;
  if (L.parts.fallback) for (let r = 2 + Kmax; r < P; r++) HL[r * P + r]! += lamLlm;
}

/** Whether any of an item's option parameters (a and c at offset io, K options) is free. */
function itemFree(L: LlmNrmLayout, io: number, K: number, free: Uint8Array): boolean {
  for (let k = 0; k < K; k++) if (free[L.a + io + k] !== 0 || free[L.c + io + k] !== 0) return true;
  return false;
}

/** The item blocks from their cell sums: the gate's b_i terms, the item prior, into `blocks`. */
function addItemBlocks(
  bank: ResponseBank,
  L: LlmNrmLayout,
  x: Float64Array,
  free: Uint8Array,
  lamItem: number,
  sums: LlmNrmCurvatureSums,
  aux: Float64Array,
  wts: Float64Array,
  blocks: Blocks,
  cross: boolean,
  withCross: { IG: Float64Array; EG: Float64Array; itemGlobals: Float64Array[] } | null,
  itemGN: Float64Array[],
  blocksUnused: boolean,
): void {
  const I = L.nItems;
  const useFb = L.parts.fallback;
  const { itemOffsets } = bank;
  const sq = itemSquareOffsets(bank);
  const { s0: S0, s1: S1, s2: S2, u1: U1, u0: U0, hh: HH, gb: GB, itemsReady } = sums;
  // Scratch reused across items; Blocks.add factorises H into its own copy.
  const kMx = bank.kMax;
  const Hbuf = new Float64Array(4 * kMx * kMx);
  const tBuf = new Float64Array(2 * kMx);
  const uuBuf = new Float64Array(2 * kMx);
  const avBuf = new Float64Array(kMx);
  const cvBuf = new Float64Array(kMx);
  const g0Buf = new Float64Array(2 * kMx);
  const g1Buf = new Float64Array(2 * kMx);
  const fdScratch = difficultyGradScratch(kMx);
  const ixBuf = new Int32Array(2 * kMx);
  // Without `cross` only Blocks.add reads H, and only its lower triangle: only that is assembled
  // (the same operations in the same order, so the same bits).
  const lower = !cross;
  let ready = itemsReady === undefined ? I : 0;
  // Items held fixed (scoring) get no block (Blocks.add leaves them out): nothing to assemble unless
  // the SEs' cross terms read their sums.
  const skipFixed = !cross && withCross === null;
  for (let i = 0; i < I; i++) {
    if (i >= ready) ready = itemsReady!(i);
    const io = itemOffsets[i]!;
    const K = itemOffsets[i + 1]! - io;
    if (skipFixed && !itemFree(L, io, K, free)) continue;
    const P2 = 2 * K;
    const H = Hbuf.subarray(0, P2 * P2);
    const base = sq[i]!;
    if (lower) {
      // Rows r, columns c <= r (the sums' upper triangle holds (min, max)).
      for (let k = 0; k < K; k++) for (let l = 0; l <= k; l++) H[k * P2 + l] = S2[base + l * K + k]!;
      for (let k = 0; k < K; k++) {
        const r = (K + k) * P2;
        for (let l = 0; l < K; l++) H[r + l] = S1[base + (k <= l ? k * K + l : l * K + k)]!;
        for (let l = 0; l <= k; l++) H[r + K + l] = S0[base + l * K + k]!;
      }
    } else {
      for (let k = 0; k < K; k++) {
        for (let l = 0; l < K; l++) {
          const t = base + (k <= l ? k * K + l : l * K + k); // upper triangle accumulated
          H[k * P2 + l] = S2[t]!; // a-a
          H[k * P2 + K + l] = S1[t]!; // a-c
          H[(K + k) * P2 + l] = S1[t]!; // c-a
          H[(K + k) * P2 + K + l] = S0[t]!; // c-c
        }
      }
    }
    if (useFb) {
      const g = bank.key[i]!;
      const t = gateGrad(bank, L, x, aux, wts, i, tBuf);
      const uu = uuBuf;
      for (let k = 0; k < K; k++) {
        uu[k] = U1[io + k]!;
        uu[K + k] = U0[io + k]!;
      }
      const hh = HH[i]!;
      for (let r = 0; r < P2; r++) {
        const cEnd = lower ? r + 1 : P2;
        // Row r's factors read once (V8 reloads them per entry: H might alias uu and t).
        const ur = uu[r]!;
        const tr = t[r]!;
        const htr = hh * tr;
        const row = r * P2;
        for (let c = 0; c < cEnd; c++) H[row + c]! += ur * t[c]! + tr * uu[c]! + htr * t[c]!;
      }
      if (withCross !== null) {
        const { IG, EG } = withCross;
        const ig = new Float64Array(2 * P2);
        for (let r = 0; r < P2; r++) {
          ig[2 * r] = IG[2 * (2 * io) + 2 * r]! + t[r]! * EG[2 * i]!;
          ig[2 * r + 1] = IG[2 * (2 * io) + 2 * r + 1]! + t[r]! * EG[2 * i + 1]!;
        }
        withCross.itemGlobals.push(ig);
      }
      if (cross) {
        const gn = Float64Array.from(H);
        for (let r = 0; r < P2; r++) gn[r * P2 + r]! += lamItem;
        itemGN.push(gn);
      }
      // + dL/db_i * Hessian of b_i (differences of its analytic gradient): the term GN drops; where it
      // makes the block indefinite, Blocks.add's Cholesky shift repairs it.
      const gbi = GB[i]!;
      if (blocksUnused) continue;
      if (gbi !== 0) {
        const av = avBuf.subarray(0, K);
        const cv = cvBuf.subarray(0, K);
        for (let k = 0; k < K; k++) {
          av[k] = x[L.a + io + k]!;
          cv[k] = x[L.c + io + k]!;
        }
        const g0 = g0Buf;
        const g1 = g1Buf;
        const fd = fdScratch;
        difficultyGradBase(av, cv, K, g, fd, g0);
        const hstep = 1e-6;
        for (let p = 0; p < P2; p++) {
          const arr = p < K ? av : cv;
          const kk = p < K ? p : p - K;
          const old = arr[kk]!;
          arr[kk] = old + hstep;
          difficultyGradColumn(av, cv, K, g, p, fd, g1);
          arr[kk] = old;
          // Column p's half of the symmetrised columns into the lower triangle, the only part Blocks.add
          // reads (itemGN was copied above): at (r, c), r > c, column c's half before column r's.
          for (let r = 0; r < p; r++) H[p * P2 + r]! += 0.5 * ((gbi * (g1[r]! - g0[r]!)) / hstep);
          const hp = (gbi * (g1[p]! - g0[p]!)) / hstep;
          H[p * P2 + p]! += 0.5 * hp;
          H[p * P2 + p]! += 0.5 * hp;
          for (let r = p + 1; r < P2; r++) H[r * P2 + p]! += 0.5 * ((gbi * (g1[r]! - g0[r]!)) / hstep);
        }
      }
    }
    if (cross && !useFb) {
      const gn = Float64Array.from(H);
      for (let r = 0; r < P2; r++) gn[r * P2 + r]! += lamItem;
      itemGN.push(gn);
    }
    if (blocksUnused) continue;
    const ix = ixBuf.subarray(0, P2);
    for (let k = 0; k < K; k++) {
      ix[k] = L.a + io + k;
      ix[K + k] = L.c + io + k;
    }
    blocks.add(ix, H, free, lamItem, useFb ? ITEM_STEP_CAP : Infinity);
  }
}

/** The cell sums llmNrmCurvature accumulates before the priors, the gate's b_i terms and factorising, as an engine computes them. */
export interface LlmNrmCurvatureSums {
  /** Per LLM j at j P^2 (P = 2 + 2 kMax): sum over its cells of Q (J^T diag p J - u u^T), upper triangle (r <= c) only. */
  llm: Float64Array;
  /** Per item at itemSquareOffsets: S_m = sum over cells of ((1 - G) s)^2 theta^m M, upper triangle (k <= l). */
  s0: Float64Array;
  s1: Float64Array;
  s2: Float64Array;
  /** Per option entry: sum of (1 - G) s Q theta p (h - p.h), and the same without theta (the gate's u). */
  u1: Float64Array;
  u0: Float64Array;
  /** Per item: h^T M h, and dL/db_i. */
  hh: Float64Array;
  gb: Float64Array;
  /** The gate globals' (w0, kbar) 2 x 2 GN block. */
  globals: Float64Array;
  /** `cross` with the gate: per LLM at 2 P j its P x 2 block with (w0, kbar); per item at 4 io the a, c rows' sums with (w0, kbar) (IG), at 2 i the E sums (EG). */
  cross?: { llmGlobals: Float64Array; ig: Float64Array; eg: Float64Array };
  /** With the gate: computeDifficulties' `aux` and `w` at this x, if the engine has them (else recomputed). */
  difficulty?: { aux: Float64Array; w: Float64Array };
  /** Where the engine still sums items: returns once item i's sums are final, with how many items' are. Absent: all are. */
  itemsReady?: (i: number) => number;
}

/** The LLM blocks and gate globals of the SEs' first pass from an engine's row sums (llmNrmCurvatureFromSums' `llm`, `llmGlobals`, `globals`). */
export function llmNrmRowBlocksFromSums(
  L: LlmNrmLayout,
  x: Float64Array,
  priors: Priors,
  sums: { llm: Float64Array; globals: Float64Array; llmGlobals?: Float64Array },
): { llm: Float64Array[]; globals: Float64Array; llmGlobals?: Float64Array[] } {
  const { llm: lamLlm, sharpness: lamS, gate: lamGate } = priorPrecisions(priors);
  const J = L.nModels;
  const P = 2 + 2 * L.kMax;
  const llm = perLlm(sums.llm, J, P * P);
  llm.forEach((HL, j) => {
    const sb = x[L.sbar + j]!;
    finishLlmHessian(HL, L, lamS, lamLlm, L.parts.sharpness ? softplus(sb) : 1, sigmoid(sb));
  });
  const globals = Float64Array.from(sums.globals);
  if (L.parts.fallback) {
    globals[0]! += lamGate;
    globals[3]! += lamGate;
  }
  return sums.llmGlobals === undefined ? { llm, globals } : { llm, globals, llmGlobals: perLlm(sums.llmGlobals, J, 2 * P) };
}

/** Copies of the J consecutive parts of n entries at the start of `all` (per-LLM blocks an engine sums into one array). */
function perLlm(all: Float64Array, J: number, n: number): Float64Array[] {
  return Array.from({ length: J }, (_, j) => all.slice(j * n, (j + 1) * n));
}

/** The curvature from an engine's cell sums: llmNrmCurvature's blocks (and with `cross` its cross blocks); not the SEs' second pass. */
export function llmNrmCurvatureFromSums(
  bank: ResponseBank,
  L: LlmNrmLayout,
  x: Float64Array,
  free: Uint8Array,
  priors: Priors,
  sums: LlmNrmCurvatureSums,
  opts: CurvatureOptions = {},
): CurvatureAt {
  const cross = opts.cross === true;
  const useFb = L.parts.fallback;
  if (opts.itemInverse !== undefined || opts.itemZ !== undefined || (cross && useFb && sums.cross === undefined)) {
    throw new LlmNrmError('INVALID_OPTION', 'llmNrmCurvatureFromSums: itemInverse and itemZ need llmNrmCurvature, cross the sums of the cross blocks');
  }
  const blocksUnused = opts.blocksUnused === true;
  const { item: lamItem } = priorPrecisions(priors);
  const J = L.nModels;
  const I = L.nItems;
  let aux: Float64Array;
  let wts: Float64Array;
  if (useFb && sums.difficulty !== undefined) {
    ({ aux, w: wts } = sums.difficulty);
  } else {
    aux = new Float64Array(3 * I);
    wts = new Float64Array(L.sumK);
    if (useFb) computeDifficulties(bank, x, L.a, L.c, new Float64Array(I), aux, wts);
  }
  const blocks = new Blocks(L.size);
  const withCross = cross && useFb ? sums.cross! : null;
  // The LLM blocks and the gate globals' 2 x 2 with their priors.
  const rows = llmNrmRowBlocksFromSums(L, x, priors, {
    llm: sums.llm,
    globals: sums.globals,
    ...(withCross !== null ? { llmGlobals: withCross.llmGlobals } : {}),
  });
  const llm = rows.llm;
  if (!blocksUnused) {
    for (let j = 0; j < J; j++) {
      const HL = Float64Array.from(llm[j]!);
      HL[0]! += 1;
      blocks.add(llmNrmParamIndices(L, j), HL, free, 0, useFb ? LLM_STEP_CAP : Infinity);
    }
  }
  const itemGlobals: Float64Array[] = [];
  const itemGN: Float64Array[] = [];
  addItemBlocks(
    bank,
    L,
    x,
    free,
    lamItem,
    sums,
    aux,
    wts,
    blocks,
    cross,
    withCross !== null ? { IG: withCross.ig, EG: withCross.eg, itemGlobals } : null,
    itemGN,
    blocksUnused,
  );
  const Hg = rows.globals;
  if (!blocksUnused) blocks.add([L.w0, L.kbar], Float64Array.from(Hg), free, 1e-6, opts.globalStepCap ?? Infinity);
  const out: CurvatureAt = { blocks, llm };
  if (withCross !== null) Object.assign(out, { llmGlobals: rows.llmGlobals, globals: Hg, globalIndices: [L.w0, L.kbar], itemGlobals });
  if (cross) out.itemGN = itemGN;
  return out;
}

/**
 * The per-item inputs of the SEs' item corrections (ItemPrep, packed for an engine), or null where
 * llmNrmCurvature's general path is needed: per item at itemSquareOffsets D^-1's M parts (daa,
 * dac = D_ac + D_ca, dcc); per option entry m = D^-1 t (ma, mc) and at 4 io Z (with itemZ); per item
 * t.m and at 2 i t.Z (zero without the gate). With `into` (an engine's buffers of exactly these
 * sizes) they are written there.
 */
export interface LlmNrmCorrectionInputs {
  daa: Float64Array;
  dac: Float64Array;
  dcc: Float64Array;
  ma: Float64Array;
  mc: Float64Array;
  tm: Float64Array;
  tz: Float64Array;
  z: Float64Array | null;
}

export function llmNrmCorrectionInputs(
  bank: ResponseBank,
  L: LlmNrmLayout,
  x: Float64Array,
  itemInverse: Float64Array[],
  itemZ: Float64Array[] | undefined,
  into?: LlmNrmCorrectionInputs,
): LlmNrmCorrectionInputs | null {
  const I = L.nItems;
  const { itemOffsets } = bank;
  if (!oneCellPerItem(bank)) return null;
  const sq = itemSquareOffsets(bank);
  // `into`: the engine's own buffers, zeroed and then written as fresh ones.
  if (into !== undefined) {
    const want: [Float64Array | null, number, string][] = [
      [into.daa, sq[I]!, 'daa'],
      [into.dac, sq[I]!, 'dac'],
      [into.dcc, sq[I]!, 'dcc'],
      [into.ma, L.sumK, 'ma'],
      [into.mc, L.sumK, 'mc'],
      [into.tm, I, 'tm'],
      [into.tz, 2 * I, 'tz'],
      [into.z, itemZ ? 4 * L.sumK : 0, 'z'],
    ];
    for (const [v, n, name] of want) {
      if ((v?.length ?? 0) !== n) throw new LlmNrmError('INVALID_OPTION', `llmNrmCorrectionInputs: into.${name} has ${v?.length ?? 0} entries, ${n} wanted`);
      v?.fill(0);
    }
  }
  const out: LlmNrmCorrectionInputs = into ?? {
    daa: new Float64Array(sq[I]!),
    dac: new Float64Array(sq[I]!),
    dcc: new Float64Array(sq[I]!),
    ma: new Float64Array(L.sumK),
    mc: new Float64Array(L.sumK),
    tm: new Float64Array(I),
    tz: new Float64Array(2 * I),
    z: itemZ ? new Float64Array(4 * L.sumK) : null,
  };
  const preps = prepareItems(bank, L, x, itemInverse, itemZ).prep;
  for (let i = 0; i < I; i++) {
    const io = itemOffsets[i]!;
    const K = itemOffsets[i + 1]! - io;
    const prep = preps[i]!;
    const KK = K * K;
    out.daa.set(prep.dm.subarray(0, KK), sq[i]!);
    out.dac.set(prep.dm.subarray(KK, 2 * KK), sq[i]!);
    out.dcc.set(prep.dm.subarray(2 * KK, 3 * KK), sq[i]!);
    if (prep.m !== null) {
      out.ma.set(prep.m.subarray(0, K), io);
      out.mc.set(prep.m.subarray(K, 2 * K), io);
    }
    out.tm[i] = prep.tm;
    out.tz[2 * i] = prep.tz0;
    out.tz[2 * i + 1] = prep.tz1;
    if (out.z !== null) out.z.set(itemZ![i]!, 4 * io);
  }
  return out;
}

/** The SEs' second pass from an engine's per-LLM sums (llmNrmCorrectionInputs): `llmItem` (P x P) and with itemZ `llmItemGlobals` (P x 2). */
export function llmNrmCorrectionsFromSums(L: LlmNrmLayout, llmItem: Float64Array, llmItemGlobals: Float64Array | null): CurvatureAt {
  const P = 2 + 2 * L.kMax;
  const out: CurvatureAt = { blocks: new Blocks(L.size), llm: [], llmItem: perLlm(llmItem, L.nModels, P * P) };
  if (llmItemGlobals !== null) out.llmItemGlobals = perLlm(llmItemGlobals, L.nModels, 2 * P);
  return out;
}
