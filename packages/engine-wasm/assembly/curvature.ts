// The cell sums of the LLM-NRM block Gauss-Newton preconditioner (core's model/llmNrm/
// curvature.ts, llmNrmCurvature; paper.md, "Fitting"), in f64, on the loss kernel's memory layout.
//
// Two passes, each cut into fixed blocks, so that every sum has one writer and the result is the
// same bits for any thread count, with no reduction at all but the globals' (by block order):
// - rows (`curvRows`): a block of LLM rows; each row's P x P block (P = 2 + 2 kMax) over its cells,
//   and the block's partial of the gate globals' 2 x 2 block;
// - items (`curvItems`): a block of items; each item's K x K sums S_0, S_1, S_2 and the gate's
//   u, h^T M h and dL/db_i over the item's cells (all its columns, every LLM).
// Each pass recomputes the cell's softmax (K exps), which costs less than its O(K^2) sums.
//
// For softmax cross-entropy with logits v and target mass Q, d2L/dv2 = Q (diag p - p p^T); GN keeps
// J^T (that) J with J the Jacobian of v in the block's parameters (see core for the derivation).
// No allocation and no globals shared between instances: module globals are per instance, i.e.
// per thread; per-block scratch lives in the (shared) memory at the host's addresses.

import { curv4ScratchBytes, curvItems4, curvRows4 } from './curvature4';
import { sigmoid, softplus } from './simd';
import { CV_B, CV_BZ, CV_CM, CV_CORR, CV_CROSS, CV_EG, CV_GB, CV_HG, CV_HH, CV_HL, CV_HX, CV_ICOL, CV_ICOL_OFF, CV_IG, CV_ITEMS_PER_BLOCK, CV_ROW, CV_ROW_STRIDE, CV_S0, CV_S1, CV_S2, CV_SCRATCH, CV_SCRATCH4, CV_SIMD, CV_SQ, CV_U0, CV_U1, CV_X, H_C, H_COL_ITEM, H_COL_OFFSETS, H_COL_POS, H_FLAGS, H_GROUPS_PER_BLOCK, H_ITEMS, H_ITEM_OFFSETS, H_KMAX, H_MASK, H_Q4, H_ROWS, H_WIDTH, L_A, L_C, L_DELTA, L_KBAR, L_RHO, L_W0 } from './header';

const USE_S: i32 = 1;
const USE_POS: i32 = 2;
const USE_FB: i32 = 4;

const MAXK: usize = 20;
// Scratch per block: p, z, then position (i32) per option; u over the LLM block (P <= 2 + 2 MAXK).
const SC_P: usize = 0;
const SC_Z: usize = MAXK * 8;
const SC_POS: usize = 2 * MAXK * 8;
const SC_U: usize = SC_POS + MAXK * 4;
/** Scratch bytes per block (the host allocates CURV_SCRATCH_BYTES per block). */
const CURV_SCRATCH: usize = SC_U + (2 + 2 * MAXK) * 8;

@inline function hi(h: usize, slot: i32): i32 {
  return load<i32>(h + (<usize>slot << 2));
}
@inline function hp(h: usize, slot: i32): usize {
  return <usize>load<u32>(h + (<usize>slot << 2));
}
@inline function f64at(base: usize, i: i32): f64 {
  return load<f64>(base + (<usize>i << 3));
}
@inline function addf64(p: usize, v: f64): void {
  store<f64>(p, load<f64>(p) + v);
}

// The cell (row j, column col) forward: z_k = a theta + c + delta, v_k = (1 - G) s z_k + G rho,
// p = softmax(v) into scratch (p, z, positions); returns Q = sum q; G in cellG.
let cellG: f64 = 0;
// The gate globals of the pass (w0, kappa = softplus(kbar)), set by its entry.
let passW0: f64 = 0;
let passKappa: f64 = 0;

function forward(h: usize, j: i32, col: i32, K: i32, io: i32, co: i32, i: i32, sc: usize, th: f64, s: f64): f64 {
  const width = hi(h, H_WIDTH);
  const kMax = hi(h, H_KMAX);
  const flags = hi(h, H_FLAGS);
  const x = hp(h, CV_X);
  const xa = x + (<usize>hi(h, L_A) << 3) + (<usize>io << 3);
  const xc = x + (<usize>hi(h, L_C) << 3) + (<usize>io << 3);
  const xd = x + (<usize>(hi(h, L_DELTA) + j * kMax) << 3);
  const xr = x + (<usize>(hi(h, L_RHO) + j * kMax) << 3);
  const pp = hp(h, H_COL_POS) + <usize>co;
  // q of row j: group j >> 2, lane j & 3, entries interleaved by four.
  const qp = hp(h, H_Q4) + ((<usize>(j >> 2) * <usize>width + <usize>co) << 4) + (<usize>(j & 3) << 2);
  const usePos = (flags & USE_POS) != 0;
  const useFb = (flags & USE_FB) != 0;
  let G: f64 = 0;
  if (useFb) G = sigmoid(passW0 - passKappa * (th - f64at(hp(h, CV_B), i)));
  const os = (1 - G) * s;
  let m = -Infinity;
  let Q: f64 = 0;
  for (let k = 0; k < K; k++) {
    const ps = <i32>load<u8>(pp + <usize>k);
    store<i32>(sc + SC_POS + (<usize>k << 2), ps);
    const ko = <usize>k << 3;
    const z = load<f64>(xa + ko) * th + load<f64>(xc + ko) + (usePos ? load<f64>(xd + (<usize>ps << 3)) : 0);
    store<f64>(sc + SC_Z + ko, z);
    const v = useFb ? os * z + G * load<f64>(xr + (<usize>ps << 3)) : s * z;
    store<f64>(sc + SC_P + ko, v);
    if (v > m) m = v;
    Q += <f64>load<f32>(qp + (<usize>k << 4));
  }
  let sum: f64 = 0;
  for (let k = 0; k < K; k++) {
    const ko = <usize>k << 3;
    const e = Math.exp(load<f64>(sc + SC_P + ko) - m);
    store<f64>(sc + SC_P + ko, e);
    sum += e;
  }
  const inv = 1 / sum;
  for (let k = 0; k < K; k++) {
    const a = sc + SC_P + (<usize>k << 3);
    store<f64>(a, load<f64>(a) * inv);
  }
  cellG = G;
  return Q;
}

// The gate globals' 2 x 2 partial of the rows pass's current block (rowsCell adds to it; the pass
// that runs it, curvRows or the fused corrections pass, resets and stores it).
let rowHg0: f64 = 0;
let rowHg1: f64 = 0;
let rowHg01: f64 = 0;

// One cell's rows-pass sums (after `forward`: p, z, positions in sc): the LLM's P x P block into HL
// (upper triangle), with `cross` its LLM-globals block into HX, and the globals' partial. Shared by
// curvRows and curvCorrRows (which runs it beside the corrections on the same forward), so both
// give the same bits.
@inline function rowsCell(
  HL: usize,
  HX: usize,
  u: usize,
  sc: usize,
  P: i32,
  kMax: i32,
  K: i32,
  io: i32,
  xA: usize,
  xr: usize,
  Q: f64,
  G: f64,
  tb: f64,
  s: f64,
  ds: f64,
  kappa: f64,
  dkappa: f64,
  useS: bool,
  usePos: bool,
  useFb: bool,
  cross: bool,
): void {
  const omg = 1 - G;
  const gg = G * omg;
  memory.fill(u, 0, <usize>P << 3);
  let ug0: f64 = 0;
  let ug1: f64 = 0;
  let gq0: f64 = 0;
  let gq1: f64 = 0;
  let gq01: f64 = 0;
  for (let k = 0; k < K; k++) {
    const ko = <usize>k << 3;
    const ps = load<i32>(sc + SC_POS + (<usize>k << 2));
    const zk = load<f64>(sc + SC_Z + ko);
    const pk = load<f64>(sc + SC_P + ko);
    const rho = useFb ? load<f64>(xr + (<usize>ps << 3)) : 0;
    const dvdG = rho - s * zk;
    const jt = omg * s * load<f64>(xA + (<usize>(io + k) << 3)) - dvdG * kappa * gg;
    const js = useS ? omg * zk * ds : 0;
    const jd = usePos ? omg * s : 0;
    const jr = useFb ? G : 0;
    const i2 = 2 + ps;
    const i3 = 2 + kMax + ps;
    addf64(u, pk * jt);
    addf64(u + 8, pk * js);
    addf64(u + (<usize>i2 << 3), pk * jd);
    addf64(u + (<usize>i3 << 3), pk * jr);
    // sum_k p_k J_k J_k^T over (theta, sbar, delta_pos, rho_pos), upper triangle.
    const wq = pk * Q;
    addf64(HL, wq * jt * jt);
    addf64(HL + 8, wq * jt * js);
    addf64(HL + (<usize>(P + 1) << 3), wq * js * js);
    addf64(HL + (<usize>i2 << 3), wq * jt * jd);
    addf64(HL + (<usize>(P + i2) << 3), wq * js * jd);
    addf64(HL + (<usize>(i2 * P + i2) << 3), wq * jd * jd);
    addf64(HL + (<usize>i3 << 3), wq * jt * jr);
    addf64(HL + (<usize>(P + i3) << 3), wq * js * jr);
    addf64(HL + (<usize>(i2 * P + i3) << 3), wq * jd * jr);
    addf64(HL + (<usize>(i3 * P + i3) << 3), wq * jr * jr);
    if (useFb) {
      // dv/dw0 = dvdG G (1 - G); dv/dkbar = -(theta - b) dvdG G (1 - G) kappa'.
      const jw = dvdG * gg;
      const jk = -tb * dvdG * gg * dkappa;
      gq0 += pk * jw * jw;
      gq1 += pk * jk * jk;
      gq01 += pk * jw * jk;
      ug0 += pk * jw;
      ug1 += pk * jk;
      if (cross) {
        // The LLM-globals block: sum_k Q p_k J_k (jw, jk)^T (then - Q u (ug0, ug1)^T below).
        const a0 = wq * jw;
        const a1 = wq * jk;
        addf64(HX, a0 * jt);
        addf64(HX + 8, a1 * jt);
        addf64(HX + 16, a0 * js);
        addf64(HX + 24, a1 * js);
        addf64(HX + (<usize>(2 * i2) << 3), a0 * jd);
        addf64(HX + (<usize>(2 * i2 + 1) << 3), a1 * jd);
        addf64(HX + (<usize>(2 * i3) << 3), a0 * jr);
        addf64(HX + (<usize>(2 * i3 + 1) << 3), a1 * jr);
      }
    }
  }
  if (cross) {
    const qg0 = Q * ug0;
    const qg1 = Q * ug1;
    addf64(HX, -load<f64>(u) * qg0);
    addf64(HX + 8, -load<f64>(u) * qg1);
    addf64(HX + 16, -load<f64>(u, 8) * qg0);
    addf64(HX + 24, -load<f64>(u, 8) * qg1);
    for (let k = 0; k < K; k++) {
      const ps = load<i32>(sc + SC_POS + (<usize>k << 2));
      const i2 = 2 + ps;
      const i3 = 2 + kMax + ps;
      const ud = load<f64>(u + (<usize>i2 << 3));
      const ur = load<f64>(u + (<usize>i3 << 3));
      addf64(HX + (<usize>(2 * i2) << 3), -ud * qg0);
      addf64(HX + (<usize>(2 * i2 + 1) << 3), -ud * qg1);
      addf64(HX + (<usize>(2 * i3) << 3), -ur * qg0);
      addf64(HX + (<usize>(2 * i3 + 1) << 3), -ur * qg1);
    }
  }
  // - Q u u^T over the touched indices (upper triangle): theta, sbar and, per option, its
  // position's delta and rho. Positions are distinct within a cell (a permutation).
  const ut = u;
  const u0 = load<f64>(ut) * Q;
  const u1 = load<f64>(ut, 8) * Q;
  // Rows 0 and 1 against everything touched.
  addf64(HL, -u0 * load<f64>(ut));
  addf64(HL + 8, -u0 * load<f64>(ut, 8));
  addf64(HL + (<usize>(P + 1) << 3), -u1 * load<f64>(ut, 8));
  for (let k = 0; k < K; k++) {
    const ps = load<i32>(sc + SC_POS + (<usize>k << 2));
    const i2 = 2 + ps;
    const i3 = 2 + kMax + ps;
    const ud = load<f64>(ut + (<usize>i2 << 3));
    const ur = load<f64>(ut + (<usize>i3 << 3));
    addf64(HL + (<usize>i2 << 3), -u0 * ud);
    addf64(HL + (<usize>i3 << 3), -u0 * ur);
    addf64(HL + (<usize>(P + i2) << 3), -u1 * ud);
    addf64(HL + (<usize>(P + i3) << 3), -u1 * ur);
    const udQ = ud * Q;
    const urQ = ur * Q;
    for (let l = 0; l < K; l++) {
      const pl = load<i32>(sc + SC_POS + (<usize>l << 2));
      const l2 = 2 + pl;
      const l3 = 2 + kMax + pl;
      const vd = load<f64>(ut + (<usize>l2 << 3));
      const vr = load<f64>(ut + (<usize>l3 << 3));
      // (i2, l2) and (i2, l3), (i3, l3) where the column index is not below the row's.
      if (l2 >= i2) addf64(HL + (<usize>(i2 * P + l2) << 3), -udQ * vd);
      addf64(HL + (<usize>(i2 * P + l3) << 3), -udQ * vr);
      if (l3 >= i3) addf64(HL + (<usize>(i3 * P + l3) << 3), -urQ * vr);
    }
  }
  if (useFb) {
    rowHg0 += Q * (gq0 - ug0 * ug0);
    rowHg1 += Q * (gq1 - ug1 * ug1);
    rowHg01 += Q * (gq01 - ug0 * ug1);
  }
}

/** Curvature scratch bytes per block, for the host's layout. */
export function curvScratchBytes(): i32 {
  return <i32>CURV_SCRATCH;
}

/**
 * Rows pass, block `blk` (rows blk * 4 groupsPerBlock ...): each row's P x P sums (upper triangle)
 * and the block's partial of the globals' block.
 */
export function curvRows(h: usize, blk: i32): void {
  if (hi(h, CV_CORR) != 0) {
    curvCorrRows(h, blk);
    return;
  }
  if ((hi(h, CV_SIMD) & 1) != 0) {
    curvRows4(h, blk);
    return;
  }
  const J = hi(h, H_ROWS);
  const C = hi(h, H_C);
  const kMax = hi(h, H_KMAX);
  const flags = hi(h, H_FLAGS);
  const useS = (flags & USE_S) != 0;
  const usePos = (flags & USE_POS) != 0;
  const useFb = (flags & USE_FB) != 0;
  const P = 2 + 2 * kMax;
  const rowsPerBlock = hi(h, H_GROUPS_PER_BLOCK) << 2;
  const r0 = blk * rowsPerBlock;
  const r1 = min(J, r0 + rowsPerBlock);
  const sc = hp(h, CV_SCRATCH) + <usize>blk * CURV_SCRATCH;
  const u = sc + SC_U;
  const x = hp(h, CV_X);
  const colItem = hp(h, H_COL_ITEM);
  const colOffsets = hp(h, H_COL_OFFSETS);
  const itemOffsets = hp(h, H_ITEM_OFFSETS);
  const maskB = hp(h, H_MASK);
  const bB = hp(h, CV_B);
  const kappa = useFb ? softplus(f64at(x, hi(h, L_KBAR))) : 0;
  const dkappa = sigmoid(f64at(x, hi(h, L_KBAR)));
  passW0 = useFb ? f64at(x, hi(h, L_W0)) : 0;
  passKappa = kappa;
  const xA = x + (<usize>hi(h, L_A) << 3);
  const rhoB = x + (<usize>hi(h, L_RHO) << 3);
  const cross = useFb && hi(h, CV_CROSS) != 0;
  rowHg0 = 0;
  rowHg1 = 0;
  rowHg01 = 0;
  // A row's block is a sum over thousands of cells (31,554 at paper scale), far more than its
  // 2 + 2 kMax parameters need for a preconditioner: every stride-th column (a fixed, per-row
  // offset subset), the sums scaled by stride. The items pass keeps every cell (189 per item).
  const stride = max(1, hi(h, CV_ROW_STRIDE));
  for (let j = r0; j < r1; j++) {
    const HL = hp(h, CV_HL) + <usize>j * <usize>(P * P) * 8;
    memory.fill(HL, 0, <usize>(P * P) << 3);
    const HX = hp(h, CV_HX) + <usize>j * <usize>(2 * P) * 8;
    if (cross) memory.fill(HX, 0, <usize>(2 * P) << 3);
    const row = hp(h, CV_ROW) + (<usize>j << 5);
    const th = load<f64>(row);
    const s = load<f64>(row, 8);
    const ds = load<f64>(row, 16);
    const mask = maskB + <usize>(j >> 2) * <usize>C;
    const bit = 1 << (j & 3);
    const xr = rhoB + (<usize>(j * kMax) << 3);
    for (let col = stride > 1 ? (j * 7) % stride : 0; col < C; col += stride) {
      if ((<i32>load<u8>(mask + <usize>col) & bit) == 0) continue;
      const i = load<i32>(colItem + (<usize>col << 2));
      const io = load<i32>(itemOffsets + (<usize>i << 2));
      const co = load<i32>(colOffsets + (<usize>col << 2));
      const K = load<i32>(colOffsets + (<usize>(col + 1) << 2)) - co;
      const Q = forward(h, j, col, K, io, co, i, sc, th, s);
      const G = cellG;
      const tb = useFb ? th - f64at(bB, i) : 0;
      rowsCell(HL, HX, u, sc, P, kMax, K, io, xA, xr, Q, G, tb, s, ds, kappa, dkappa, useS, usePos, useFb, cross);
    }
    if (stride > 1) {
      const sf = <f64>stride;
      for (let t = 0; t < P * P; t++) {
        const a = HL + (<usize>t << 3);
        store<f64>(a, load<f64>(a) * sf);
      }
    }
  }
  if (stride > 1) {
    rowHg0 *= <f64>stride;
    rowHg1 *= <f64>stride;
    rowHg01 *= <f64>stride;
  }
  storeRowHg(h, blk);
}

// The block's globals partial (rowHg*) into CV_HG.
function storeRowHg(h: usize, blk: i32): void {
  const hg = hp(h, CV_HG) + (<usize>blk << 5);
  store<f64>(hg, rowHg0);
  store<f64>(hg, rowHg01, 8);
  store<f64>(hg, rowHg01, 16);
  store<f64>(hg, rowHg1, 24);
}

/**
 * Items pass, block `blk` (items blk * itemsPerBlock ...): each item's S_0, S_1, S_2 (upper
 * triangles), u_1, u_0, h^T M h and dL/db_i over its cells, rows in order.
 */
export function curvItems(h: usize, blk: i32): void {
  if ((hi(h, CV_SIMD) & 2) != 0) {
    curvItems4(h, blk);
    return;
  }
  const J = hi(h, H_ROWS);
  const I = hi(h, H_ITEMS);
  const C = hi(h, H_C);
  const width = hi(h, H_WIDTH);
  const kMax = hi(h, H_KMAX);
  const flags = hi(h, H_FLAGS);
  const useFb = (flags & USE_FB) != 0;
  const ipb = hi(h, CV_ITEMS_PER_BLOCK);
  const i0 = blk * ipb;
  const i1 = min(I, i0 + ipb);
  const sc = hp(h, CV_SCRATCH) + <usize>blk * CURV_SCRATCH;
  const x = hp(h, CV_X);
  const colOffsets = hp(h, H_COL_OFFSETS);
  const itemOffsets = hp(h, H_ITEM_OFFSETS);
  const maskB = hp(h, H_MASK);
  const sqB = hp(h, CV_SQ);
  const icolOff = hp(h, CV_ICOL_OFF);
  const icol = hp(h, CV_ICOL);
  const kappa = useFb ? softplus(f64at(x, hi(h, L_KBAR))) : 0;
  const dkappa = sigmoid(f64at(x, hi(h, L_KBAR)));
  passW0 = useFb ? f64at(x, hi(h, L_W0)) : 0;
  passKappa = kappa;
  const rhoB = x + (<usize>hi(h, L_RHO) << 3);
  const q4 = hp(h, H_Q4);
  const cross = useFb && hi(h, CV_CROSS) != 0;
  const bB = hp(h, CV_B);
  for (let i = i0; i < i1; i++) {
    const io = load<i32>(itemOffsets + (<usize>i << 2));
    const K = load<i32>(itemOffsets + (<usize>(i + 1) << 2)) - io;
    const base = <usize>load<i32>(sqB + (<usize>i << 2)) << 3;
    const S0 = hp(h, CV_S0) + base;
    const S1 = hp(h, CV_S1) + base;
    const S2 = hp(h, CV_S2) + base;
    const U1 = hp(h, CV_U1) + (<usize>io << 3);
    const U0 = hp(h, CV_U0) + (<usize>io << 3);
    memory.fill(S0, 0, <usize>(K * K) << 3);
    memory.fill(S1, 0, <usize>(K * K) << 3);
    memory.fill(S2, 0, <usize>(K * K) << 3);
    memory.fill(U1, 0, <usize>K << 3);
    memory.fill(U0, 0, <usize>K << 3);
    let hh: f64 = 0;
    let gbi: f64 = 0;
    const IG = hp(h, CV_IG) + (<usize>io << 5);
    let eg0: f64 = 0;
    let eg1: f64 = 0;
    if (cross) memory.fill(IG, 0, <usize>K << 5);
    const tb = useFb ? -f64at(bB, i) : 0;
    const c0 = load<i32>(icolOff + (<usize>i << 2));
    const c1 = load<i32>(icolOff + (<usize>(i + 1) << 2));
    for (let cc = c0; cc < c1; cc++) {
      const col = load<i32>(icol + (<usize>cc << 2));
      const co = load<i32>(colOffsets + (<usize>col << 2));
      for (let j = 0; j < J; j++) {
        if ((<i32>load<u8>(maskB + <usize>(j >> 2) * <usize>C + <usize>col) & (1 << (j & 3))) == 0) continue;
        const row = hp(h, CV_ROW) + (<usize>j << 5);
        const th = load<f64>(row);
        const s = load<f64>(row, 8);
        const Q = forward(h, j, col, K, io, co, i, sc, th, s);
        const G = cellG;
        const omg = 1 - G;
        // Item block: w = (1 - G) s; M = Q (diag p - p p^T).
        const w2 = omg * s * omg * s * Q;
        const th2 = th * th;
        for (let k = 0; k < K; k++) {
          const wk = w2 * load<f64>(sc + SC_P + (<usize>k << 3));
          const rowOff = <usize>(k * K) << 3;
          for (let l = k; l < K; l++) {
            const mkl = (k == l ? wk : 0) - wk * load<f64>(sc + SC_P + (<usize>l << 3));
            const t = rowOff + (<usize>l << 3);
            addf64(S0 + t, mkl);
            addf64(S1 + t, mkl * th);
            addf64(S2 + t, mkl * th2);
          }
        }
        if (useFb) {
          // h_k = dv_k/db = (rho - s z_k) G (1 - G) kappa; (M h)_k = Q p_k (h_k - p.h).
          const xr = rhoB + (<usize>(j * kMax) << 3);
          const qp = q4 + ((<usize>(j >> 2) * <usize>width + <usize>co) << 4) + (<usize>(j & 3) << 2);
          const gk = G * omg * kappa;
          let ph: f64 = 0;
          for (let k = 0; k < K; k++) {
            const ko = <usize>k << 3;
            const ps = load<i32>(sc + SC_POS + (<usize>k << 2));
            ph += load<f64>(sc + SC_P + ko) * (load<f64>(xr + (<usize>ps << 3)) - s * load<f64>(sc + SC_Z + ko));
          }
          ph *= gk;
          const wq = omg * s * Q;
          for (let k = 0; k < K; k++) {
            const ko = <usize>k << 3;
            const ps = load<i32>(sc + SC_POS + (<usize>k << 2));
            const pk = load<f64>(sc + SC_P + ko);
            const hk = (load<f64>(xr + (<usize>ps << 3)) - s * load<f64>(sc + SC_Z + ko)) * gk;
            gbi += (Q * pk - <f64>load<f32>(qp + (<usize>k << 4))) * hk;
            const mh = pk * (hk - ph);
            addf64(U1 + ko, wq * th * mh);
            addf64(U0 + ko, wq * mh);
            hh += Q * hk * mh;
          }
          if (cross) {
            // Item-globals: a_l, c_l enter v_l as (1 - G) s (a_l theta + c_l), the globals through
            // dv/dw0 = dvdG G (1 - G), dv/dkbar = -(theta - b) dvdG G (1 - G) kappa' (rows pass);
            // b_i through h t^T (E, added with t in core).
            const gq = G * omg;
            let ug0: f64 = 0;
            let ug1: f64 = 0;
            const dk = -(th + tb) * gq * dkappa;
            for (let k = 0; k < K; k++) {
              const ko = <usize>k << 3;
              const ps = load<i32>(sc + SC_POS + (<usize>k << 2));
              const dvdG = load<f64>(xr + (<usize>ps << 3)) - s * load<f64>(sc + SC_Z + ko);
              const pk = load<f64>(sc + SC_P + ko);
              ug0 += pk * (dvdG * gq);
              ug1 += pk * (dvdG * dk);
            }
            let phh: f64 = 0;
            let phw: f64 = 0;
            let phk: f64 = 0;
            for (let l = 0; l < K; l++) {
              const lo = <usize>l << 3;
              const ps = load<i32>(sc + SC_POS + (<usize>l << 2));
              const dvdG = load<f64>(xr + (<usize>ps << 3)) - s * load<f64>(sc + SC_Z + lo);
              const jw = dvdG * gq;
              const jk = dvdG * dk;
              const pl = load<f64>(sc + SC_P + lo);
              const f = wq * pl;
              const w0l = f * (jw - ug0);
              const w1l = f * (jk - ug1);
              const sa = IG + (<usize>l << 4);
              const sc2 = IG + (<usize>(K + l) << 4);
              addf64(sa, th * w0l);
              addf64(sa + 8, th * w1l);
              addf64(sc2, w0l);
              addf64(sc2 + 8, w1l);
              const hl = dvdG * gk;
              phh += pl * hl;
              phw += pl * hl * jw;
              phk += pl * hl * jk;
            }
            eg0 += Q * (phw - phh * ug0);
            eg1 += Q * (phk - phh * ug1);
          }
        }
      }
    }
    store<f64>(hp(h, CV_HH) + (<usize>i << 3), hh);
    store<f64>(hp(h, CV_GB) + (<usize>i << 3), gbi);
    if (cross) {
      store<f64>(hp(h, CV_EG) + (<usize>i << 4), eg0);
      store<f64>(hp(h, CV_EG) + (<usize>i << 4), eg1, 8);
    }
  }
}

// The standard errors' item corrections (core's llmNrmItemCorrections / cellItemCorrection, f64):
// per LLM row, sum over its cells of B D^-1 B^T (P x P, into CV_CM, mirrored) and with itemZ B Z
// (P x 2, into CV_BZ), for banks with one cell per (LLM, item) pair. The per-item inputs reuse the
// first pass's buffers (read by then): D_aa, D_ac + D_ca, D_cc (K x K, full) in CV_S0, CV_S1, CV_S2;
// m = D^-1 t in CV_U1 (the a half) and CV_U0 (the c half); t.m in CV_HH; t.Z in CV_EG; Z in CV_IG.
const CORR_Z: i32 = 2;
// With the rows pass's sums too (CV_HL, CV_HX, CV_HG, as curvRows at stride 1): the SEs' first
// pass then leaves them to this one, which walks the same cells with the same forward (one softmax
// per cell instead of two; the same operations per sum, so the same bits).
const CORR_ROWS: i32 = 4;
// Scratch of the corrections (in the f32 passes' region, CURV4 bytes a block): per option jt, js,
// f, eps, then N (K x K) and five K-vectors (gam, eta, V, N jt, N js).
const SR_JT: usize = 0;
const SR_JS: usize = MAXK * 8;
const SR_F: usize = 2 * MAXK * 8;
const SR_EPS: usize = 3 * MAXK * 8;
const SR_N: usize = 4 * MAXK * 8;

@inline function ld(base: usize, i: i32): f64 {
  return load<f64>(base + (<usize>i << 3));
}
@inline function st(base: usize, i: i32, v: f64): void {
  store<f64>(base + (<usize>i << 3), v);
}
@inline function add(base: usize, i: i32, v: f64): void {
  const a = base + (<usize>i << 3);
  store<f64>(a, load<f64>(a) + v);
}

/** Rows pass of the corrections, block `blk` (the rows of curvRows' block). */
export function curvCorrRows(h: usize, blk: i32): void {
  const J = hi(h, H_ROWS);
  const C = hi(h, H_C);
  const kMax = hi(h, H_KMAX);
  const flags = hi(h, H_FLAGS);
  const useS = (flags & USE_S) != 0;
  const usePos = (flags & USE_POS) != 0;
  const useFb = (flags & USE_FB) != 0;
  const withZ = (hi(h, CV_CORR) & CORR_Z) != 0;
  const rows = (hi(h, CV_CORR) & CORR_ROWS) != 0;
  const cross = rows && useFb && hi(h, CV_CROSS) != 0;
  const P = 2 + 2 * kMax;
  const rowsPerBlock = hi(h, H_GROUPS_PER_BLOCK) << 2;
  const r0 = blk * rowsPerBlock;
  const r1 = min(J, r0 + rowsPerBlock);
  const sc = hp(h, CV_SCRATCH) + <usize>blk * CURV_SCRATCH;
  const sr = hp(h, CV_SCRATCH4) + <usize>blk * <usize>curv4ScratchBytes();
  const x = hp(h, CV_X);
  const colItem = hp(h, H_COL_ITEM);
  const colOffsets = hp(h, H_COL_OFFSETS);
  const itemOffsets = hp(h, H_ITEM_OFFSETS);
  const maskB = hp(h, H_MASK);
  const sqB = hp(h, CV_SQ);
  const kappa = useFb ? softplus(f64at(x, hi(h, L_KBAR))) : 0;
  const dkappa = sigmoid(f64at(x, hi(h, L_KBAR)));
  passW0 = useFb ? f64at(x, hi(h, L_W0)) : 0;
  passKappa = kappa;
  const xA = x + (<usize>hi(h, L_A) << 3);
  const rhoB = x + (<usize>hi(h, L_RHO) << 3);
  const bB = hp(h, CV_B);
  const u = sc + SC_U;
  rowHg0 = 0;
  rowHg1 = 0;
  rowHg01 = 0;
  const JT = sr + SR_JT;
  const JS = sr + SR_JS;
  const F = sr + SR_F;
  const EPS = sr + SR_EPS;
  const p = sc + SC_P;
  for (let j = r0; j < r1; j++) {
    const Cm = hp(h, CV_CM) + <usize>j * <usize>(P * P) * 8;
    memory.fill(Cm, 0, <usize>(P * P) << 3);
    const bz = hp(h, CV_BZ) + <usize>j * <usize>(2 * P) * 8;
    if (withZ) memory.fill(bz, 0, <usize>(2 * P) << 3);
    const HL = hp(h, CV_HL) + <usize>j * <usize>(P * P) * 8;
    if (rows) memory.fill(HL, 0, <usize>(P * P) << 3);
    const HX = hp(h, CV_HX) + <usize>j * <usize>(2 * P) * 8;
    if (cross) memory.fill(HX, 0, <usize>(2 * P) << 3);
    const row = hp(h, CV_ROW) + (<usize>j << 5);
    const th = load<f64>(row);
    const s = load<f64>(row, 8);
    const ds = load<f64>(row, 16);
    const mask = maskB + <usize>(j >> 2) * <usize>C;
    const bit = 1 << (j & 3);
    const xr = rhoB + (<usize>(j * kMax) << 3);
    for (let col = 0; col < C; col++) {
      if ((<i32>load<u8>(mask + <usize>col) & bit) == 0) continue;
      const i = load<i32>(colItem + (<usize>col << 2));
      const io = load<i32>(itemOffsets + (<usize>i << 2));
      const co = load<i32>(colOffsets + (<usize>col << 2));
      const K = load<i32>(colOffsets + (<usize>(col + 1) << 2)) - co;
      const Q = forward(h, j, col, K, io, co, i, sc, th, s);
      const G = cellG;
      if (rows) rowsCell(HL, HX, u, sc, P, kMax, K, io, xA, xr, Q, G, useFb ? th - f64at(bB, i) : 0, s, ds, kappa, dkappa, useS, usePos, useFb, cross);
      const omg = 1 - G;
      const gg = G * omg;
      let u0: f64 = 0;
      let u1: f64 = 0;
      let ph: f64 = 0;
      const wbase = Q * omg * s;
      for (let k = 0; k < K; k++) {
        const pk = ld(p, k);
        const ps = load<i32>(sc + SC_POS + (<usize>k << 2));
        const rho = useFb ? load<f64>(xr + (<usize>ps << 3)) : 0;
        const dvdG = rho - s * load<f64>(sc + SC_Z + (<usize>k << 3));
        const jt = omg * s * ld(xA, io + k) - dvdG * kappa * gg;
        const js = useS ? omg * load<f64>(sc + SC_Z + (<usize>k << 3)) * ds : 0;
        st(JT, k, jt);
        st(JS, k, js);
        u0 += pk * jt;
        u1 += pk * js;
        st(F, k, wbase * pk);
        if (useFb) ph += pk * dvdG * gg * kappa;
      }
      let e0: f64 = 0;
      let e1: f64 = 0;
      if (useFb) {
        // eps_k = Q p_k (h_k - p.h), h_k = (rho_k - s z_k) G (1 - G) kappa; E = sum_k eps_k (jt_k, js_k).
        for (let k = 0; k < K; k++) {
          const ps = load<i32>(sc + SC_POS + (<usize>k << 2));
          const ek = Q * ld(p, k) * ((load<f64>(xr + (<usize>ps << 3)) - s * load<f64>(sc + SC_Z + (<usize>k << 3))) * gg * kappa - ph);
          st(EPS, k, ek);
          e0 += ek * ld(JT, k);
          e1 += ek * ld(JS, k);
        }
      }
      cellCorrection(h, Cm, bz, withZ, useFb, P, kMax, i, io, K, th, sc, sr, usePos ? omg * s : 0, useFb ? G : 0, u0, u1, e0, e1, sqB);
    }
    for (let r = 0; r < P; r++) for (let c = r + 1; c < P; c++) st(Cm, c * P + r, ld(Cm, r * P + c));
  }
  if (rows) storeRowHg(h, blk);
}

// One cell's B D^-1 B^T (and B Z) into C (upper triangle) and bz: core's cellItemCorrection.
function cellCorrection(
  h: usize,
  Cm: usize,
  bz: usize,
  withZ: bool,
  gate: bool,
  P: i32,
  Kmax: i32,
  i: i32,
  io: i32,
  K: i32,
  th: f64,
  sc: usize,
  sr: usize,
  jd: f64,
  jr: f64,
  u0: f64,
  u1: f64,
  e0: f64,
  e1: f64,
  sqB: usize,
): void {
  const p = sc + SC_P;
  const pos = sc + SC_POS;
  const JT = sr + SR_JT;
  const JS = sr + SR_JS;
  const f = sr + SR_F;
  const eps = sr + SR_EPS;
  const N = sr + SR_N;
  const KK = K * K;
  const gam = N + (<usize>KK << 3);
  const eta = gam + (<usize>K << 3);
  const V = eta + (<usize>K << 3);
  const At = V + (<usize>K << 3);
  const As = At + (<usize>K << 3);
  const base = <usize>load<i32>(sqB + (<usize>i << 2)) << 3;
  const daa = hp(h, CV_S0) + base;
  const dac = hp(h, CV_S1) + base;
  const dcc = hp(h, CV_S2) + base;
  const ma = hp(h, CV_U1) + (<usize>io << 3);
  const mc = hp(h, CV_U0) + (<usize>io << 3);
  const th2 = th * th;
  // N = F M F (symmetric), then n1 = N 1 (into gam), N jt, N js.
  for (let l = 0; l < K; l++) {
    const fl = ld(f, l);
    const rowo = l * K;
    for (let mm = l; mm < K; mm++) {
      const t = rowo + mm;
      const v = fl * (th2 * ld(daa, t) + th * ld(dac, t) + ld(dcc, t)) * ld(f, mm);
      st(N, t, v);
      st(N, mm * K + l, v);
    }
  }
  let n11: f64 = 0;
  for (let l = 0; l < K; l++) {
    const rowo = l * K;
    let n1: f64 = 0;
    let at: f64 = 0;
    let as: f64 = 0;
    for (let mm = 0; mm < K; mm++) {
      const v = ld(N, rowo + mm);
      n1 += v;
      at += v * ld(JT, mm);
      as += v * ld(JS, mm);
    }
    st(gam, l, n1);
    st(At, l, at);
    st(As, l, as);
    n11 += n1;
  }
  const half = 0.5 * n11;
  let g0 = -half * u0;
  let g1 = -half * u1;
  for (let l = 0; l < K; l++) {
    g0 += ld(JT, l) * ld(gam, l);
    g1 += ld(JS, l) * ld(gam, l);
  }
  for (let l = 0; l < K; l++) add(gam, l, -half * ld(p, l));
  let y0: f64 = 0;
  let y1: f64 = 0;
  if (gate) {
    const ht = 0.5 * ld(hp(h, CV_HH), i);
    let fv: f64 = 0;
    for (let l = 0; l < K; l++) {
      const v = ld(f, l) * (th * ld(ma, l) + ld(mc, l));
      st(eta, l, v);
      fv += v;
      y0 += ld(JT, l) * v;
      y1 += ld(JS, l) * v;
    }
    y0 += -fv * u0 + ht * e0;
    y1 += -fv * u1 + ht * e1;
    for (let l = 0; l < K; l++) st(eta, l, ld(eta, l) - fv * ld(p, l) + ht * ld(eps, l));
  }
  let tt = 2 * (e0 * y0 - g0 * u0);
  let ts = e0 * y1 + y0 * e1 - g0 * u1 - u0 * g1;
  let ss = 2 * (e1 * y1 - g1 * u1);
  for (let l = 0; l < K; l++) {
    const at = ld(At, l);
    const as = ld(As, l);
    const jt = ld(JT, l);
    const js = ld(JS, l);
    tt += jt * at;
    ts += jt * as;
    ss += js * as;
    const pl = ld(p, l);
    const gl = ld(gam, l);
    let t0 = at - g0 * pl - u0 * gl;
    let t1 = as - g1 * pl - u1 * gl;
    if (gate) {
      const el = ld(eps, l);
      const hl = ld(eta, l);
      t0 += e0 * hl + y0 * el;
      t1 += e1 * hl + y1 * el;
    }
    const ps = load<i32>(pos + (<usize>l << 2));
    const d = 2 + ps;
    const r = 2 + Kmax + ps;
    add(Cm, d, jd * t0);
    add(Cm, r, jr * t0);
    add(Cm, P + d, jd * t1);
    add(Cm, P + r, jr * t1);
  }
  add(Cm, 0, tt);
  add(Cm, 1, ts);
  add(Cm, P + 1, ss);
  // T over the option coordinates, each pair (l, mm >= l) once (T is symmetric).
  const dd = jd * jd;
  const dr = jd * jr;
  const rr = jr * jr;
  const rOff = 2 + Kmax;
  for (let l = 0; l < K; l++) {
    const pl = ld(p, l);
    const gl = ld(gam, l);
    const el = gate ? ld(eps, l) : 0;
    const hl = gate ? ld(eta, l) : 0;
    const ql = load<i32>(pos + (<usize>l << 2));
    const dP = (2 + ql) * P;
    for (let mm = l; mm < K; mm++) {
      let T = ld(N, l * K + mm) - gl * ld(p, mm) - pl * ld(gam, mm);
      if (gate) T += el * ld(eta, mm) + hl * ld(eps, mm);
      const qm = load<i32>(pos + (<usize>mm << 2));
      add(Cm, dP + rOff + qm, dr * T);
      if (mm != l) add(Cm, (2 + qm) * P + rOff + ql, dr * T);
      const lo = qm >= ql ? ql : qm;
      const hq = qm >= ql ? qm : ql;
      add(Cm, (2 + lo) * P + 2 + hq, dd * T);
      add(Cm, (rOff + lo) * P + rOff + hq, rr * T);
    }
  }
  if (withZ) {
    // B Z (P x 2) = W (theta Z_a + Z_c) + E (t.Z): W z = Jm (f o z) - (f . z) u.
    const Z = hp(h, CV_IG) + (<usize>io << 5);
    const tzB = hp(h, CV_EG) + (<usize>i << 4);
    for (let gi = 0; gi < 2; gi++) {
      const tz = load<f64>(tzB + (<usize>gi << 3));
      let fz: f64 = 0;
      let w0: f64 = 0;
      let w1: f64 = 0;
      for (let l = 0; l < K; l++) {
        const v = ld(f, l) * (th * ld(Z, 2 * l + gi) + ld(Z, 2 * (K + l) + gi));
        st(V, l, v);
        fz += v;
        w0 += ld(JT, l) * v;
        w1 += ld(JS, l) * v;
      }
      add(bz, gi, w0 - fz * u0 + (gate ? e0 * tz : 0));
      add(bz, 2 + gi, w1 - fz * u1 + (gate ? e1 * tz : 0));
      for (let l = 0; l < K; l++) {
        const o = ld(V, l) - fz * ld(p, l) + (gate ? ld(eps, l) * tz : 0);
        const ps = load<i32>(pos + (<usize>l << 2));
        add(bz, 2 * (2 + ps) + gi, jd * o);
        add(bz, 2 * (2 + Kmax + ps) + gi, jr * o);
      }
    }
  }
}
