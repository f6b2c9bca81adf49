// The block preconditioner's solves (core's internal/blocks.ts, Blocks.apply and applyPair) in f64
// on the pool's threads: out = H^-1 v block by block, each block with its packed Cholesky factor.
// Every block is the same operations in the same order as core's TypeScript (JavaScript and wasm
// f64 arithmetic are both IEEE double without fused multiply-adds), and blocks write disjoint
// entries of the outputs, so any split of the blocks over threads gives core's bits. At paper scale
// an L-BFGS iteration's pair of solves reads 31,744 blocks (20 MB of triangles) on the main thread
// between passes while the pool's workers wait.
//
// Its own memory (a second instance of the kernel module), laid out by the host
// (src/internal/blockApplyHost.ts): an i32 header of the BA_* slots at `h`, then the arrays.

/** Header slots (i32, 4 bytes each). */
const BA_TASKS: i32 = 0;
/** 1: two right-hand sides (applyPair), 0: one (apply). */
const BA_PAIR: i32 = 1;
const BA_MAXP: i32 = 2;
/** Per task: its first block (tasks + 1 entries). */
const BA_TASK_START: i32 = 3;
/** Per block: its first index (blocks + 1), its first triangle entry (blocks + 1). */
const BA_OFF: i32 = 4;
const BA_LO: i32 = 5;
const BA_IX: i32 = 6;
/** f64: per block the rows of L^T's upper triangle (core's `Bk`), per block its step cap (inf: none). */
const BA_BK: i32 = 7;
const BA_CAP: i32 = 8;
const BA_V1: i32 = 9;
const BA_V2: i32 = 10;
const BA_OUT1: i32 = 11;
const BA_OUT2: i32 = 12;
/** Per task: 2 maxP doubles of scratch (y, y2). */
const BA_SCRATCH: i32 = 13;

@inline function hi(h: usize, slot: i32): i32 {
  return load<i32>(h + (<usize>slot << 2));
}
@inline function hp(h: usize, slot: i32): usize {
  return <usize>load<u32>(h + (<usize>slot << 2));
}
@inline function ld(p: usize, i: i32): f64 {
  return load<f64>(p + (<usize>i << 3));
}
@inline function st(p: usize, i: i32, v: f64): void {
  store<f64>(p + (<usize>i << 3), v);
}
@inline function li(p: usize, i: i32): i32 {
  return load<i32>(p + (<usize>i << 2));
}

/** Blocks of task `task`: apply (BA_PAIR 0) or applyPair (1), as core's Blocks. */
export function applyBlocks(h: usize, task: i32): void {
  const starts = hp(h, BA_TASK_START);
  const b0 = li(starts, task);
  const b1 = li(starts, task + 1);
  const maxP = hi(h, BA_MAXP);
  const y = hp(h, BA_SCRATCH) + ((<usize>task * <usize>maxP) << 4);
  const y2 = y + (<usize>maxP << 3);
  if (hi(h, BA_PAIR) != 0) applyPairRange(h, b0, b1, y, y2);
  else applyRange(h, b0, b1, y);
}

function applyRange(h: usize, b0: i32, b1: i32, y: usize): void {
  const off = hp(h, BA_OFF);
  const lo = hp(h, BA_LO);
  const ix = hp(h, BA_IX);
  const Bk = hp(h, BA_BK);
  const caps = hp(h, BA_CAP);
  const v = hp(h, BA_V1);
  const out = hp(h, BA_OUT1);
  for (let b = b0; b < b1; b++) {
    const o = li(off, b);
    const P = li(off, b + 1) - o;
    for (let r = 0; r < P; r++) st(y, r, ld(v, li(ix, o + r)));
    // Forward by columns (Blocks.apply).
    let c = li(lo, b);
    for (let k = 0; k < P; k++) {
      const yk = ld(y, k) / ld(Bk, c);
      st(y, k, yk);
      for (let i = k + 1; i < P; i++) st(y, i, ld(y, i) - ld(Bk, c + i - k) * yk);
      c += P - k;
    }
    // Backward by rows.
    let r = li(lo, b + 1);
    for (let i = P - 1; i >= 0; i--) {
      r -= P - i;
      let s = ld(y, i);
      for (let k = i + 1; k < P; k++) s -= ld(Bk, r + k - i) * ld(y, k);
      st(y, i, s / ld(Bk, r));
    }
    let scale: f64 = 1;
    const cap = ld(caps, b);
    if (cap != Infinity) {
      let mx: f64 = 0;
      for (let t = 0; t < P; t++) mx = max(mx, abs(ld(y, t)));
      if (mx > cap) scale = cap / mx;
    }
    for (let t = 0; t < P; t++) st(out, li(ix, o + t), scale * ld(y, t));
  }
}

function applyPairRange(h: usize, b0: i32, b1: i32, y: usize, y2: usize): void {
  const off = hp(h, BA_OFF);
  const lo = hp(h, BA_LO);
  const ix = hp(h, BA_IX);
  const Bk = hp(h, BA_BK);
  const caps = hp(h, BA_CAP);
  const v1 = hp(h, BA_V1);
  const v2 = hp(h, BA_V2);
  const out1 = hp(h, BA_OUT1);
  const out2 = hp(h, BA_OUT2);
  for (let b = b0; b < b1; b++) {
    const o = li(off, b);
    const P = li(off, b + 1) - o;
    for (let r = 0; r < P; r++) {
      const at = li(ix, o + r);
      st(y, r, ld(v1, at));
      st(y2, r, ld(v2, at));
    }
    // Forward, two columns a step (Blocks.applyPair).
    let c = li(lo, b);
    let k = 0;
    for (; k + 1 < P; k += 2) {
      const d = ld(Bk, c);
      const a = ld(y, k) / d;
      const a2 = ld(y2, k) / d;
      st(y, k, a);
      st(y2, k, a2);
      const l1 = ld(Bk, c + 1);
      const c1 = c + P - k;
      const d1 = ld(Bk, c1);
      const e = (ld(y, k + 1) - l1 * a) / d1;
      const e2 = (ld(y2, k + 1) - l1 * a2) / d1;
      st(y, k + 1, e);
      st(y2, k + 1, e2);
      for (let i = k + 2; i < P; i++) {
        const la = ld(Bk, c + i - k);
        const lb = ld(Bk, c1 + i - k - 1);
        st(y, i, ld(y, i) - la * a - lb * e);
        st(y2, i, ld(y2, i) - la * a2 - lb * e2);
      }
      c = c1 + P - k - 1;
    }
    if (k < P) {
      const d = ld(Bk, c);
      st(y, k, ld(y, k) / d);
      st(y2, k, ld(y2, k) / d);
    }
    let r = li(lo, b + 1);
    for (let i = P - 1; i >= 0; i--) {
      r -= P - i;
      let s = ld(y, i);
      let s2 = ld(y2, i);
      for (let kk = i + 1; kk < P; kk++) {
        const l = ld(Bk, r + kk - i);
        s -= l * ld(y, kk);
        s2 -= l * ld(y2, kk);
      }
      st(y, i, s / ld(Bk, r));
      st(y2, i, s2 / ld(Bk, r));
    }
    let scale: f64 = 1;
    let scale2: f64 = 1;
    const cap = ld(caps, b);
    if (cap != Infinity) {
      let mx: f64 = 0;
      let mx2: f64 = 0;
      for (let t = 0; t < P; t++) {
        mx = max(mx, abs(ld(y, t)));
        mx2 = max(mx2, abs(ld(y2, t)));
      }
      if (mx > cap) scale = cap / mx;
      if (mx2 > cap) scale2 = cap / mx2;
    }
    for (let t = 0; t < P; t++) {
      const at = li(ix, o + t);
      st(out1, at, scale * ld(y, t));
      st(out2, at, scale2 * ld(y2, t));
    }
  }
}
