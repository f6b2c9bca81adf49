// The cell sums of the LLM-NRM block Gauss-Newton preconditioner (core's families/llmNrm/
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

// Header slots shared with kernel.ts / src/internal/kernelHost.ts.
const H_C: i32 = 1;
const H_WIDTH: i32 = 2;
const H_KMAX: i32 = 3;
const H_FLAGS: i32 = 4;
const H_GROUPS_PER_BLOCK: i32 = 5;
const H_ROWS: i32 = 9;
const H_Q4: i32 = 10;
const H_MASK: i32 = 11;
const H_COL_ITEM: i32 = 12;
const H_COL_OFFSETS: i32 = 13;
const H_ITEM_OFFSETS: i32 = 14;
const H_COL_POS: i32 = 15;
const H_ITEMS: i32 = 31;
/** f64 parameters x (core's layout). */
const CV_X: i32 = 40;
/** f64 per item: the gate difficulty b_i. */
const CV_B: i32 = 41;
/** f64 per row: P x P sums. */
const CV_HL: i32 = 42;
/** f64 per row block: 4 partial sums of the globals' block. */
const CV_HG: i32 = 43;
const CV_S0: i32 = 44;
const CV_S1: i32 = 45;
const CV_S2: i32 = 46;
/** i32 per item + 1: offsets of the K x K squares. */
const CV_SQ: i32 = 47;
const CV_U1: i32 = 48;
const CV_U0: i32 = 49;
const CV_HH: i32 = 50;
const CV_GB: i32 = 51;
/** i32 per item + 1, then i32 per column: the columns of each item. */
const CV_ICOL_OFF: i32 = 52;
const CV_ICOL: i32 = 53;
const CV_ITEMS_PER_BLOCK: i32 = 54;
/** f64 per row: theta, s, ds/dsbar, 0. */
const CV_ROW: i32 = 55;
const CV_SCRATCH: i32 = 56;
/** i32: the rows pass reads every stride-th column of a row (1: all), its sums scaled by stride. */
const CV_ROW_STRIDE: i32 = 39;
/** Layout offsets (i32): theta, sbar, a, c, delta, rho, w0, kbar. */
const L_A: i32 = 58;
const L_C: i32 = 59;
const L_DELTA: i32 = 60;
const L_RHO: i32 = 61;
const L_W0: i32 = 62;
const L_KBAR: i32 = 63;

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

function sigmoid(x: f64): f64 {
  return x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x));
}

function softplus(x: f64): f64 {
  return x > 30 ? x : x < -30 ? Math.exp(x) : Math.log1p(Math.exp(x));
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

/** Curvature scratch bytes per block, for the host's layout. */
export function curvScratchBytes(): i32 {
  return <i32>CURV_SCRATCH;
}

/**
 * Rows pass, block `blk` (rows blk * 4 groupsPerBlock ...): each row's P x P sums (upper triangle)
 * and the block's partial of the globals' block.
 */
export function curvRows(h: usize, blk: i32): void {
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
  let hg0: f64 = 0;
  let hg1: f64 = 0;
  let hg01: f64 = 0;
  // A row's block is a sum over thousands of cells (31,554 at paper scale), far more than its
  // 2 + 2 kMax parameters need for a preconditioner: every stride-th column (a fixed, per-row
  // offset subset), the sums scaled by stride. The items pass keeps every cell (189 per item).
  const stride = max(1, hi(h, CV_ROW_STRIDE));
  for (let j = r0; j < r1; j++) {
    const HL = hp(h, CV_HL) + <usize>j * <usize>(P * P) * 8;
    memory.fill(HL, 0, <usize>(P * P) << 3);
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
      const omg = 1 - G;
      const gg = G * omg;
      const tb = useFb ? th - f64at(bB, i) : 0;
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
        hg0 += Q * (gq0 - ug0 * ug0);
        hg1 += Q * (gq1 - ug1 * ug1);
        hg01 += Q * (gq01 - ug0 * ug1);
      }
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
    hg0 *= <f64>stride;
    hg1 *= <f64>stride;
    hg01 *= <f64>stride;
  }
  const hg = hp(h, CV_HG) + (<usize>blk << 5);
  store<f64>(hg, hg0);
  store<f64>(hg, hg01, 8);
  store<f64>(hg, hg01, 16);
  store<f64>(hg, hg1, 24);
}

/**
 * Items pass, block `blk` (items blk * itemsPerBlock ...): each item's S_0, S_1, S_2 (upper
 * triangles), u_1, u_0, h^T M h and dL/db_i over its cells, rows in order.
 */
export function curvItems(h: usize, blk: i32): void {
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
  passW0 = useFb ? f64at(x, hi(h, L_W0)) : 0;
  passKappa = kappa;
  const rhoB = x + (<usize>hi(h, L_RHO) << 3);
  const q4 = hp(h, H_Q4);
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
        }
      }
    }
    store<f64>(hp(h, CV_HH) + (<usize>i << 3), hh);
    store<f64>(hp(h, CV_GB) + (<usize>i << 3), gbi);
  }
}
