// The LLM-NRM loss and gradient kernel (paper.md, eqs. for u_jik, G_ji, p_jik) in WebAssembly SIMD.
//
// Lanes are LLMs: one f32x4 holds the same option of the same column for four consecutive rows
// (a "group"), so every option count K, item and position permutation is shared by the lanes and
// the ragged data need no padding. The softmax, exp and log run in f32 lanes; the loss and every
// gradient that sums over cells is accumulated in f64 (per-LLM positional sums in f32 over at most
// FLUSH cells, then f64). No allocation, no globals written, no data segments: every pointer comes
// from the header that the host (src/internal/kernelHost.ts) lays out in the (possibly shared)
// memory, so any number of instances on one memory can run blocks concurrently.
//
// Header: i32 slots at `h` (the offsets H_* in header.ts, in 4-byte slots).

import { exp4, sigmoid4 } from './simd';
import { H_ACF, H_BF, H_BLOCK_GAC, H_BLOCK_GB, H_BLOCK_SCALARS, H_C, H_COL_ITEM, H_COL_OFFSETS, H_COL_POS, H_DR4, H_FLAGS, H_GDELTA, H_GRHO, H_GROUPS, H_GROUPS_PER_BLOCK, H_GS, H_GTH, H_ITEMS, H_ITEM_OFFSETS, H_KAPPA, H_KMAX, H_MASK, H_OUT_GAC, H_OUT_GB, H_OUT_SCALARS, H_Q4, H_RED_B0, H_RED_B1, H_RED_SLICES, H_ROW_END, H_ROW_START, H_S4, H_SCRATCH, H_SUMK, H_TH4, H_W0, H_WIDTH } from './header';

export { curvItems, curvRows, curvScratchBytes } from './curvature';
export { curv4ScratchBytes } from './curvature4';
export { applyBlocks } from './blockApply';

const USE_S: i32 = 1;
const USE_FB: i32 = 4;
/** Set by the host for a pass that writes the model's own p into the targets instead of summing the loss (the twin's). */
const PREDICT_TARGETS: i32 = 8;

/** Cells between flushes of the f32 positional-gradient sums into f64. */
const FLUSH: i32 = 32;

@inline function hi(h: usize, slot: i32): i32 {
  return load<i32>(h + (<usize>slot << 2));
}
@inline function hp(h: usize, slot: i32): usize {
  return <usize>load<u32>(h + (<usize>slot << 2));
}

// log(x) for normal x > 0 in f32 lanes (Cephes logf: x = m 2^e, sqrt(1/2) <= m < sqrt(2),
// log m by a degree-9 polynomial in m - 1; about 1 ulp). Here x is a softmax normaliser in [1, K].
@inline function log4(x: v128): v128 {
  const bits = x;
  let e = i32x4.sub(i32x4.shr_u(bits, 23), i32x4.splat(126));
  let m = v128.or(v128.and(bits, i32x4.splat(0x007fffff)), i32x4.splat(0x3f000000)); // [0.5, 1)
  const small = f32x4.lt(m, f32x4.splat(0.707106781186547524));
  // m < sqrt(1/2): use 2m - 1 and e - 1; else m - 1.
  e = i32x4.add(e, small); // small lanes are -1
  const mm = f32x4.sub(f32x4.add(m, v128.and(m, small)), f32x4.splat(1.0));
  m = mm;
  const ef = f32x4.convert_i32x4_s(e);
  const z = f32x4.mul(m, m);
  let y = f32x4.splat(7.0376836292e-2);
  y = f32x4.add(f32x4.mul(y, m), f32x4.splat(-1.1514610310e-1));
  y = f32x4.add(f32x4.mul(y, m), f32x4.splat(1.1676998740e-1));
  y = f32x4.add(f32x4.mul(y, m), f32x4.splat(-1.2420140846e-1));
  y = f32x4.add(f32x4.mul(y, m), f32x4.splat(1.4249322787e-1));
  y = f32x4.add(f32x4.mul(y, m), f32x4.splat(-1.6668057665e-1));
  y = f32x4.add(f32x4.mul(y, m), f32x4.splat(2.0000714765e-1));
  y = f32x4.add(f32x4.mul(y, m), f32x4.splat(-2.4999993993e-1));
  y = f32x4.add(f32x4.mul(y, m), f32x4.splat(3.3333331174e-1));
  y = f32x4.mul(f32x4.mul(y, m), z);
  y = f32x4.add(y, f32x4.mul(ef, f32x4.splat(-2.12194440e-4)));
  y = f32x4.sub(y, f32x4.mul(z, f32x4.splat(0.5)));
  return f32x4.add(f32x4.add(m, y), f32x4.mul(ef, f32x4.splat(0.693359375)));
}

// f64x2 of the four f32 lanes summed pairwise: (v0 + v2, v1 + v3).
@inline function wide2(v: v128): v128 {
  return f64x2.add(f64x2.promote_low_f32x4(v), f64x2.promote_low_f32x4(i32x4.shuffle(v, v, 2, 3, 2, 3)));
}

// Sum of the four lanes in f64, in a fixed order ((v0 + v2) + (v1 + v3)).
@inline function hsum64(v: v128): f64 {
  const w = wide2(v);
  return f64x2.extract_lane(w, 0) + f64x2.extract_lane(w, 1);
}

// Add the per-lane f32 positional sums into their f64 lane-major accumulators and clear them.
@inline function flushPositions(acc: usize, acc64: usize, kMax: i32): void {
  for (let p = 0; p < kMax; p++) {
    const a = acc + (<usize>p << 4);
    const a64 = acc64 + (<usize>p << 5);
    const v = v128.load(a);
    v128.store(a64, f64x2.add(v128.load(a64), f64x2.promote_low_f32x4(v)));
    v128.store(a64 + 16, f64x2.add(v128.load(a64 + 16), f64x2.promote_low_f32x4(i32x4.shuffle(v, v, 2, 3, 2, 3))));
    v128.store(a, f32x4.splat(0));
  }
}

/** Store the lanes of an f64x2 pair (lanes 0,1 in lo; 2,3 in hi) to 4 consecutive rows with `stride` bytes. */
@inline function storeRows(dst: usize, stride: usize, lo: v128, hiV: v128): void {
  store<f64>(dst, f64x2.extract_lane(lo, 0));
  store<f64>(dst + stride, f64x2.extract_lane(lo, 1));
  store<f64>(dst + 2 * stride, f64x2.extract_lane(hiV, 0));
  store<f64>(dst + 3 * stride, f64x2.extract_lane(hiV, 1));
}

// Per-block scratch, at fixed strides so that one base register reaches all of it (the K <= 20
// options of a cell: z, then e; the positional sums in f32, then in f64).
const MAXK: u32 = 20;
const S_Z: u32 = 0;
const S_E: u32 = MAXK * 16;
const S_SUM: u32 = 2 * MAXK * 16;
const S_Q: u32 = S_SUM + 16;
const S_QV: u32 = S_SUM + 32;
const S_GTH: u32 = S_SUM + 48;
const S_GS: u32 = S_SUM + 64;
const S_GG: u32 = S_SUM + 80;
const S_ACCD: u32 = S_SUM + 96;
const S_ACCR: u32 = S_ACCD + MAXK * 16;
const S_ACCD64: u32 = S_ACCR + MAXK * 16;
const S_ACCR64: u32 = S_ACCD64 + MAXK * 32;
/** Bytes of scratch per block (the host allocates SCRATCH_BYTES per block). */
const SCRATCH_BYTES: u32 = S_ACCR64 + MAXK * 32;

// The per-option loops of one cell, one variant with the fallback gate (Fb) and one without
// (Plain), so that neither has a branch on the part in its loop. (binaryen inlines them into
// their one caller; kept as functions they measured 18% more instructions, the calls and V8's
// per-call constants outweighing cleaner loops.)

// Forward: z = a theta + c + delta and v = (1 - G) s z + G rho per option into scratch; max_k v.
function forwardFb(K: i32, pp: usize, acp: usize, dr: usize, sc: usize, th: v128, os: v128, G: v128): v128 {
  let vmax = f32x4.splat(-Infinity);
  for (let k = 0; k < K; k++) {
    const ko = <usize>k << 4;
    const po = <usize>load<u8>(pp + <usize>k) << 5;
    const ak = acp + (<usize>k << 3);
    const z = f32x4.add(f32x4.add(f32x4.mul(v128.load32_splat(ak), th), v128.load32_splat(ak, 4)), v128.load(dr + po));
    const v = f32x4.add(f32x4.mul(os, z), f32x4.mul(G, v128.load(dr + po, 16)));
    v128.store(sc + ko, z, S_Z);
    v128.store(sc + ko, v, S_E);
    vmax = f32x4.pmax(vmax, v);
  }
  return vmax;
}

function forwardPlain(K: i32, pp: usize, acp: usize, dr: usize, sc: usize, th: v128, s: v128): v128 {
  let vmax = f32x4.splat(-Infinity);
  for (let k = 0; k < K; k++) {
    const ko = <usize>k << 4;
    const po = <usize>load<u8>(pp + <usize>k) << 5;
    const ak = acp + (<usize>k << 3);
    const z = f32x4.add(f32x4.add(f32x4.mul(v128.load32_splat(ak), th), v128.load32_splat(ak, 4)), v128.load(dr + po));
    const v = f32x4.mul(s, z);
    v128.store(sc + ko, z, S_Z);
    v128.store(sc + ko, v, S_E);
    vmax = f32x4.pmax(vmax, v);
  }
  return vmax;
}

// Softmax: e_k = exp(v_k - vmax) into scratch (over v); sum e, Q = sum q and sum q (v - vmax) into
// scratch S_SUM, S_Q, S_QV. q of lanes outside the row range reads as 0.
function softmax(K: i32, qp: usize, sc: usize, vmax: v128, laneMask: v128): void {
  let sum = f32x4.splat(0);
  let Q = f32x4.splat(0);
  let qv = f32x4.splat(0);
  for (let k = 0; k < K; k++) {
    const ko = <usize>k << 4;
    const d = f32x4.sub(v128.load(sc + ko, S_E), vmax);
    const e = exp4(d);
    sum = f32x4.add(sum, e);
    const qk = v128.and(v128.load(qp + ko), laneMask);
    Q = f32x4.add(Q, qk);
    qv = f32x4.add(qv, f32x4.mul(qk, d));
    v128.store(sc + ko, e, S_E);
  }
  v128.store(sc, sum, S_SUM);
  v128.store(sc, Q, S_Q);
  v128.store(sc, qv, S_QV);
}

// Backward: r_k = dL/dv_k = Q p_k - q_k (p_k = e_k / sum, inv = Q / sum), through
// v = (1 - G) s z + G rho and z = a theta + c + delta. Adds the item gradient (the sum over lanes
// of (rz theta, rz), as one f64x2) at gp and the positional sums in scratch; the per-lane sums
// for theta, sharpness and the gate go to scratch S_GTH, S_GS, S_GG.
function backwardFb(K: i32, pp: usize, qp: usize, acp: usize, gp: usize, dr: usize, sc: usize,
  th: v128, s: v128, omg: v128, G: v128, inv: v128, laneMask: v128): void {
  let gthc = f32x4.splat(0);
  let gsc = f32x4.splat(0);
  let gG = f32x4.splat(0);
  for (let k = 0; k < K; k++) {
    const ko = <usize>k << 4;
    const po = <usize>load<u8>(pp + <usize>k) << 5;
    const r = f32x4.sub(f32x4.mul(v128.load(sc + ko, S_E), inv), v128.and(v128.load(qp + ko), laneMask));
    const ru = f32x4.mul(omg, r); // dL/du_k
    const rz = f32x4.mul(ru, s); // dL/dz_k
    const z = v128.load(sc + ko, S_Z);
    gthc = f32x4.add(gthc, f32x4.mul(rz, v128.load32_splat(acp + (<usize>k << 3))));
    gsc = f32x4.add(gsc, f32x4.mul(ru, z));
    const A = f32x4.mul(rz, th);
    const t = f32x4.add(i32x4.shuffle(A, rz, 0, 1, 4, 5), i32x4.shuffle(A, rz, 2, 3, 6, 7));
    const u = f32x4.add(i32x4.shuffle(t, t, 0, 2, 0, 2), i32x4.shuffle(t, t, 1, 3, 1, 3));
    const gpk = gp + ko;
    v128.store(gpk, f64x2.add(v128.load(gpk), f64x2.promote_low_f32x4(u)));
    const pd = sc + (po >> 1);
    v128.store(pd, f32x4.add(v128.load(pd, S_ACCD), rz), S_ACCD);
    v128.store(pd, f32x4.add(v128.load(pd, S_ACCR), f32x4.mul(G, r)), S_ACCR);
    gG = f32x4.add(gG, f32x4.mul(r, f32x4.sub(v128.load(dr + po, 16), f32x4.mul(s, z))));
  }
  v128.store(sc, gthc, S_GTH);
  v128.store(sc, gsc, S_GS);
  v128.store(sc, gG, S_GG);
}

function backwardPlain(K: i32, pp: usize, qp: usize, acp: usize, gp: usize, sc: usize,
  th: v128, s: v128, inv: v128, laneMask: v128): void {
  let gthc = f32x4.splat(0);
  let gsc = f32x4.splat(0);
  for (let k = 0; k < K; k++) {
    const ko = <usize>k << 4;
    const po = <usize>load<u8>(pp + <usize>k) << 4;
    const r = f32x4.sub(f32x4.mul(v128.load(sc + ko, S_E), inv), v128.and(v128.load(qp + ko), laneMask));
    const rz = f32x4.mul(r, s);
    gthc = f32x4.add(gthc, f32x4.mul(rz, v128.load32_splat(acp + (<usize>k << 3))));
    gsc = f32x4.add(gsc, f32x4.mul(r, v128.load(sc + ko, S_Z)));
    const A = f32x4.mul(rz, th);
    const t = f32x4.add(i32x4.shuffle(A, rz, 0, 1, 4, 5), i32x4.shuffle(A, rz, 2, 3, 6, 7));
    const u = f32x4.add(i32x4.shuffle(t, t, 0, 2, 0, 2), i32x4.shuffle(t, t, 1, 3, 1, 3));
    const gpk = gp + ko;
    v128.store(gpk, f64x2.add(v128.load(gpk), f64x2.promote_low_f32x4(u)));
    const pd = sc + po;
    v128.store(pd, f32x4.add(v128.load(pd, S_ACCD), rz), S_ACCD);
  }
  v128.store(sc, gthc, S_GTH);
  v128.store(sc, gsc, S_GS);
  v128.store(sc, f32x4.splat(0), S_GG);
}

// The observed lanes of a cell (mask bit `lane`) as all-ones lanes.
@inline function observedLanes(bits: i32): v128 {
  return i32x4.ne(v128.and(i32x4.splat(bits), i32x4(1, 2, 4, 8)), i32x4.splat(0));
}

// The twin's targets (core's fit/twinBias.ts): p_k = e_k / sum e into the observed lanes of q; the
// other lanes keep theirs (0: an unobserved cell's q stays 0, so its mass Q stays 0).
function storeTargets(K: i32, qp: usize, sc: usize, lanes: v128): void {
  const sum = v128.load(sc, S_SUM);
  for (let k = 0; k < K; k++) {
    const ko = <usize>k << 4;
    v128.store(qp + ko, v128.bitselect(f32x4.div(v128.load(sc + ko, S_E), sum), v128.load(qp + ko), lanes));
  }
}

/**
 * One group of four rows over every column; adds into block `blk`'s partials (loss, sum of gate
 * gradients, item gradients) and writes the group's per-row gradients.
 */
function runGroup(h: usize, grp: i32, blk: i32): void {
  const rowStart = hi(h, H_ROW_START);
  const rowEnd = hi(h, H_ROW_END);
  const row0 = grp << 2;
  // Lanes of rows inside [rowStart, rowEnd): all ones; others zero (their q reads as 0).
  const rows = i32x4.add(i32x4.splat(row0), i32x4(0, 1, 2, 3));
  const laneMask = v128.and(i32x4.ge_s(rows, i32x4.splat(rowStart)), i32x4.lt_s(rows, i32x4.splat(rowEnd)));
  const laneBits = i32x4.bitmask(laneMask);
  const C = hi(h, H_C);
  const width = hi(h, H_WIDTH);
  const kMax = hi(h, H_KMAX);
  const flags = hi(h, H_FLAGS);
  const useS = (flags & USE_S) != 0;
  const useFb = (flags & USE_FB) != 0;
  const predict = (flags & PREDICT_TARGETS) != 0;
  const I = hi(h, H_ITEMS);
  const sumK = hi(h, H_SUMK);
  const q4 = hp(h, H_Q4) + (<usize>grp * <usize>width << 4);
  const mask = hp(h, H_MASK) + <usize>grp * <usize>C;
  const colItem = hp(h, H_COL_ITEM);
  const colOffsets = hp(h, H_COL_OFFSETS);
  const itemOffsets = hp(h, H_ITEM_OFFSETS);
  const colPos = hp(h, H_COL_POS);
  const acf = hp(h, H_ACF);
  const bf = hp(h, H_BF);
  const dr = hp(h, H_DR4) + (<usize>grp * <usize>kMax << 5);
  const gac = hp(h, H_BLOCK_GAC) + (<usize>blk * <usize>sumK << 4);
  const gbB = hp(h, H_BLOCK_GB) + (<usize>blk * <usize>I << 3);
  const scal = hp(h, H_BLOCK_SCALARS) + (<usize>blk << 5);
  const sc = hp(h, H_SCRATCH) + <usize>blk * SCRATCH_BYTES;
  memory.fill(sc + S_ACCD, 0, SCRATCH_BYTES - S_ACCD);

  const th = v128.load(hp(h, H_TH4) + (<usize>grp << 4));
  const s = v128.load(hp(h, H_S4) + (<usize>grp << 4));
  const w0 = f32x4.splat(load<f32>(h + (<usize>H_W0 << 2)));
  const kappa = f32x4.splat(load<f32>(h + (<usize>H_KAPPA << 2)));
  const one = f32x4.splat(1.0);

  let lossLo = f64x2.splat(0);
  let lossHi = f64x2.splat(0);
  let gthLo = f64x2.splat(0);
  let gthHi = f64x2.splat(0);
  let gsLo = f64x2.splat(0);
  let gsHi = f64x2.splat(0);
  let gk: f64 = 0;
  let sinceFlush = 0;

  for (let col = 0; col < C; col++) {
    if ((<i32>load<u8>(mask + <usize>col) & laneBits) == 0) continue;
    const i = load<i32>(colItem + (<usize>col << 2));
    const io = <usize>load<i32>(itemOffsets + (<usize>i << 2));
    const co = <usize>load<i32>(colOffsets + (<usize>col << 2));
    const K = load<i32>(colOffsets + (<usize>(col + 1) << 2)) - <i32>co;
    const qp = q4 + (co << 4);
    const pp = colPos + co;
    const acp = acf + (io << 3);
    const gp = gac + (io << 4);
    // Gate G_ji = sigmoid(w0 - kappa (theta_j - b_i)); v = (1 - G) s z + G rho.
    let G = f32x4.splat(0);
    let omg = one;
    let bi = f32x4.splat(0);
    if (useFb) {
      bi = v128.load32_splat(bf + (<usize>i << 2));
      G = sigmoid4(f32x4.sub(w0, f32x4.mul(kappa, f32x4.sub(th, bi))));
      omg = f32x4.sub(one, G);
    }
    const vmax = useFb ? forwardFb(K, pp, acp, dr, sc, th, f32x4.mul(omg, s), G) : forwardPlain(K, pp, acp, dr, sc, th, s);
    // Softmax over the options; loss Q log(sum e) - sum q (v - vmax), Q = sum q (1 for observed
    // lanes, 0 for missing or out-of-range ones, whose every contribution is then exactly 0).
    softmax(K, qp, sc, vmax, laneMask);
    if (predict) {
      storeTargets(K, qp, sc, observedLanes(<i32>load<u8>(mask + <usize>col) & laneBits));
      continue;
    }
    const sum = v128.load(sc, S_SUM);
    const Q = v128.load(sc, S_Q);
    const lossCell = f32x4.sub(f32x4.mul(Q, log4(sum)), v128.load(sc, S_QV));
    lossLo = f64x2.add(lossLo, f64x2.promote_low_f32x4(lossCell));
    lossHi = f64x2.add(lossHi, f64x2.promote_low_f32x4(i32x4.shuffle(lossCell, lossCell, 2, 3, 2, 3)));
    const inv = f32x4.div(Q, sum);
    if (useFb) backwardFb(K, pp, qp, acp, gp, dr, sc, th, s, omg, G, inv, laneMask);
    else backwardPlain(K, pp, qp, acp, gp, sc, th, s, inv, laneMask);
    let gthc = v128.load(sc, S_GTH);
    const gsc = v128.load(sc, S_GS);
    if (useFb) {
      // dL/d(eta), eta = w0 - kappa (theta - b): summed over lanes for b_i (and w0), per lane for theta.
      const geta = f32x4.mul(f32x4.mul(v128.load(sc, S_GG), G), omg);
      const gbp = gbB + (<usize>i << 3);
      store<f64>(gbp, load<f64>(gbp) + hsum64(geta));
      gk -= hsum64(f32x4.mul(geta, f32x4.sub(th, bi)));
      gthc = f32x4.sub(gthc, f32x4.mul(geta, kappa));
    }
    gthLo = f64x2.add(gthLo, f64x2.promote_low_f32x4(gthc));
    gthHi = f64x2.add(gthHi, f64x2.promote_low_f32x4(i32x4.shuffle(gthc, gthc, 2, 3, 2, 3)));
    if (useS) {
      gsLo = f64x2.add(gsLo, f64x2.promote_low_f32x4(gsc));
      gsHi = f64x2.add(gsHi, f64x2.promote_low_f32x4(i32x4.shuffle(gsc, gsc, 2, 3, 2, 3)));
    }
    if (++sinceFlush == FLUSH) {
      flushPositions(sc + S_ACCD, sc + S_ACCD64, kMax);
      if (useFb) flushPositions(sc + S_ACCR, sc + S_ACCR64, kMax);
      sinceFlush = 0;
    }
  }
  flushPositions(sc + S_ACCD, sc + S_ACCD64, kMax);
  if (useFb) flushPositions(sc + S_ACCR, sc + S_ACCR64, kMax);

  // Block partials: the loss of the group's lanes in a fixed order; the gate's kappa sum.
  const lw = f64x2.add(lossLo, lossHi);
  store<f64>(scal, load<f64>(scal) + (f64x2.extract_lane(lw, 0) + f64x2.extract_lane(lw, 1)));
  store<f64>(scal + 8, load<f64>(scal + 8) + gk);
  // Per-row gradients (each row belongs to one group only: written, not added).
  storeRows(hp(h, H_GTH) + (<usize>row0 << 3), 8, gthLo, gthHi);
  storeRows(hp(h, H_GS) + (<usize>row0 << 3), 8, gsLo, gsHi);
  const rowStride = <usize>kMax << 3;
  const gdB = hp(h, H_GDELTA) + (<usize>row0 * rowStride);
  const grB = hp(h, H_GRHO) + (<usize>row0 * rowStride);
  for (let p = 0; p < kMax; p++) {
    const a64 = sc + S_ACCD64 + (<usize>p << 5);
    storeRows(gdB + (<usize>p << 3), rowStride, v128.load(a64), v128.load(a64 + 16));
    const r64 = sc + S_ACCR64 + (<usize>p << 5);
    storeRows(grB + (<usize>p << 3), rowStride, v128.load(r64), v128.load(r64 + 16));
  }
}

/** Scratch bytes per block, for the host's layout. */
export function scratchBytes(): i32 {
  return <i32>SCRATCH_BYTES;
}

/**
 * Run block `blk` (groups blk * groupsPerBlock ...): clears its partials, then runs each group that
 * has a row in [rowStart, rowEnd). Blocks touch disjoint memory, so they may run concurrently.
 */
export function runBlock(h: usize, blk: i32): void {
  const G = hi(h, H_GROUPS);
  const gpb = hi(h, H_GROUPS_PER_BLOCK);
  const I = hi(h, H_ITEMS);
  const sumK = hi(h, H_SUMK);
  memory.fill(hp(h, H_BLOCK_GAC) + (<usize>blk * <usize>sumK << 4), 0, <usize>sumK << 4);
  memory.fill(hp(h, H_BLOCK_GB) + (<usize>blk * <usize>I << 3), 0, <usize>I << 3);
  memory.fill(hp(h, H_BLOCK_SCALARS) + (<usize>blk << 5), 0, 32);
  const rowStart = hi(h, H_ROW_START);
  const rowEnd = hi(h, H_ROW_END);
  const g0 = blk * gpb;
  const g1 = min(G, g0 + gpb);
  for (let g = g0; g < g1; g++) {
    if ((g << 2) + 4 <= rowStart || (g << 2) >= rowEnd) continue;
    runGroup(h, g, blk);
  }
}

/**
 * Sum the partials of blocks b0 .. b1-1 in block order (the same order for any thread count) into
 * the outputs, for entries [t0, t1) of the item gradient (pairs a, c) and, when t0 == 0, the
 * per-item gate sums and the scalars.
 */
export function reduce(h: usize, b0: i32, b1: i32, t0: i32, t1: i32): void {
  reduceGac(h, b0, b1, t0, t1);
  if (t0 == 0) reduceItems(h, b0, b1);
}

/**
 * Task `s` of the reduction cut into H_RED_SLICES + 1 tasks that may run concurrently (the pool's
 * REDUCE task): s < slices sums its share of the item gradient's entries, s == slices the per-item
 * gate sums and scalars; blocks [H_RED_B0, H_RED_B1). Each output entry is summed in
 * block order as by `reduce`, so the same bits. At paper scale the reduction reads 16 blocks x
 * 183,419 entries x 16 bytes (47 MB): about 7 ms of one thread.
 */
export function reduceSlice(h: usize, s: i32): void {
  const b0 = hi(h, H_RED_B0);
  const b1 = hi(h, H_RED_B1);
  const S = hi(h, H_RED_SLICES);
  if (s >= S) {
    reduceItems(h, b0, b1);
    return;
  }
  const sumK = <i64>hi(h, H_SUMK);
  reduceGac(h, b0, b1, <i32>((sumK * <i64>s) / <i64>S), <i32>((sumK * <i64>(s + 1)) / <i64>S));
}

@inline function reduceGac(h: usize, b0: i32, b1: i32, t0: i32, t1: i32): void {
  const sumK = hi(h, H_SUMK);
  const gac = hp(h, H_BLOCK_GAC);
  const out = hp(h, H_OUT_GAC);
  const stride = <usize>sumK << 4;
  for (let t = t0; t < t1; t++) {
    let acc = f64x2.splat(0);
    let p = gac + (<usize>b0 * stride) + (<usize>t << 4);
    for (let b = b0; b < b1; b++) {
      acc = f64x2.add(acc, v128.load(p));
      p += stride;
    }
    v128.store(out + (<usize>t << 4), acc);
  }
}

function reduceItems(h: usize, b0: i32, b1: i32): void {
  const I = hi(h, H_ITEMS);
  const gb = hp(h, H_BLOCK_GB);
  const outGb = hp(h, H_OUT_GB);
  const gstride = <usize>I << 3;
  for (let i = 0; i < I; i++) {
    let acc: f64 = 0;
    let p = gb + (<usize>b0 * gstride) + (<usize>i << 3);
    for (let b = b0; b < b1; b++) {
      acc += load<f64>(p);
      p += gstride;
    }
    store<f64>(outGb + (<usize>i << 3), acc);
  }
  const sc = hp(h, H_BLOCK_SCALARS);
  const outS = hp(h, H_OUT_SCALARS);
  let loss: f64 = 0;
  let gk: f64 = 0;
  for (let b = b0; b < b1; b++) {
    loss += load<f64>(sc + (<usize>b << 5));
    gk += load<f64>(sc + (<usize>b << 5) + 8);
  }
  store<f64>(outS, loss);
  store<f64>(outS + 8, gk);
}
