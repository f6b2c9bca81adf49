import type { ResponseBank } from '../../data/bank.js';
import { computeDifficulties } from '../difficulty.js';
import { sigmoid, softplus, type LlmNrmLayout } from '../layout.js';
import { cellWeights } from './cellWeights.js';

/** Scratch of `itemCorrection`, grown on demand and reused across LLMs and calls (no allocation per (LLM, item) pair). */
let scratch = new Float64Array(0);
let rowBuf = new Int32Array(0);

function ensure(P: number, K: number): void {
  const need = K * K + 2 * P * K + 2 * P + K;
  if (scratch.length < need) scratch = new Float64Array(need);
  if (rowBuf.length < P) rowBuf = new Int32Array(P);
}

/**
 * sum over the LLM's items of B_i D_i^-1 B_i^T (P x P), B_i = [theta W_i, W_i] + E_i t_i^T; zeroes
 * the W, E columns it used. With M = theta^2 D_aa + theta (D_ac + D_ca) + D_cc, m = D^-1 t and
 * v = theta m_a + m_c: B D^-1 B^T = W M W^T + (W v) E^T + E (W v)^T + (t.m) E E^T.
 * With itemZ also bz += B Z (P x 2), Z = D^-1 G_i. Only the rows of B an item touched are gathered
 * (contiguous products; the sums in the direct formulas' order, so the same bits).
 */
export function itemCorrection(
  Wb: Float64Array,
  Eb: Float64Array,
  items: readonly number[],
  prep: ItemPrep[],
  itemOffsets: Int32Array,
  th: number,
  P: number,
  itemZ: Float64Array[] | undefined,
  bz: Float64Array | null,
): Float64Array {
  const C = new Float64Array(P * P);
  let Kmax = 0;
  for (const i of items) Kmax = Math.max(Kmax, itemOffsets[i + 1]! - itemOffsets[i]!);
  ensure(P, Kmax);
  const buf = scratch;
  const rows = rowBuf;
  // Offsets into the scratch buffer.
  const oM = 0; // K x K
  const oW = oM + Kmax * Kmax; // compact W: K x nr (row l: option l, column a: row rows[a])
  const oWM = oW + P * Kmax; // nr x K
  const oWv = oWM + P * Kmax; // nr
  const oE = oWv + P; // nr
  const oZ = oE + P; // K: theta Z_a + Z_c of one global
  const th2 = th * th;
  for (const i of items) {
    const io = itemOffsets[i]!;
    const K = itemOffsets[i + 1]! - io;
    const it = prep[i]!;
    const { dm } = it;
    const KK = K * K;
    for (let t = 0; t < KK; t++) buf[oM + t] = th2 * dm[t]! + th * dm[KK + t]! + dm[2 * KK + t]!;
    // Only the rows this item touched (2 + 2K of P without rotations).
    let nr = 0;
    const eo = i * P;
    for (let r = 0; r < P; r++) {
      let nz = Eb[eo + r] !== 0;
      for (let l = 0; l < K && !nz; l++) nz = Wb[(io + l) * P + r] !== 0;
      if (nz) rows[nr++] = r;
    }
    // Gather W (and E) of those rows, zeroing the accumulators for the next LLM.
    for (let l = 0; l < K; l++) {
      const src = (io + l) * P;
      const dst = oW + l * nr;
      for (let a = 0; a < nr; a++) {
        const r = rows[a]!;
        buf[dst + a] = Wb[src + r]!;
        Wb[src + r] = 0;
      }
    }
    for (let a = 0; a < nr; a++) {
      const r = rows[a]!;
      buf[oE + a] = Eb[eo + r]!;
      Eb[eo + r] = 0;
    }
    // WM = W^T M (nr x K).
    for (let a = 0; a < nr; a++) {
      for (let m = 0; m < K; m++) {
        let acc = 0;
        for (let l = 0; l < K; l++) acc += buf[oW + l * nr + a]! * buf[oM + l * K + m]!;
        buf[oWM + a * K + m] = acc;
      }
    }
    // C += WM W (upper triangle: rows are ascending, so b >= a is c >= r).
    for (let a = 0; a < nr; a++) {
      const rP = rows[a]! * P;
      for (let b = a; b < nr; b++) {
        let acc = 0;
        for (let m = 0; m < K; m++) acc += buf[oWM + a * K + m]! * buf[oW + m * nr + b]!;
        C[rP + rows[b]!]! += acc;
      }
    }
    const mv = it.m;
    if (mv !== null) {
      const tm = it.tm;
      for (let a = 0; a < nr; a++) {
        let acc = 0;
        for (let l = 0; l < K; l++) acc += buf[oW + l * nr + a]! * (th * mv[l]! + mv[K + l]!);
        buf[oWv + a] = acc;
      }
      for (let a = 0; a < nr; a++) {
        const rP = rows[a]! * P;
        const er = buf[oE + a]!;
        const wr = buf[oWv + a]!;
        for (let b = a; b < nr; b++) {
          const ec = buf[oE + b]!;
          C[rP + rows[b]!]! += wr * ec + er * buf[oWv + b]! + tm * er * ec;
        }
      }
    }
    if (bz !== null) {
      // B Z (P x 2), Z = D^-1 G_i: B = [theta W, W] + E t^T.
      const Z = itemZ![i]!;
      for (let g = 0; g < 2; g++) {
        const tz = g === 0 ? it.tz0 : it.tz1;
        for (let l = 0; l < K; l++) buf[oZ + l] = th * Z[2 * l + g]! + Z[2 * (K + l) + g]!;
        for (let a = 0; a < nr; a++) {
          let acc = 0;
          for (let l = 0; l < K; l++) acc += buf[oW + l * nr + a]! * buf[oZ + l]!;
          bz[2 * rows[a]! + g]! += acc + buf[oE + a]! * tz;
        }
      }
    }
  }
  for (let r = 0; r < P; r++) for (let c = r + 1; c < P; c++) C[c * P + r] = C[r * P + c]!;
  return C;
}

/** Scratch of `cellItemCorrection`: K x K and K-vectors, grown on demand. */
let cellScratch = new Float64Array(0);

/** One cell's pieces for `cellItemCorrection` (option order; see llmNrmItemCorrections). */
interface CellPieces {
  K: number;
  th: number;
  /** p_k, f_k = Q (1 - G) s p_k, the displayed positions, and per option (jt, js, jd, jr). */
  p: Float64Array;
  f: Float64Array;
  pos: Int32Array;
  Jrow: Float64Array;
  /** dv/ddelta and dv/drho, the same for every option of a cell: (1 - G) s and G (0 where the part is off). */
  jd: number;
  jr: number;
  /** u_theta, u_sbar (u = sum_k p_k J_k). */
  u0: number;
  u1: number;
  /** The gate (else null): eps_k = Q p_k (h_k - p.h) and E_theta, E_sbar (E = Q cov_p(J, h) = sum_k eps_k J_k). */
  eps: Float64Array | null;
  e0: number;
  e1: number;
}

/**
 * The same B D^-1 B^T (and B Z) as `itemCorrection`, for an (LLM, item) pair with a single cell
 * (no rotations), added into the upper triangle of C (P x P; the caller mirrors it) straight from
 * the cell's pieces, in O(K^2) instead of O(K^3): no accumulated W is formed.
 *
 * Per cell B = [theta W, W] + E t^T with W = (Jm - u 1^T) F: Jm the P x K Jacobian of the logits
 * over the LLM's parameters (column l: jt_l e_theta + js_l e_sbar + jd e_delta(pos l) +
 * jr e_rho(pos l)), F = diag(f). With M = theta^2 D_aa + theta (D_ac + D_ca) + D_cc, N = F M F,
 * n1 = N 1, m = D^-1 t, v = theta m_a + m_c:
 *
 *   B D^-1 B^T = W M W^T + (W v) E^T + E (W v)^T + (t.m) E E^T,
 *   W M W^T = Jm N Jm^T - (Jm n1) u^T - u (Jm n1)^T + (1^T n1) u u^T,   W v = Jm (f o v) - (f . v) u.
 *
 * On the option coordinates every vector here is jd (delta rows) or jr (rho rows) times a
 * per-option vector (u: p, E: eps, ...), so the whole delta/rho part is jd^2, jd jr and jr^2 times
 * ONE symmetric K x K matrix
 *
 *   T = N + eps eta^T + eta eps^T - gam p^T - p gam^T,
 *   gam = n1 - (1^T n1 / 2) p,   eta = f o v - (f . v) p + (t.m / 2) eps,
 *
 * (the rank-one terms written as E y^T + y E^T - g u^T - u g^T with y = W v + (t.m / 2) E and
 * g = Jm n1 - (1^T n1 / 2) u), and the theta, sbar rows against them jd or jr times a K-vector.
 */
export function cellItemCorrection(
  C: Float64Array,
  P: number,
  Kmax: number,
  it: ItemPrep,
  c: CellPieces,
  Z: Float64Array | undefined,
  bz: Float64Array | null,
): void {
  const { K, th, p, f, pos, Jrow, jd, jr, u0, u1, eps, e0, e1 } = c;
  const need = K * K + 8 * K;
  if (cellScratch.length < need) cellScratch = new Float64Array(need);
  const N = cellScratch; // K x K at 0, then T in place
  const oGam = K * K;
  const oEta = oGam + K;
  const oV = oEta + K; // f o z for B Z
  const oAt = oV + K; // N jt
  const oAs = oAt + K; // N js
  const KK = K * K;
  const th2 = th * th;
  const m = it.m;
  const gate = eps !== null && m !== null;
  const dm = it.dm;
  // N = F M F (symmetric: M's upper triangle, mirrored); n1 = N 1 into gam (finished below); N jt
  // and N js (Jm N Jm^T's theta/sbar parts) once N is complete.
  for (let l = 0; l < K; l++) {
    const fl = f[l]!;
    const row = l * K;
    for (let mm = l; mm < K; mm++) {
      const t = row + mm;
      const v = fl * (th2 * dm[t]! + th * dm[KK + t]! + dm[2 * KK + t]!) * f[mm]!;
      N[t] = v;
      N[mm * K + l] = v;
    }
  }
  let n11 = 0;
  for (let l = 0; l < K; l++) {
    const row = l * K;
    let n1 = 0;
    let at = 0;
    let as = 0;
    for (let mm = 0; mm < K; mm++) {
      const v = N[row + mm]!;
      n1 += v;
      at += v * Jrow[4 * mm]!;
      as += v * Jrow[4 * mm + 1]!;
    }
    N[oGam + l] = n1;
    N[oAt + l] = at;
    N[oAs + l] = as;
    n11 += n1;
  }
  // g_theta, g_sbar = (Jm n1)_0,1 - (n11 / 2) u_0,1.
  const half = 0.5 * n11;
  let g0 = -half * u0;
  let g1 = -half * u1;
  for (let l = 0; l < K; l++) {
    g0 += Jrow[4 * l]! * N[oGam + l]!;
    g1 += Jrow[4 * l + 1]! * N[oGam + l]!;
  }
  for (let l = 0; l < K; l++) N[oGam + l]! -= half * p[l]!;
  // The gate: m = D^-1 t (per item, prepared), eta, y_theta, y_sbar.
  let y0 = 0;
  let y1 = 0;
  if (gate) {
    const ht = 0.5 * it.tm;
    let fv = 0;
    for (let l = 0; l < K; l++) {
      const v = f[l]! * (th * m[l]! + m[K + l]!);
      N[oEta + l] = v;
      fv += v;
      y0 += Jrow[4 * l]! * v;
      y1 += Jrow[4 * l + 1]! * v;
    }
    y0 += -fv * u0 + ht * e0;
    y1 += -fv * u1 + ht * e1;
    for (let l = 0; l < K; l++) N[oEta + l] = N[oEta + l]! - fv * p[l]! + ht * eps[l]!;
  }
  // theta, sbar rows: [0,0], [0,1], [1,1] and the K-vectors against the option coordinates.
  // (Without the gate e0 = e1 = y0 = y1 = 0.)
  let tt = 2 * (e0 * y0 - g0 * u0);
  let ts = e0 * y1 + y0 * e1 - g0 * u1 - u0 * g1;
  let ss = 2 * (e1 * y1 - g1 * u1);
  for (let l = 0; l < K; l++) {
    const at = N[oAt + l]!;
    const as = N[oAs + l]!;
    const jt = Jrow[4 * l]!;
    const js = Jrow[4 * l + 1]!;
    tt += jt * at;
    ts += jt * as;
    ss += js * as;
    const pl = p[l]!;
    const gl = N[oGam + l]!;
    let t0 = at - g0 * pl - u0 * gl;
    let t1 = as - g1 * pl - u1 * gl;
    if (gate) {
      const el = eps[l]!;
      const hl = N[oEta + l]!;
      t0 += e0 * hl + y0 * el;
      t1 += e1 * hl + y1 * el;
    }
    const d = 2 + pos[l]!;
    const r = 2 + Kmax + pos[l]!;
    C[d]! += jd * t0;
    C[r]! += jr * t0;
    C[P + d]! += jd * t1;
    C[P + r]! += jr * t1;
  }
  C[0]! += tt;
  C[1]! += ts;
  C[P + 1]! += ss;
  // T over the option coordinates: [d_l, r_m] for all (l, m), [d_l, d_m] and [r_l, r_m] where pos
  // l <= pos m. T is symmetric: each pair (l, m <= l) computed once.
  const dd = jd * jd;
  const dr = jd * jr;
  const rr = jr * jr;
  const rOff = 2 + Kmax;
  for (let l = 0; l < K; l++) {
    const pl = p[l]!;
    const gl = N[oGam + l]!;
    const el = gate ? eps[l]! : 0;
    const hl = gate ? N[oEta + l]! : 0;
    const ql = pos[l]!;
    const dP = (2 + ql) * P;
    for (let mm = l; mm < K; mm++) {
      let T = N[l * K + mm]! - gl * p[mm]! - pl * N[oGam + mm]!;
      if (gate) T += el * N[oEta + mm]! + hl * eps[mm]!;
      const qm = pos[mm]!;
      C[dP + rOff + qm]! += dr * T;
      if (mm !== l) C[(2 + qm) * P + rOff + ql]! += dr * T;
      // [d, d] and [r, r] on the upper triangle: (ql, qm) or (qm, ql), whichever is ordered.
      const lo = qm >= ql ? ql : qm;
      const hi = qm >= ql ? qm : ql;
      C[(2 + lo) * P + 2 + hi]! += dd * T;
      C[(rOff + lo) * P + rOff + hi]! += rr * T;
    }
  }
  if (bz !== null && Z !== undefined) {
    // B Z (P x 2) = W (theta Z_a + Z_c) + E (t.Z): W z = Jm (f o z) - (f . z) u.
    for (let gi = 0; gi < 2; gi++) {
      const tz = gi === 0 ? it.tz0 : it.tz1;
      let fz = 0;
      let w0 = 0;
      let w1 = 0;
      for (let l = 0; l < K; l++) {
        const v = f[l]! * (th * Z[2 * l + gi]! + Z[2 * (K + l) + gi]!);
        N[oV + l] = v;
        fz += v;
        w0 += Jrow[4 * l]! * v;
        w1 += Jrow[4 * l + 1]! * v;
      }
      bz[gi]! += w0 - fz * u0 + (gate ? e0 * tz : 0);
      bz[2 + gi]! += w1 - fz * u1 + (gate ? e1 * tz : 0);
      for (let l = 0; l < K; l++) {
        const o = N[oV + l]! - fz * p[l]! + (gate ? eps[l]! * tz : 0);
        bz[2 * (2 + pos[l]!) + gi]! += jd * o;
        bz[2 * (2 + Kmax + pos[l]!) + gi]! += jr * o;
      }
    }
  }
}

/**
 * What the per-cell correction needs of an item, the same for each of its cells: M's three parts
 * D_aa, D_ac + D_ca, D_cc (K x K each, in a row), m = D^-1 t and t.m, and t.Z per global.
 */
export interface ItemPrep {
  dm: Float64Array;
  /** D^-1 t (2K); null without the gate. */
  m: Float64Array | null;
  tm: number;
  tz0: number;
  tz1: number;
}

/** An item's ItemPrep from D^-1 (2K x 2K), t (the gate, else undefined) and Z (else undefined). */
export function prepareItem(D: Float64Array, K: number, t: Float64Array | undefined, Z: Float64Array | undefined): ItemPrep {
  const P2 = 2 * K;
  const KK = K * K;
  const dm = new Float64Array(3 * KK);
  for (let l = 0; l < K; l++) {
    const ra = l * P2;
    const rc = (K + l) * P2;
    for (let m = 0; m < K; m++) {
      dm[l * K + m] = D[ra + m]!;
      dm[KK + l * K + m] = D[ra + K + m]! + D[rc + m]!;
      dm[2 * KK + l * K + m] = D[rc + K + m]!;
    }
  }
  let m: Float64Array | null = null;
  let tm = 0;
  let tz0 = 0;
  let tz1 = 0;
  if (t !== undefined) {
    m = new Float64Array(P2);
    for (let a = 0; a < P2; a++) {
      let acc = 0;
      for (let b = 0; b < P2; b++) acc += D[a * P2 + b]! * t[b]!;
      m[a] = acc;
      tm += t[a]! * acc;
    }
    if (Z !== undefined) {
      for (let a = 0; a < P2; a++) {
        tz0 += t[a]! * Z[2 * a]!;
        tz1 += t[a]! * Z[2 * a + 1]!;
      }
    }
  }
  return { dm, m, tm, tz0, tz1 };
}

/** The gate's difficulties b_i (zeros without the gate) and each item's ItemPrep at x (once per item, not per cell). */
export function prepareItems(
  bank: ResponseBank,
  L: LlmNrmLayout,
  x: Float64Array,
  itemInverse: Float64Array[],
  itemZ: Float64Array[] | undefined,
): { b: Float64Array; prep: ItemPrep[] } {
  const I = L.nItems;
  const { itemOffsets } = bank;
  const b = new Float64Array(I);
  const aux = new Float64Array(3 * I);
  const wts = new Float64Array(L.sumK);
  if (L.parts.fallback) computeDifficulties(bank, x, L.a, L.c, b, aux, wts);
  const prep: ItemPrep[] = [];
  for (let i = 0; i < I; i++) {
    const K = itemOffsets[i + 1]! - itemOffsets[i]!;
    const t = L.parts.fallback ? gateGrad(bank, L, x, aux, wts, i, new Float64Array(2 * K)) : undefined;
    prep.push(prepareItem(itemInverse[i]!, K, t, itemZ?.[i]));
  }
  return { b, prep };
}

/**
 * Per LLM, sum over its items of B D^-1 B^T (P x P) and, with itemZ, B Z (P x 2): the `llmItem` /
 * `llmItemGlobals` of `llmNrmCurvature`, alone (no blocks, no item sums). itemInverse: D_i^-1 per
 * item (2K x 2K); itemZ: Z_i = D_i^-1 G_i (2K x 2). With one cell per (LLM, item) pair each cell's
 * correction is added straight from its pieces (cellItemCorrection, O(K^2)); otherwise B is
 * accumulated per pair over its cells first (itemCorrection, O(K^3)). The cell's logits, softmax and
 * Jacobian rows are those of llmNrmCurvature's pass (v_k = (1 - G) s z_k + G rho_k, z_k = a_k theta + c_k + delta_pos):
 *   dv_k/dtheta = (1 - G) s a_k - kappa G (1 - G) (rho_k - s z_k),  dv_k/dsbar = (1 - G) z_k s',
 *   dv_k/ddelta = (1 - G) s,  dv_k/drho = G;  u = sum_k p_k J_k;  h_k = dv_k/db_i.
 * Per cell B = [theta W, W] + E t^T: W[r, l] = Q (1 - G) s p_l (J_rl - u_r) (a_l, c_l enter v_l
 * as (1 - G) s (a_l theta + c_l)), E_r = Q cov_p(J_r, h) and t = db_i/d(a_i, c_i) (the gate).
 */
export function llmNrmItemCorrections(
  bank: ResponseBank,
  L: LlmNrmLayout,
  x: Float64Array,
  itemInverse: Float64Array[],
  itemZ: Float64Array[] | undefined,
): { llmItem: Float64Array[]; llmItemGlobals: Float64Array[] | undefined } {
  const J = L.nModels;
  const I = L.nItems;
  const Kmax = L.kMax;
  const P = 2 + 2 * Kmax;
  const { sharpness: useS, position: usePos, fallback: useFb } = L.parts;
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC]!;
  const { q, observed, colItem, colOffsets, itemOffsets, colPosition } = bank;
  const { b, prep } = prepareItems(bank, L, x, itemInverse, itemZ);
  const w0 = x[L.w0]!;
  const kappa = useFb ? softplus(x[L.kbar]!) : 0;
  const p = new Float64Array(Kmax);
  const zd = new Float64Array(Kmax);
  const pos = new Int32Array(Kmax);
  const mass = new Float64Array(1);
  const Jrow = new Float64Array(4 * Kmax);
  const f = new Float64Array(Kmax);
  const eps = new Float64Array(Kmax);
  // One pieces object, refilled per cell (no allocation in the loop).
  const cell: CellPieces = { K: 0, th: 0, p, f, pos, Jrow, jd: 0, jr: 0, u0: 0, u1: 0, eps: useFb ? eps : null, e0: 0, e1: 0 };
  const C = new Float64Array(P * P);
  const bz = itemZ ? new Float64Array(2 * P) : null;
  const llmItem: Float64Array[] = [];
  const llmItemGlobals: Float64Array[] = [];
  const perCell = oneCellPerItem(bank);
  // The accumulated form: W (P x sumK) and E (P x I) of the LLM's items, the items it answered, u and
  // the indices of u a cell touches, h.
  const Wb = perCell ? null : new Float64Array(P * L.sumK);
  const Eb = perCell ? null : new Float64Array(P * I);
  const seen = new Int32Array(perCell ? 0 : I).fill(-1);
  const items: number[] = [];
  const u = new Float64Array(P);
  const touched = new Int32Array(P);
  const hk = new Float64Array(Kmax);
  for (let j = 0; j < J; j++) {
    C.fill(0);
    bz?.fill(0);
    items.length = 0;
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
      const gg = G * omg;
      const sum = cellWeights(L, x, q, colPosition, co, io, qo, K, th, s, G, dOff, rOff, pos, zd, p, mass);
      const Q = mass[0]!;
      let u0 = 0;
      let u1 = 0;
      let ph = 0;
      const wbase = Q * omg * s;
      for (let k = 0; k < K; k++) {
        const pk = p[k]! / sum;
        p[k] = pk;
        const rho = useFb ? x[rOff + pos[k]!]! : 0;
        const dvdG = rho - s * zd[k]!;
        const jt = omg * s * x[L.a + io + k]! - dvdG * kappa * gg;
        const js = useS ? omg * zd[k]! * ds : 0;
        const jd = usePos ? omg * s : 0;
        const jr = useFb ? G : 0;
        Jrow[4 * k] = jt;
        Jrow[4 * k + 1] = js;
        Jrow[4 * k + 2] = jd;
        Jrow[4 * k + 3] = jr;
        u0 += pk * jt;
        u1 += pk * js;
        f[k] = wbase * pk;
        if (useFb) ph += pk * dvdG * gg * kappa;
      }
      if (Wb !== null) {
        // This cell's W[r, l] = Q (1 - G) s p_l (J_rl - u_r) and E_r = Q sum_k p_k h_k (J_rk - u_r) into the LLM's accumulators.
        // u = sum_k p_k J_k and the indices it touches (theta, sbar, then delta_pos, rho_pos per option).
        u.fill(0);
        let nt = 2;
        touched[0] = 0;
        touched[1] = 1;
        for (let k = 0; k < K; k++) {
          const pk = p[k]!;
          u[0]! += pk * Jrow[4 * k]!;
          u[1]! += pk * Jrow[4 * k + 1]!;
          u[2 + pos[k]!]! += pk * Jrow[4 * k + 2]!;
          u[2 + Kmax + pos[k]!]! += pk * Jrow[4 * k + 3]!;
          touched[nt++] = 2 + pos[k]!;
          touched[nt++] = 2 + Kmax + pos[k]!;
        }
        for (let l = 0; l < K; l++) {
          const fl = wbase * p[l]!;
          const col = io + l;
          for (let a = 0; a < nt; a++) {
            const r = touched[a]!;
            Wb[col * P + r]! -= fl * u[r]!;
          }
          Wb[col * P]! += fl * Jrow[4 * l]!;
          Wb[col * P + 1]! += fl * Jrow[4 * l + 1]!;
          Wb[col * P + 2 + pos[l]!]! += fl * Jrow[4 * l + 2]!;
          Wb[col * P + 2 + Kmax + pos[l]!]! += fl * Jrow[4 * l + 3]!;
        }
        if (useFb) {
          // h_k = dv_k/db_i = (rho - s z_k) G (1 - G) kappa
          let ph = 0;
          for (let k = 0; k < K; k++) {
            hk[k] = (x[rOff + pos[k]!]! - s * zd[k]!) * gg * kappa;
            ph += p[k]! * hk[k]!;
          }
          for (let a = 0; a < nt; a++) {
            const r = touched[a]!;
            Eb![i * P + r]! -= Q * u[r]! * ph;
          }
          for (let k = 0; k < K; k++) {
            const f = Q * p[k]! * hk[k]!;
            Eb![i * P]! += f * Jrow[4 * k]!;
            Eb![i * P + 1]! += f * Jrow[4 * k + 1]!;
            Eb![i * P + 2 + pos[k]!]! += f * Jrow[4 * k + 2]!;
            Eb![i * P + 2 + Kmax + pos[k]!]! += f * Jrow[4 * k + 3]!;
          }
        }
        if (seen[i] !== j) {
          seen[i] = j;
          items.push(i);
        }
        continue;
      }
      let e0 = 0;
      let e1 = 0;
      if (useFb) {
        // eps_k = Q p_k (h_k - p.h), h_k = (rho_k - s z_k) G (1 - G) kappa; E_theta, E_sbar = sum_k eps_k (jt_k, js_k).
        for (let k = 0; k < K; k++) {
          const ek = Q * p[k]! * ((x[rOff + pos[k]!]! - s * zd[k]!) * gg * kappa - ph);
          eps[k] = ek;
          e0 += ek * Jrow[4 * k]!;
          e1 += ek * Jrow[4 * k + 1]!;
        }
      }
      cell.K = K;
      cell.th = th;
      cell.jd = usePos ? omg * s : 0;
      cell.jr = useFb ? G : 0;
      cell.u0 = u0;
      cell.u1 = u1;
      cell.e0 = e0;
      cell.e1 = e1;
      cellItemCorrection(C, P, Kmax, prep[i]!, cell, itemZ?.[i], bz);
    }
    if (Wb !== null) {
      llmItem.push(itemCorrection(Wb, Eb!, items, prep, itemOffsets, th, P, itemZ, bz));
    } else {
      for (let r = 0; r < P; r++) for (let c = r + 1; c < P; c++) C[c * P + r] = C[r * P + c]!;
      llmItem.push(Float64Array.from(C));
    }
    if (bz !== null) llmItemGlobals.push(Float64Array.from(bz));
  }
  return { llmItem, llmItemGlobals: itemZ ? llmItemGlobals : undefined };
}

/** One cell per (LLM, item) pair and every column's positions a permutation of 0..K-1. */
export function oneCellPerItem(bank: ResponseBank): boolean {
  const { colItem } = bank;
  return colItem.length === bank.items.length && new Set(colItem).size === colItem.length && positionsArePermutations(bank);
}

/** True when every column shows its K options at displayed positions 0..K-1 (each once). */
function positionsArePermutations(bank: ResponseBank): boolean {
  const { colPosition, colOffsets } = bank;
  if (colPosition === null) return true;
  const nC = colOffsets.length - 1;
  for (let c = 0; c < nC; c++) {
    const co = colOffsets[c]!;
    const K = colOffsets[c + 1]! - co;
    let mask = 0;
    for (let k = 0; k < K; k++) {
      const ps = colPosition[co + k]!;
      if (ps >= K) return false;
      mask |= 1 << ps;
    }
    if (mask !== (1 << K) - 1) return false;
  }
  return true;
}

/** t = db_i/d(a_i, c_i) (the gate's difficulty; computeDifficulties' aux and w) into t[0 .. 2K); returns t. */
export function gateGrad(bank: ResponseBank, L: LlmNrmLayout, x: Float64Array, aux: Float64Array, wts: Float64Array, i: number, t: Float64Array): Float64Array {
  const io = bank.itemOffsets[i]!;
  const K = bank.itemOffsets[i + 1]! - io;
  const g = bank.key[i]!;
  const dN = aux[3 * i]!;
  const dD = aux[3 * i + 1]!;
  const abar = aux[3 * i + 2]!;
  for (let k = 0; k < K; k++) {
    const wk = wts[io + k]!;
    t[k] = k === g ? dD : -dD * wk;
    t[K + k] = k === g ? -dN : dN * wk - dD * wk * (x[L.a + io + k]! - abar);
  }
  return t;
}
