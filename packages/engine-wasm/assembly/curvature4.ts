// The preconditioner's cell sums (curvature.ts's two passes, core's llmNrmCurvature) in SIMD: the
// loss kernel's layout (kernel.ts), f32x4 lanes over four consecutive LLM rows of a column, its
// f32 parameters (th4, s4, dr4, acf, bf, filled at x by the host) and the vectorised exp. The cell
// work runs in f32 (the preconditioner only needs to be a good approximation: paper.md,
// "Fitting"); every sum goes to f64 after at most FLUSH cells (per lane, then in a fixed order),
// and every sum still has one writer, so the result is the same bits for any thread count.
// curvature.ts's f64 passes stay for the standard errors (`cross`) and for `curvaturePrecision: 'f64'`.
//
// Lanes of rows past the last, and unobserved cells, carry q = 0, so Q = 0 and every term they add
// (each is a multiple of Q or of q) is exactly zero: no masking beyond skipping empty groups.
import { exp4, sigmoid, sigmoid4, softplus } from './simd';
import { CV_GB, CV_HG, CV_HH, CV_HL, CV_ICOL, CV_ICOL_OFF, CV_ITEMS_PER_BLOCK, CV_ROW, CV_ROW_STRIDE, CV_S0, CV_S1, CV_S2, CV_SCRATCH4, CV_SQ, CV_U0, CV_U1, CV_X, H_ACF, H_BF, H_C, H_COL_ITEM, H_COL_OFFSETS, H_COL_POS, H_DR4, H_FLAGS, H_GROUPS, H_GROUPS_PER_BLOCK, H_ITEMS, H_ITEM_OFFSETS, H_KMAX, H_MASK, H_Q4, H_ROWS, H_S4, H_TH4, H_WIDTH, L_KBAR, L_W0 } from './header';

const USE_S: i32 = 1;
const USE_POS: i32 = 2;
const USE_FB: i32 = 4;

/** Cells (rows pass) or groups (items pass) between flushes of the f32 lane sums into f64. */
const FLUSH: i32 = 32;

const MAXK: usize = 20;
const MAXP: usize = 2 + 2 * MAXK;
// Scratch: z, then p (after v, e) per option; positions (i32); u over the LLM block; then either the
// rows pass's P x P lane sums or the items pass's 3 K x K, 2 K and 2 lane sums.
const S4_Z: usize = 0;
const S4_P: usize = MAXK * 16;
const S4_POS: usize = 2 * MAXK * 16;
const S4_Q: usize = S4_POS + MAXK * 4;
const S4_U: usize = S4_Q + 16;
const S4_ACC: usize = S4_U + MAXP * 16;
const S4_SS: usize = S4_ACC;
const S4_UU: usize = S4_SS + 3 * MAXK * MAXK * 16;
const CURV4_SCRATCH: usize = S4_ACC + MAXP * MAXP * 16;

@inline function hi(h: usize, slot: i32): i32 {
  return load<i32>(h + (<usize>slot << 2));
}
@inline function hp(h: usize, slot: i32): usize {
  return <usize>load<u32>(h + (<usize>slot << 2));
}

// Sum of the four lanes in f64, in a fixed order ((v0 + v2) + (v1 + v3)).
@inline function hsum64(v: v128): f64 {
  const w = f64x2.add(f64x2.promote_low_f32x4(v), f64x2.promote_low_f32x4(i32x4.shuffle(v, v, 2, 3, 2, 3)));
  return f64x2.extract_lane(w, 0) + f64x2.extract_lane(w, 1);
}

@inline function acc4(p: usize, v: v128): void {
  v128.store(p, f32x4.add(v128.load(p), v));
}

// One cell of four rows: z_k = a_k theta + c_k + delta_pos, v_k = (1 - G) s z_k + G rho_pos (s z_k
// without the gate), p = softmax(v) into scratch (z, p, positions); Q = sum q into scratch.
// Returns one past the largest position shown.
function cell4(K: i32, pp: usize, acp: usize, dr: usize, qp: usize, sc: usize, th: v128, os: v128, G: v128): i32 {
  let vmax = f32x4.splat(-Infinity);
  let Q = f32x4.splat(0);
  let top = 0;
  for (let k = 0; k < K; k++) {
    const ko = <usize>k << 4;
    const ps = <i32>load<u8>(pp + <usize>k);
    if (ps >= top) top = ps + 1;
    store<i32>(sc + S4_POS + (<usize>k << 2), ps);
    const po = <usize>ps << 5;
    const ak = acp + (<usize>k << 3);
    const z = f32x4.add(f32x4.add(f32x4.mul(v128.load32_splat(ak), th), v128.load32_splat(ak, 4)), v128.load(dr + po));
    const v = f32x4.add(f32x4.mul(os, z), f32x4.mul(G, v128.load(dr + po, 16)));
    v128.store(sc + S4_Z + ko, z);
    v128.store(sc + S4_P + ko, v);
    vmax = f32x4.pmax(vmax, v);
    Q = f32x4.add(Q, v128.load(qp + ko));
  }
  let sum = f32x4.splat(0);
  for (let k = 0; k < K; k++) {
    const a = sc + S4_P + (<usize>k << 4);
    const e = exp4(f32x4.sub(v128.load(a), vmax));
    v128.store(a, e);
    sum = f32x4.add(sum, e);
  }
  const inv = f32x4.div(f32x4.splat(1.0), sum);
  for (let k = 0; k < K; k++) {
    const a = sc + S4_P + (<usize>k << 4);
    v128.store(a, f32x4.mul(v128.load(a), inv));
  }
  v128.store(sc + S4_Q, Q);
  return top;
}

/** Scratch bytes per block of these passes, for the host's layout. */
export function curv4ScratchBytes(): i32 {
  return <i32>CURV4_SCRATCH;
}

// Add the rows pass's lane sums over the indices {0, 1, 2 .. 2 + top, 2 + kMax .. 2 + kMax + top}
// (upper triangle) into the four rows' f64 blocks and clear them.
function flushRows(acc: usize, HL0: usize, P: i32, kMax: i32, top: i32, lanes: i32): void {
  const n = 2 + 2 * top;
  const PP = <usize>(P * P) << 3;
  for (let a = 0; a < n; a++) {
    const r = a < 2 + top ? a : a - top + kMax - 2 + 2;
    for (let b = a; b < n; b++) {
      const c = b < 2 + top ? b : b - top + kMax - 2 + 2;
      const t = <usize>(r * P + c);
      const src = acc + (t << 4);
      const v = v128.load(src);
      const dst = HL0 + (t << 3);
      store<f64>(dst, load<f64>(dst) + <f64>f32x4.extract_lane(v, 0));
      if (lanes > 1) store<f64>(dst + PP, load<f64>(dst + PP) + <f64>f32x4.extract_lane(v, 1));
      if (lanes > 2) store<f64>(dst + 2 * PP, load<f64>(dst + 2 * PP) + <f64>f32x4.extract_lane(v, 2));
      if (lanes > 3) store<f64>(dst + 3 * PP, load<f64>(dst + 3 * PP) + <f64>f32x4.extract_lane(v, 3));
      v128.store(src, f32x4.splat(0));
    }
  }
}

/**
 * Rows pass in lanes, block `blk` (groups blk * groupsPerBlock ...): each row's P x P sums (upper
 * triangle, as curvRows) and the block's partial of the globals' block.
 */
export function curvRows4(h: usize, blk: i32): void {
  const J = hi(h, H_ROWS);
  const nG = hi(h, H_GROUPS);
  const C = hi(h, H_C);
  const width = hi(h, H_WIDTH);
  const kMax = hi(h, H_KMAX);
  const flags = hi(h, H_FLAGS);
  const useS = (flags & USE_S) != 0;
  const usePos = (flags & USE_POS) != 0;
  const useFb = (flags & USE_FB) != 0;
  const P = 2 + 2 * kMax;
  const gpb = hi(h, H_GROUPS_PER_BLOCK);
  const g0 = blk * gpb;
  const g1 = min(nG, g0 + gpb);
  const sc = hp(h, CV_SCRATCH4) + <usize>blk * CURV4_SCRATCH;
  const u = sc + S4_U;
  const acc = sc + S4_ACC;
  const x = hp(h, CV_X);
  const colItem = hp(h, H_COL_ITEM);
  const colOffsets = hp(h, H_COL_OFFSETS);
  const itemOffsets = hp(h, H_ITEM_OFFSETS);
  const colPos = hp(h, H_COL_POS);
  const acf = hp(h, H_ACF);
  const bf = hp(h, H_BF);
  const kbar = load<f64>(x + (<usize>hi(h, L_KBAR) << 3));
  const kappa = f32x4.splat(useFb ? <f32>softplus(kbar) : 0);
  const dkappa = f32x4.splat(<f32>sigmoid(kbar));
  const w0 = f32x4.splat(useFb ? <f32>load<f64>(x + (<usize>hi(h, L_W0) << 3)) : 0);
  const one = f32x4.splat(1.0);
  const zero = f32x4.splat(0);
  const stride = max(1, hi(h, CV_ROW_STRIDE));
  let hg0: f64 = 0;
  let hg1: f64 = 0;
  let hg01: f64 = 0;
  memory.fill(acc, 0, <usize>(P * P) << 4);
  for (let g = g0; g < g1; g++) {
    const row0 = g << 2;
    const lanes = min(4, J - row0);
    const laneBits = (1 << lanes) - 1;
    const HL0 = hp(h, CV_HL) + <usize>row0 * <usize>(P * P) * 8;
    memory.fill(HL0, 0, <usize>(lanes * P * P) << 3);
    const th = v128.load(hp(h, H_TH4) + (<usize>g << 4));
    const s = v128.load(hp(h, H_S4) + (<usize>g << 4));
    // ds/dsbar per lane (rows past the last: 0).
    const rowB = hp(h, CV_ROW) + (<usize>row0 << 5);
    let ds = zero;
    ds = f32x4.replace_lane(ds, 0, <f32>load<f64>(rowB, 16));
    if (lanes > 1) ds = f32x4.replace_lane(ds, 1, <f32>load<f64>(rowB, 48));
    if (lanes > 2) ds = f32x4.replace_lane(ds, 2, <f32>load<f64>(rowB, 80));
    if (lanes > 3) ds = f32x4.replace_lane(ds, 3, <f32>load<f64>(rowB, 112));
    const mask = hp(h, H_MASK) + <usize>g * <usize>C;
    const q4 = hp(h, H_Q4) + (<usize>g * <usize>width << 4);
    const dr = hp(h, H_DR4) + (<usize>g * <usize>kMax << 5);
    let top = 0;
    let since = 0;
    // As curvRows: every stride-th column (a fixed per-group offset), the sums scaled by stride.
    for (let col = stride > 1 ? (g * 7) % stride : 0; col < C; col += stride) {
      if ((<i32>load<u8>(mask + <usize>col) & laneBits) == 0) continue;
      const i = load<i32>(colItem + (<usize>col << 2));
      const io = <usize>load<i32>(itemOffsets + (<usize>i << 2));
      const co = <usize>load<i32>(colOffsets + (<usize>col << 2));
      const K = load<i32>(colOffsets + (<usize>(col + 1) << 2)) - <i32>co;
      let G = zero;
      let bi = zero;
      if (useFb) {
        bi = v128.load32_splat(bf + (<usize>i << 2));
        G = sigmoid4(f32x4.sub(w0, f32x4.mul(kappa, f32x4.sub(th, bi))));
      }
      const omg = f32x4.sub(one, G);
      const os = f32x4.mul(omg, s);
      const acp = acf + (io << 3);
      const t = cell4(K, colPos + co, acp, dr, q4 + (co << 4), sc, th, useFb ? os : s, G);
      if (t > top) top = t;
      const Q = v128.load(sc + S4_Q);
      const gg = f32x4.mul(G, omg);
      const kgg = f32x4.mul(kappa, gg);
      const tb = f32x4.sub(th, bi);
      const jd = usePos ? os : zero;
      const jr = useFb ? G : zero;
      memory.fill(u, 0, <usize>P << 4);
      let u0 = zero;
      let u1 = zero;
      let ug0 = zero;
      let ug1 = zero;
      let gq0 = zero;
      let gq1 = zero;
      let gq01 = zero;
      for (let k = 0; k < K; k++) {
        const ko = <usize>k << 4;
        const ps = load<i32>(sc + S4_POS + (<usize>k << 2));
        const z = v128.load(sc + S4_Z + ko);
        const pk = v128.load(sc + S4_P + ko);
        const dvdG = f32x4.sub(v128.load(dr + (<usize>ps << 5), 16), f32x4.mul(s, z));
        const jt = f32x4.sub(f32x4.mul(os, v128.load32_splat(acp + (<usize>k << 3))), f32x4.mul(dvdG, kgg));
        const js = useS ? f32x4.mul(f32x4.mul(omg, z), ds) : zero;
        const i2 = 2 + ps;
        const i3 = 2 + kMax + ps;
        u0 = f32x4.add(u0, f32x4.mul(pk, jt));
        u1 = f32x4.add(u1, f32x4.mul(pk, js));
        v128.store(u + (<usize>i2 << 4), f32x4.mul(pk, jd));
        v128.store(u + (<usize>i3 << 4), f32x4.mul(pk, jr));
        // sum_k p_k J_k J_k^T over (theta, sbar, delta_pos, rho_pos), upper triangle.
        const wq = f32x4.mul(pk, Q);
        const wt = f32x4.mul(wq, jt);
        const ws = f32x4.mul(wq, js);
        const wd = f32x4.mul(wq, jd);
        acc4(acc, f32x4.mul(wt, jt));
        acc4(acc + 16, f32x4.mul(wt, js));
        acc4(acc + (<usize>(P + 1) << 4), f32x4.mul(ws, js));
        acc4(acc + (<usize>i2 << 4), f32x4.mul(wt, jd));
        acc4(acc + (<usize>(P + i2) << 4), f32x4.mul(ws, jd));
        acc4(acc + (<usize>(i2 * P + i2) << 4), f32x4.mul(wd, jd));
        acc4(acc + (<usize>i3 << 4), f32x4.mul(wt, jr));
        acc4(acc + (<usize>(P + i3) << 4), f32x4.mul(ws, jr));
        acc4(acc + (<usize>(i2 * P + i3) << 4), f32x4.mul(wd, jr));
        acc4(acc + (<usize>(i3 * P + i3) << 4), f32x4.mul(f32x4.mul(wq, jr), jr));
        if (useFb) {
          // dv/dw0 = dvdG G (1 - G); dv/dkbar = -(theta - b) dvdG G (1 - G) kappa'.
          const jw = f32x4.mul(dvdG, gg);
          const jk = f32x4.neg(f32x4.mul(f32x4.mul(tb, jw), dkappa));
          const pw = f32x4.mul(pk, jw);
          const pkk = f32x4.mul(pk, jk);
          gq0 = f32x4.add(gq0, f32x4.mul(pw, jw));
          gq1 = f32x4.add(gq1, f32x4.mul(pkk, jk));
          gq01 = f32x4.add(gq01, f32x4.mul(pw, jk));
          ug0 = f32x4.add(ug0, pw);
          ug1 = f32x4.add(ug1, pkk);
        }
      }
      // - Q u u^T over the touched indices (upper triangle), as curvRows.
      const q0 = f32x4.mul(u0, Q);
      const q1 = f32x4.mul(u1, Q);
      acc4(acc, f32x4.neg(f32x4.mul(q0, u0)));
      acc4(acc + 16, f32x4.neg(f32x4.mul(q0, u1)));
      acc4(acc + (<usize>(P + 1) << 4), f32x4.neg(f32x4.mul(q1, u1)));
      for (let k = 0; k < K; k++) {
        const ps = load<i32>(sc + S4_POS + (<usize>k << 2));
        const i2 = 2 + ps;
        const i3 = 2 + kMax + ps;
        const ud = v128.load(u + (<usize>i2 << 4));
        const ur = v128.load(u + (<usize>i3 << 4));
        acc4(acc + (<usize>i2 << 4), f32x4.neg(f32x4.mul(q0, ud)));
        acc4(acc + (<usize>i3 << 4), f32x4.neg(f32x4.mul(q0, ur)));
        acc4(acc + (<usize>(P + i2) << 4), f32x4.neg(f32x4.mul(q1, ud)));
        acc4(acc + (<usize>(P + i3) << 4), f32x4.neg(f32x4.mul(q1, ur)));
        const udQ = f32x4.mul(ud, Q);
        const urQ = f32x4.mul(ur, Q);
        const rowD = acc + (<usize>(i2 * P) << 4);
        const rowR = acc + (<usize>(i3 * P) << 4);
        for (let l = 0; l < K; l++) {
          const pl = load<i32>(sc + S4_POS + (<usize>l << 2));
          const l2 = 2 + pl;
          const l3 = 2 + kMax + pl;
          const vr = v128.load(u + (<usize>l3 << 4));
          if (l2 >= i2) acc4(rowD + (<usize>l2 << 4), f32x4.neg(f32x4.mul(udQ, v128.load(u + (<usize>l2 << 4)))));
          acc4(rowD + (<usize>l3 << 4), f32x4.neg(f32x4.mul(udQ, vr)));
          if (l3 >= i3) acc4(rowR + (<usize>l3 << 4), f32x4.neg(f32x4.mul(urQ, vr)));
        }
      }
      if (useFb) {
        hg0 += hsum64(f32x4.mul(Q, f32x4.sub(gq0, f32x4.mul(ug0, ug0))));
        hg1 += hsum64(f32x4.mul(Q, f32x4.sub(gq1, f32x4.mul(ug1, ug1))));
        hg01 += hsum64(f32x4.mul(Q, f32x4.sub(gq01, f32x4.mul(ug0, ug1))));
      }
      if (++since == FLUSH) {
        flushRows(acc, HL0, P, kMax, top, lanes);
        since = 0;
        top = 0;
      }
    }
    flushRows(acc, HL0, P, kMax, top, lanes);
    if (stride > 1) {
      const sf = <f64>stride;
      for (let t = 0; t < lanes * P * P; t++) {
        const a = HL0 + (<usize>t << 3);
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

// Add the items pass's lane sums of item (K options) into its f64 sums and clear them.
function flushItem(sc: usize, K: i32, S0: usize, S1: usize, S2: usize, U1: usize, U0: usize, fb: bool): void {
  const KK = <usize>(K * K);
  for (let k = 0; k < K; k++) {
    for (let l = k; l < K; l++) {
      const t = <usize>(k * K + l);
      const a = sc + S4_SS + (t << 4);
      store<f64>(S0 + (t << 3), load<f64>(S0 + (t << 3)) + hsum64(v128.load(a)));
      store<f64>(S1 + (t << 3), load<f64>(S1 + (t << 3)) + hsum64(v128.load(a + (KK << 4))));
      store<f64>(S2 + (t << 3), load<f64>(S2 + (t << 3)) + hsum64(v128.load(a + (KK << 5))));
      v128.store(a, f32x4.splat(0));
      v128.store(a + (KK << 4), f32x4.splat(0));
      v128.store(a + (KK << 5), f32x4.splat(0));
    }
  }
  if (!fb) return;
  for (let k = 0; k < K; k++) {
    const a = sc + S4_UU + (<usize>k << 5);
    store<f64>(U1 + (<usize>k << 3), load<f64>(U1 + (<usize>k << 3)) + hsum64(v128.load(a)));
    store<f64>(U0 + (<usize>k << 3), load<f64>(U0 + (<usize>k << 3)) + hsum64(v128.load(a + 16)));
    v128.store(a, f32x4.splat(0));
    v128.store(a + 16, f32x4.splat(0));
  }
}

/**
 * Items pass in lanes, block `blk` (items blk * itemsPerBlock ...): each item's S_0, S_1, S_2
 * (upper triangles), u_1, u_0, h^T M h and dL/db_i over its cells (as curvItems), columns in
 * order, then groups of four rows.
 */
export function curvItems4(h: usize, blk: i32): void {
  const I = hi(h, H_ITEMS);
  const nG = hi(h, H_GROUPS);
  const C = hi(h, H_C);
  const width = hi(h, H_WIDTH);
  const kMax = hi(h, H_KMAX);
  const flags = hi(h, H_FLAGS);
  const useFb = (flags & USE_FB) != 0;
  const ipb = hi(h, CV_ITEMS_PER_BLOCK);
  const i0 = blk * ipb;
  const i1 = min(I, i0 + ipb);
  const sc = hp(h, CV_SCRATCH4) + <usize>blk * CURV4_SCRATCH;
  const x = hp(h, CV_X);
  const colOffsets = hp(h, H_COL_OFFSETS);
  const itemOffsets = hp(h, H_ITEM_OFFSETS);
  const colPos = hp(h, H_COL_POS);
  const maskB = hp(h, H_MASK);
  const sqB = hp(h, CV_SQ);
  const icolOff = hp(h, CV_ICOL_OFF);
  const icol = hp(h, CV_ICOL);
  const acf = hp(h, H_ACF);
  const bf = hp(h, H_BF);
  const th4 = hp(h, H_TH4);
  const s4 = hp(h, H_S4);
  const dr4 = hp(h, H_DR4);
  const q4 = hp(h, H_Q4);
  const kappa = f32x4.splat(useFb ? <f32>softplus(load<f64>(x + (<usize>hi(h, L_KBAR) << 3))) : 0);
  const w0 = f32x4.splat(useFb ? <f32>load<f64>(x + (<usize>hi(h, L_W0) << 3)) : 0);
  const one = f32x4.splat(1.0);
  const zero = f32x4.splat(0);
  for (let i = i0; i < i1; i++) {
    const io = load<i32>(itemOffsets + (<usize>i << 2));
    const K = load<i32>(itemOffsets + (<usize>(i + 1) << 2)) - io;
    const KK = <usize>(K * K);
    const base = <usize>load<i32>(sqB + (<usize>i << 2)) << 3;
    const S0 = hp(h, CV_S0) + base;
    const S1 = hp(h, CV_S1) + base;
    const S2 = hp(h, CV_S2) + base;
    const U1 = hp(h, CV_U1) + (<usize>io << 3);
    const U0 = hp(h, CV_U0) + (<usize>io << 3);
    memory.fill(S0, 0, KK << 3);
    memory.fill(S1, 0, KK << 3);
    memory.fill(S2, 0, KK << 3);
    memory.fill(U1, 0, <usize>K << 3);
    memory.fill(U0, 0, <usize>K << 3);
    memory.fill(sc + S4_SS, 0, (3 * KK) << 4);
    memory.fill(sc + S4_UU, 0, <usize>K << 5);
    let hh4 = zero;
    let gb4 = zero;
    let hh: f64 = 0;
    let gbi: f64 = 0;
    const acp = acf + (<usize>io << 3);
    const bi = useFb ? v128.load32_splat(bf + (<usize>i << 2)) : zero;
    let since = 0;
    const c0 = load<i32>(icolOff + (<usize>i << 2));
    const c1 = load<i32>(icolOff + (<usize>(i + 1) << 2));
    for (let cc = c0; cc < c1; cc++) {
      const col = load<i32>(icol + (<usize>cc << 2));
      const co = <usize>load<i32>(colOffsets + (<usize>col << 2));
      for (let g = 0; g < nG; g++) {
        if (load<u8>(maskB + <usize>g * <usize>C + <usize>col) == 0) continue;
        const th = v128.load(th4 + (<usize>g << 4));
        const s = v128.load(s4 + (<usize>g << 4));
        let G = zero;
        if (useFb) G = sigmoid4(f32x4.sub(w0, f32x4.mul(kappa, f32x4.sub(th, bi))));
        const omg = f32x4.sub(one, G);
        const os = f32x4.mul(omg, s);
        const dr = dr4 + (<usize>g * <usize>kMax << 5);
        const qp = q4 + ((<usize>g * <usize>width + co) << 4);
        cell4(K, colPos + co, acp, dr, qp, sc, th, useFb ? os : s, G);
        const Q = v128.load(sc + S4_Q);
        // Item block: w = (1 - G) s; M = Q (diag p - p p^T).
        const w2 = f32x4.mul(f32x4.mul(os, os), Q);
        const th2 = f32x4.mul(th, th);
        for (let k = 0; k < K; k++) {
          const wk = f32x4.mul(w2, v128.load(sc + S4_P + (<usize>k << 4)));
          const rowOff = sc + S4_SS + (<usize>(k * K) << 4);
          for (let l = k; l < K; l++) {
            let mkl = f32x4.neg(f32x4.mul(wk, v128.load(sc + S4_P + (<usize>l << 4))));
            if (l == k) mkl = f32x4.add(mkl, wk);
            const a = rowOff + (<usize>l << 4);
            acc4(a, mkl);
            acc4(a + (KK << 4), f32x4.mul(mkl, th));
            acc4(a + (KK << 5), f32x4.mul(mkl, th2));
          }
        }
        if (useFb) {
          // h_k = dv_k/db = (rho - s z_k) G (1 - G) kappa; (M h)_k = Q p_k (h_k - p.h).
          const gk = f32x4.mul(f32x4.mul(G, omg), kappa);
          let ph = zero;
          for (let k = 0; k < K; k++) {
            const ko = <usize>k << 4;
            const ps = <usize>load<i32>(sc + S4_POS + (<usize>k << 2));
            const hk = f32x4.mul(f32x4.sub(v128.load(dr + (ps << 5), 16), f32x4.mul(s, v128.load(sc + S4_Z + ko))), gk);
            v128.store(sc + S4_U + ko, hk);
            ph = f32x4.add(ph, f32x4.mul(v128.load(sc + S4_P + ko), hk));
          }
          const wq = f32x4.mul(os, Q);
          const wqt = f32x4.mul(wq, th);
          for (let k = 0; k < K; k++) {
            const ko = <usize>k << 4;
            const pk = v128.load(sc + S4_P + ko);
            const hk = v128.load(sc + S4_U + ko);
            gb4 = f32x4.add(gb4, f32x4.mul(f32x4.sub(f32x4.mul(Q, pk), v128.load(qp + ko)), hk));
            const mh = f32x4.mul(pk, f32x4.sub(hk, ph));
            const a = sc + S4_UU + (<usize>k << 5);
            acc4(a, f32x4.mul(wqt, mh));
            acc4(a + 16, f32x4.mul(wq, mh));
            hh4 = f32x4.add(hh4, f32x4.mul(f32x4.mul(Q, hk), mh));
          }
        }
        if (++since == FLUSH) {
          flushItem(sc, K, S0, S1, S2, U1, U0, useFb);
          hh += hsum64(hh4);
          gbi += hsum64(gb4);
          hh4 = zero;
          gb4 = zero;
          since = 0;
        }
      }
    }
    flushItem(sc, K, S0, S1, S2, U1, U0, useFb);
    store<f64>(hp(h, CV_HH) + (<usize>i << 3), hh + hsum64(hh4));
    store<f64>(hp(h, CV_GB) + (<usize>i << 3), gbi + hsum64(gb4));
  }
}
