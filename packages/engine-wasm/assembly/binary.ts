// The binary IRT (1PL-4PL) loss and gradient kernel in WebAssembly, f64: the cell pass of core's
// `binaryObjective` (packages/core/src/model/binary/objective.ts; paper.md, baselines:
// P_ji = lo_i + (hi_i - lo_i) sigmoid(a_i theta_j + beta_i), L = -sum [y log P + (1 - y) log(1 - P)]).
//
// Two full passes (src/internal/binaryKernel.ts BinaryPass; rotated banks and row scopes take
// rowMajorPass):
// - rowMajorPass, scalar, core's bits: every operation is the same IEEE f64
//   operation in the same order (wasm rounds every f64 add, mul and div to nearest and never fuses
//   a multiply-add, as V8's JavaScript does not), and exp, log and log1p are JavaScript's own Math
//   functions, imported, so the transcendentals are the ieee754 routines the TypeScript kernel
//   calls. They are no faster than the TypeScript pass (bench/binary.js): those routines are most
//   of a cell's cost, called from wasm or from JS.
// - The phased pass (phaseZ, phaseP, phaseG, below; the engine's default), core's bits: the same
//   operations in stages over all cells, the host's Math loops between them.
// - itemMajorSimd: two cells per f64x2, its own exp and log (a few ulp), the item sums in two lanes,
//   the loss summed in lanes. Not core's bits (about 1e-14 relative): the engine's default only for
//   families that allow it (ModelFamily.fastKernel: 3PL, 4PL, with 4PL's tolerance stop bounded by
//   its SE distance, without which it stopped mid-crawl; BENCHMARKS.md, "Binary kernel, sixth session").
//
// The host (src/internal/binaryKernel.ts) lays everything out in the imported memory and writes the
// per-item values (a, beta, lo, range, sigmoid(guess), sigmoid(slip)) and the thetas before a pass;
// the header at `h` holds i32 byte offsets (slots below).

@external('Math', 'exp') declare function jsExp(x: f64): f64;
@external('Math', 'log') declare function jsLog(x: f64): f64;
@external('Math', 'log1p') declare function jsLog1p(x: f64): f64;

const H_J: i32 = 0;
const H_I: i32 = 1;
const H_PL: i32 = 2;
/** f64 per LLM: theta_j (in). */
const H_TH: i32 = 3;
/** f64 per item (in): a, beta, lo, range (= hi - lo), sigmoid(guess), sigmoid(slip). */
const H_A: i32 = 4;
const H_B: i32 = 5;
const H_LO: i32 = 6;
const H_RANGE: i32 = 7;
const H_SG: i32 = 8;
const H_SS: i32 = 9;
/** f64 per item (out): dL/da, dL/dbeta, dL/dguess, dL/dslip. */
const H_GA: i32 = 10;
const H_GB: i32 = 11;
const H_GLO: i32 = 12;
const H_GHI: i32 = 13;
/** f64 per LLM (out): dL/dtheta_j of the cells plus the theta prior's tp theta_j. */
const H_GTH: i32 = 14;
/** i32 per LLM + 1: the row-major cells of row j are [rowStart[j], rowStart[j + 1]). */
const H_ROW_START: i32 = 15;
/** i32 / u8 per row-major cell: its item, its y. */
const H_CELL_ITEM: i32 = 16;
const H_CELL_Y: i32 = 17;
/** i32 per item + 1: the item-major cells of item i are [colStart[i], colStart[i + 1]). */
const H_COL_START: i32 = 18;
/** Per item-major cell: its LLM (i32), its row-major position (i32), its y (u8). */
const H_CM_ROW: i32 = 19;
const H_CM_POS: i32 = 20;
const H_CM_Y: i32 = 21;
/** f64 per row-major cell: the cell's log-likelihood term (item-major pass scratch). */
const H_TERM: i32 = 22;
/** f64 per LLM: the item-major pass's theta sums (scratch). */
const H_GT: i32 = 23;

/** Per item-major cell, the phased pass's buffers (f64): z, exp(-|z|), sigmoid(z), clamped P, log term. */
const H_Z: i32 = 24;
const H_EZ: i32 = 25;
const H_SGB: i32 = 26;
const H_PC: i32 = 27;
const H_T: i32 = 28;
/** i32 per row-major cell: its item-major position (the inverse of cmPos). */
const H_RM_TO_CM: i32 = 29;

/** Header slots (the host reserves this many i32). */
export const HEADER_SLOTS: i32 = 32;

@inline function hi(h: usize, slot: i32): i32 {
  return load<i32>(h + (<usize>slot << 2));
}
@inline function hp(h: usize, slot: i32): usize {
  return <usize>load<u32>(h + (<usize>slot << 2));
}
@inline function f64At(base: usize, k: i32): f64 {
  return load<f64>(base + (<usize>k << 3));
}
@inline function setF64(base: usize, k: i32, v: f64): void {
  store<f64>(base + (<usize>k << 3), v);
}
@inline function i32At(base: usize, k: i32): i32 {
  return load<i32>(base + (<usize>k << 2));
}

/** sigmoid(z) as the TypeScript kernel writes it out: no overflow on either side. */
@inline function sigmoidOf(z: f64): f64 {
  if (z >= 0) return 1 / (1 + jsExp(-z));
  const ez = jsExp(z);
  return ez / (1 + ez);
}

/** The TypeScript kernel's clamp of P: keeps both logs finite at the edges (NaN passes through). */
@inline function clampP(P: f64): f64 {
  return P < 1e-300 ? 1e-300 : P > 1 - 1e-16 ? 1 - 1e-16 : P;
}

/**
 * The cell pass row by row over rows [r0, r1) (any bank; core's row loop): per row, its theta sum
 * over its cells in column order; the item sums accumulate row after row. Rows outside the range
 * keep their gTh. Returns the loss of the rows, theta priors included.
 */
export function rowMajorPass(h: usize, r0: i32, r1: i32, tp: f64): f64 {
  const I = hi(h, H_I);
  const pl = hi(h, H_PL);
  const pl4 = pl >= 4;
  const th = hp(h, H_TH);
  const pA = hp(h, H_A);
  const pB = hp(h, H_B);
  const pLo = hp(h, H_LO);
  const pRange = hp(h, H_RANGE);
  const pSg = hp(h, H_SG);
  const pSs = hp(h, H_SS);
  const gA = hp(h, H_GA);
  const gB = hp(h, H_GB);
  const gLo = hp(h, H_GLO);
  const gHi = hp(h, H_GHI);
  const gTh = hp(h, H_GTH);
  const rowStart = hp(h, H_ROW_START);
  const cellItem = hp(h, H_CELL_ITEM);
  const cellY = hp(h, H_CELL_Y);
  const itemBytes = <usize>I << 3;
  memory.fill(gA, 0, itemBytes);
  memory.fill(gB, 0, itemBytes);
  memory.fill(gLo, 0, itemBytes);
  memory.fill(gHi, 0, itemBytes);
  let loss: f64 = 0;
  for (let j = r0; j < r1; j++) {
    const t = f64At(th, j);
    let gth: f64 = 0;
    const e1 = i32At(rowStart, j + 1);
    if (pl <= 2) {
      // lo = 0 and range = 1 exactly: P = sg and deta = dP sg (1 - sg), the general form's values.
      for (let e = i32At(rowStart, j); e < e1; e++) {
        const i = i32At(cellItem, e);
        const a = f64At(pA, i);
        const sg = sigmoidOf(a * t + f64At(pB, i));
        const Pc = clampP(sg);
        let dP: f64;
        if (load<u8>(cellY + <usize>e) == 1) {
          loss -= jsLog(Pc);
          dP = -1 / Pc;
        } else {
          loss -= jsLog1p(-Pc);
          dP = 1 / (1 - Pc);
        }
        const deta = dP * sg * (1 - sg);
        gth += deta * a;
        setF64(gB, i, f64At(gB, i) + deta);
        setF64(gA, i, f64At(gA, i) + deta * t);
      }
    } else {
      for (let e = i32At(rowStart, j); e < e1; e++) {
        const i = i32At(cellItem, e);
        const a = f64At(pA, i);
        const sg = sigmoidOf(a * t + f64At(pB, i));
        const range = f64At(pRange, i);
        const Pc = clampP(f64At(pLo, i) + range * sg);
        let dP: f64;
        if (load<u8>(cellY + <usize>e) == 1) {
          loss -= jsLog(Pc);
          dP = -1 / Pc;
        } else {
          loss -= jsLog1p(-Pc);
          dP = 1 / (1 - Pc);
        }
        const deta = dP * range * sg * (1 - sg);
        gth += deta * a;
        setF64(gB, i, f64At(gB, i) + deta);
        setF64(gA, i, f64At(gA, i) + deta * t);
        const sl = f64At(pSg, i);
        setF64(gLo, i, f64At(gLo, i) + dP * (1 - sg) * sl * (1 - sl));
        if (pl4) {
          const ss = f64At(pSs, i);
          setF64(gHi, i, f64At(gHi, i) + -dP * sg * ss * (1 - ss));
        }
      }
    }
    loss += 0.5 * tp * t * t;
    setF64(gTh, j, gth + tp * t);
  }
  return loss;
}

// ---- The SIMD pass (f64x2, two cells of one item per vector). ----

/** ln 2 split: HI keeps 21 significant bits, so n * HI is exact for |n| < 2^31; LO = ln 2 - HI. */
const LN2_HI: f64 = 0.6931467056274414;
const LN2_LO: f64 = 4.7493250390316726e-7;
const INV_LN2: f64 = 1.4426950408889634;
/** 1.5 * 2^52: adding it rounds to an integer held in the low mantissa bits. */
const ROUND_MAGIC: f64 = 6755399441055744.0;
/** Bits of sqrt(1/2): log's reduction puts the mantissa in [sqrt(1/2), sqrt(2)). */
const SQRT_HALF_BITS: i64 = 0x3fe6a09e667f3bcd;

/**
 * exp(x) for x <= 0 in f64 lanes: x = n ln 2 + r with |r| <= ln 2 / 2, exp(r) by its Taylor
 * series to r^13 (remainder below 1e-17 relative), times 2^n built in the exponent bits. Below -708
 * (where 2^n would leave the normal range) the result is 0, as Math.exp's is, to the loss, within
 * the kernel's clamps.
 */
@inline function exp2x(x0: v128): v128 {
  const x = f64x2.max(x0, f64x2.splat(-708));
  const v = f64x2.add(f64x2.mul(x, f64x2.splat(INV_LN2)), f64x2.splat(ROUND_MAGIC));
  const n = f64x2.sub(v, f64x2.splat(ROUND_MAGIC));
  const r = f64x2.sub(f64x2.sub(x, f64x2.mul(n, f64x2.splat(LN2_HI))), f64x2.mul(n, f64x2.splat(LN2_LO)));
  let p = f64x2.splat(1.0 / 6227020800.0);
  p = f64x2.add(f64x2.mul(p, r), f64x2.splat(1.0 / 479001600.0));
  p = f64x2.add(f64x2.mul(p, r), f64x2.splat(1.0 / 39916800.0));
  p = f64x2.add(f64x2.mul(p, r), f64x2.splat(1.0 / 3628800.0));
  p = f64x2.add(f64x2.mul(p, r), f64x2.splat(1.0 / 362880.0));
  p = f64x2.add(f64x2.mul(p, r), f64x2.splat(1.0 / 40320.0));
  p = f64x2.add(f64x2.mul(p, r), f64x2.splat(1.0 / 5040.0));
  p = f64x2.add(f64x2.mul(p, r), f64x2.splat(1.0 / 720.0));
  p = f64x2.add(f64x2.mul(p, r), f64x2.splat(1.0 / 120.0));
  p = f64x2.add(f64x2.mul(p, r), f64x2.splat(1.0 / 24.0));
  p = f64x2.add(f64x2.mul(p, r), f64x2.splat(1.0 / 6.0));
  p = f64x2.add(f64x2.mul(p, r), f64x2.splat(0.5));
  p = f64x2.add(f64x2.mul(p, r), f64x2.splat(1.0));
  p = f64x2.add(f64x2.mul(p, r), f64x2.splat(1.0));
  // 2^n: the integer n sits in v's low bits (v's bits minus the magic's bits), moved to the exponent.
  const ni = i64x2.sub(v, i64x2.splat(reinterpret<i64>(ROUND_MAGIC)));
  const scale = i64x2.shl(i64x2.add(ni, i64x2.splat(1023)), 52);
  const e = f64x2.mul(p, scale);
  return v128.andnot(e, f64x2.lt(x0, f64x2.splat(-708)));
}

/**
 * log(v) for normal v > 0 in f64 lanes: v = m 2^k with m in [sqrt(1/2), sqrt(2)), and
 * log m = 2 atanh(s) = 2 s (1 + s^2/3 + s^4/5 + ...) with s = (m - 1) / (m + 1), |s| <= 0.172
 * (series to s^24: remainder below 1e-18), plus k ln 2 in two parts.
 */
@inline function log2x(v: v128): v128 {
  const k = i64x2.shr_s(i64x2.sub(v, i64x2.splat(SQRT_HALF_BITS)), 52);
  const m = i64x2.sub(v, i64x2.shl(k, 52));
  // k as f64: k + the magic's bits are the bits of (magic + k), exactly (|k| < 2^51).
  const kf = f64x2.sub(i64x2.add(k, i64x2.splat(reinterpret<i64>(ROUND_MAGIC))), f64x2.splat(ROUND_MAGIC));
  const f = f64x2.sub(m, f64x2.splat(1.0));
  const s = f64x2.div(f, f64x2.add(f, f64x2.splat(2.0)));
  const s2 = f64x2.mul(s, s);
  let p = f64x2.splat(1.0 / 25.0);
  p = f64x2.add(f64x2.mul(p, s2), f64x2.splat(1.0 / 23.0));
  p = f64x2.add(f64x2.mul(p, s2), f64x2.splat(1.0 / 21.0));
  p = f64x2.add(f64x2.mul(p, s2), f64x2.splat(1.0 / 19.0));
  p = f64x2.add(f64x2.mul(p, s2), f64x2.splat(1.0 / 17.0));
  p = f64x2.add(f64x2.mul(p, s2), f64x2.splat(1.0 / 15.0));
  p = f64x2.add(f64x2.mul(p, s2), f64x2.splat(1.0 / 13.0));
  p = f64x2.add(f64x2.mul(p, s2), f64x2.splat(1.0 / 11.0));
  p = f64x2.add(f64x2.mul(p, s2), f64x2.splat(1.0 / 9.0));
  p = f64x2.add(f64x2.mul(p, s2), f64x2.splat(1.0 / 7.0));
  p = f64x2.add(f64x2.mul(p, s2), f64x2.splat(1.0 / 5.0));
  p = f64x2.add(f64x2.mul(p, s2), f64x2.splat(1.0 / 3.0));
  // log m = 2 s + 2 s s2 p: the small part added to the large one last.
  const twoS = f64x2.add(s, s);
  const logm = f64x2.add(twoS, f64x2.mul(f64x2.mul(twoS, s2), p));
  return f64x2.add(f64x2.mul(kf, f64x2.splat(LN2_HI)), f64x2.add(f64x2.mul(kf, f64x2.splat(LN2_LO)), logm));
}

/**
 * The whole cell pass item by item, two cells per f64x2 (an odd item's last cell pairs with itself
 * at weight 0). Per cell the TypeScript pass's quantities: sg = sigmoid(z) from e = exp(-|z|),
 * P = lo + range sg clamped to [1e-300, 1 - 1e-16], the term log P (y = 1) or log(1 - P) (y = 0;
 * 1 - P is exact from P >= 1/2, and below its rounding error is 1e-16 absolute in the term),
 * dP = -1/P or 1/(1 - P). The item's sums are kept in two lanes and added at its end; the loss in two
 * lanes over the whole pass. Returns the loss of the cells plus each row's theta prior.
 */
export function itemMajorSimd(h: usize, tp: f64): f64 {
  const J = hi(h, H_J);
  const I = hi(h, H_I);
  const pl = hi(h, H_PL);
  const pl3 = pl >= 3;
  const pl4 = pl >= 4;
  const th = hp(h, H_TH);
  const pA = hp(h, H_A);
  const pB = hp(h, H_B);
  const pLo = hp(h, H_LO);
  const pRange = hp(h, H_RANGE);
  const pSg = hp(h, H_SG);
  const pSs = hp(h, H_SS);
  const gA = hp(h, H_GA);
  const gB = hp(h, H_GB);
  const gLo = hp(h, H_GLO);
  const gHi = hp(h, H_GHI);
  const gTh = hp(h, H_GTH);
  const colStart = hp(h, H_COL_START);
  const cmRow = hp(h, H_CM_ROW);
  const cmY = hp(h, H_CM_Y);
  const gT = hp(h, H_GT);
  memory.fill(gT, 0, <usize>J << 3);
  const one = f64x2.splat(1.0);
  const zero = f64x2.splat(0.0);
  const pMin = f64x2.splat(1e-300);
  const pMax = f64x2.splat(1 - 1e-16);
  const firstOnly = f64x2(1.0, 0.0);
  let lossV = zero;
  for (let i: i32 = 0; i < I; i++) {
    const a = f64At(pA, i);
    const av = f64x2.splat(a);
    const bv = f64x2.splat(f64At(pB, i));
    const lov = f64x2.splat(f64At(pLo, i));
    const rangev = f64x2.splat(f64At(pRange, i));
    const sl = f64At(pSg, i);
    const ss = f64At(pSs, i);
    const slv = f64x2.splat(sl * (1 - sl));
    const ssv = f64x2.splat(ss * (1 - ss));
    let gaV = zero;
    let gbV = zero;
    let gloV = zero;
    let ghiV = zero;
    const e1 = i32At(colStart, i + 1);
    for (let e = i32At(colStart, i); e < e1; e += 2) {
      const two = e + 1 < e1;
      const j0 = i32At(cmRow, e);
      const j1 = two ? i32At(cmRow, e + 1) : j0;
      const y0 = load<u8>(cmY + <usize>e);
      const y1 = two ? load<u8>(cmY + <usize>e + 1) : y0;
      const w = two ? one : firstOnly;
      const t = f64x2.replace_lane(f64x2.splat(f64At(th, j0)), 1, f64At(th, j1));
      const z = f64x2.add(f64x2.mul(av, t), bv);
      const ez = exp2x(f64x2.neg(f64x2.abs(z)));
      const sg = f64x2.div(v128.bitselect(one, ez, f64x2.ge(z, zero)), f64x2.add(one, ez));
      const Pc = f64x2.max(f64x2.min(f64x2.add(lov, f64x2.mul(rangev, sg)), pMax), pMin);
      const yMask = i64x2.replace_lane(i64x2.splat(y0 == 1 ? -1 : 0), 1, y1 == 1 ? -1 : 0);
      const arg = v128.bitselect(Pc, f64x2.sub(one, Pc), yMask);
      lossV = f64x2.add(lossV, f64x2.mul(w, log2x(arg)));
      const dPw = f64x2.div(f64x2.mul(v128.bitselect(f64x2.splat(-1.0), one, yMask), w), arg);
      const oneMinusSg = f64x2.sub(one, sg);
      const deta = f64x2.mul(f64x2.mul(f64x2.mul(dPw, rangev), sg), oneMinusSg);
      setF64(gT, j0, f64At(gT, j0) + f64x2.extract_lane(deta, 0) * a);
      if (two) setF64(gT, j1, f64At(gT, j1) + f64x2.extract_lane(deta, 1) * a);
      gbV = f64x2.add(gbV, deta);
      gaV = f64x2.add(gaV, f64x2.mul(deta, t));
      if (pl3) gloV = f64x2.add(gloV, f64x2.mul(f64x2.mul(dPw, oneMinusSg), slv));
      if (pl4) ghiV = f64x2.sub(ghiV, f64x2.mul(f64x2.mul(dPw, sg), ssv));
    }
    setF64(gA, i, f64x2.extract_lane(gaV, 0) + f64x2.extract_lane(gaV, 1));
    setF64(gB, i, f64x2.extract_lane(gbV, 0) + f64x2.extract_lane(gbV, 1));
    setF64(gLo, i, f64x2.extract_lane(gloV, 0) + f64x2.extract_lane(gloV, 1));
    setF64(gHi, i, f64x2.extract_lane(ghiV, 0) + f64x2.extract_lane(ghiV, 1));
  }
  let loss: f64 = -(f64x2.extract_lane(lossV, 0) + f64x2.extract_lane(lossV, 1));
  for (let j: i32 = 0; j < J; j++) {
    const t = f64At(th, j);
    loss += 0.5 * tp * t * t;
    setF64(gTh, j, f64At(gT, j) + tp * t);
  }
  return loss;
}

// ---- The phased pass: core's bits at a lower cost per cell. ----
//
// A scalar pass (core's loop, as rowMajorPass above) calls exp and then log (or log1p) once per
// cell from inside a loop whose every cell also waits on two divisions and two data-dependent branches. The phased pass runs the
// same operations over all cells at once, in stages: phaseZ (wasm) z = a theta + beta per cell;
// the host then fills exp(-|z|) with Math.exp over the buffer (the argument the TypeScript pass
// passes: -z for z >= 0, z below); phaseP (wasm) sigmoid and the clamped P; the host the log terms
// (Math.log(P) where y = 1, Math.log1p(-P) where y = 0); phaseG (wasm) the gradient sums, in the
// order of core's item-major pass, and the loss of the terms in row-major order. Every value is the
// one the TypeScript pass computes from the same operands with the same operations: the same bits.
// phaseP and phaseG take two cells per f64x2 for the per-cell arithmetic (each lane op is the
// scalar IEEE op) and add the lanes into the sums in cell order.

const ONE2: v128 = f64x2(1.0, 1.0);
const MINUS_ONE2: v128 = f64x2(-1.0, -1.0);
const ZERO2: v128 = f64x2(0.0, 0.0);
const P_MIN2: v128 = f64x2(1e-300, 1e-300);
const P_MAX2: v128 = f64x2(1 - 1e-16, 1 - 1e-16);

/** Phase 1: z = a_i theta_j + beta_i for every cell, item by item. */
export function phaseZ(h: usize): void {
  const I = hi(h, H_I);
  const th = hp(h, H_TH);
  const pA = hp(h, H_A);
  const pB = hp(h, H_B);
  const colStart = hp(h, H_COL_START);
  const cmRow = hp(h, H_CM_ROW);
  const Z = hp(h, H_Z);
  for (let i: i32 = 0; i < I; i++) {
    const a = f64At(pA, i);
    const b = f64At(pB, i);
    const e1 = i32At(colStart, i + 1);
    for (let e = i32At(colStart, i); e < e1; e++) setF64(Z, e, a * f64At(th, i32At(cmRow, e)) + b);
  }
}

/** Phase 2 (after the host's exp): sigmoid(z) = 1 / (1 + e) for z >= 0, e / (1 + e) below, and the clamped P. */
export function phaseP(h: usize): void {
  const I = hi(h, H_I);
  const pLo = hp(h, H_LO);
  const pRange = hp(h, H_RANGE);
  const colStart = hp(h, H_COL_START);
  const Z = hp(h, H_Z);
  const EZ = hp(h, H_EZ);
  const SGB = hp(h, H_SGB);
  const PC = hp(h, H_PC);
  for (let i: i32 = 0; i < I; i++) {
    const lo = f64At(pLo, i);
    const range = f64At(pRange, i);
    const e1 = i32At(colStart, i + 1);
    let e = i32At(colStart, i);
    // Two cells per f64x2: every lane op is the scalar IEEE op, so the same bits as the tail's.
    const lov = f64x2.splat(lo);
    const rangev = f64x2.splat(range);
    for (; e + 1 < e1; e += 2) {
      const ez = v128.load(EZ + (<usize>e << 3));
      const z = v128.load(Z + (<usize>e << 3));
      const sg = f64x2.div(v128.bitselect(ONE2, ez, f64x2.ge(z, ZERO2)), f64x2.add(ONE2, ez));
      const P = f64x2.add(lov, f64x2.mul(rangev, sg));
      // clampP's comparisons as masks (NaN passes through, as there).
      const Pc = v128.bitselect(P_MIN2, v128.bitselect(P_MAX2, P, f64x2.gt(P, P_MAX2)), f64x2.lt(P, P_MIN2));
      v128.store(SGB + (<usize>e << 3), sg);
      v128.store(PC + (<usize>e << 3), Pc);
    }
    for (; e < e1; e++) {
      const ez = f64At(EZ, e);
      // Both branches divide by 1 + e; only the numerator differs (a select, not a branch).
      const sg = select<f64>(1.0, ez, f64At(Z, e) >= 0) / (1 + ez);
      setF64(SGB, e, sg);
      setF64(PC, e, clampP(lo + range * sg));
    }
  }
}

/**
 * Phase 3 (after the host's logs): per item its four sums over its cells in LLM order, per LLM its
 * theta sum over the items ascending; then the loss: the terms in row-major order, each row
 * followed by its theta prior (core's item-major pass). Returns the loss of the rows.
 */
export function phaseG(h: usize, tp: f64): f64 {
  const J = hi(h, H_J);
  const I = hi(h, H_I);
  const pl = hi(h, H_PL);
  const pl3 = pl >= 3;
  const pl4 = pl >= 4;
  const th = hp(h, H_TH);
  const pA = hp(h, H_A);
  const pRange = hp(h, H_RANGE);
  const pSg = hp(h, H_SG);
  const pSs = hp(h, H_SS);
  const gA = hp(h, H_GA);
  const gB = hp(h, H_GB);
  const gLo = hp(h, H_GLO);
  const gHi = hp(h, H_GHI);
  const gTh = hp(h, H_GTH);
  const rowStart = hp(h, H_ROW_START);
  const colStart = hp(h, H_COL_START);
  const cmRow = hp(h, H_CM_ROW);
  const cmY = hp(h, H_CM_Y);
  const gT = hp(h, H_GT);
  const SGB = hp(h, H_SGB);
  const PC = hp(h, H_PC);
  const T = hp(h, H_T);
  const rmToCm = hp(h, H_RM_TO_CM);
  memory.fill(gT, 0, <usize>J << 3);
  for (let i: i32 = 0; i < I; i++) {
    const a = f64At(pA, i);
    const range = f64At(pRange, i);
    const sl = f64At(pSg, i);
    const ss = f64At(pSs, i);
    let ga: f64 = 0;
    let gb: f64 = 0;
    let glo: f64 = 0;
    let ghi: f64 = 0;
    const e1 = i32At(colStart, i + 1);
    let e = i32At(colStart, i);
    // Two cells per f64x2 for the per-cell products (lane ops are the scalar IEEE ops); the sums
    // then take lane 0 and lane 1 in cell order, as the scalar loop below does.
    const rangev = f64x2.splat(range);
    const slv = f64x2.splat(sl);
    const sl1v = f64x2.splat(1 - sl);
    const ssv = f64x2.splat(ss);
    const ss1v = f64x2.splat(1 - ss);
    for (; e + 1 < e1; e += 2) {
      const sg = v128.load(SGB + (<usize>e << 3));
      const Pc = v128.load(PC + (<usize>e << 3));
      const yMask = i64x2.replace_lane(i64x2.splat(load<u8>(cmY + <usize>e) == 1 ? -1 : 0), 1, load<u8>(cmY + <usize>e + 1) == 1 ? -1 : 0);
      const dP = f64x2.div(v128.bitselect(MINUS_ONE2, ONE2, yMask), v128.bitselect(Pc, f64x2.sub(ONE2, Pc), yMask));
      const oneMinusSg = f64x2.sub(ONE2, sg);
      const deta = f64x2.mul(f64x2.mul(f64x2.mul(dP, rangev), sg), oneMinusSg);
      const loT = f64x2.mul(f64x2.mul(f64x2.mul(dP, oneMinusSg), slv), sl1v);
      const hiT = f64x2.mul(f64x2.mul(f64x2.mul(f64x2.neg(dP), sg), ssv), ss1v);
      const j0 = i32At(cmRow, e);
      const j1 = i32At(cmRow, e + 1);
      const d0 = f64x2.extract_lane(deta, 0);
      const d1 = f64x2.extract_lane(deta, 1);
      setF64(gT, j0, f64At(gT, j0) + d0 * a);
      gb += d0;
      ga += d0 * f64At(th, j0);
      if (pl3) glo += f64x2.extract_lane(loT, 0);
      if (pl4) ghi += f64x2.extract_lane(hiT, 0);
      setF64(gT, j1, f64At(gT, j1) + d1 * a);
      gb += d1;
      ga += d1 * f64At(th, j1);
      if (pl3) glo += f64x2.extract_lane(loT, 1);
      if (pl4) ghi += f64x2.extract_lane(hiT, 1);
    }
    for (; e < e1; e++) {
      const j = i32At(cmRow, e);
      const sg = f64At(SGB, e);
      const Pc = f64At(PC, e);
      const y1 = load<u8>(cmY + <usize>e) == 1;
      // -1 / Pc or 1 / (1 - Pc): one division of selected operands.
      const dP = select<f64>(-1.0, 1.0, y1) / select<f64>(Pc, 1 - Pc, y1);
      const deta = dP * range * sg * (1 - sg);
      setF64(gT, j, f64At(gT, j) + deta * a);
      gb += deta;
      ga += deta * f64At(th, j);
      if (pl3) glo += dP * (1 - sg) * sl * (1 - sl);
      if (pl4) ghi += -dP * sg * ss * (1 - ss);
    }
    setF64(gA, i, ga);
    setF64(gB, i, gb);
    setF64(gLo, i, glo);
    setF64(gHi, i, ghi);
  }
  let loss: f64 = 0;
  for (let j: i32 = 0; j < J; j++) {
    const e1 = i32At(rowStart, j + 1);
    for (let e = i32At(rowStart, j); e < e1; e++) loss -= f64At(T, i32At(rmToCm, e));
    const t = f64At(th, j);
    loss += 0.5 * tp * t * t;
    setF64(gTh, j, f64At(gT, j) + tp * t);
  }
  return loss;
}
