import { choleskyInto } from './cholesky.js';

/** Doubles per slab of factor storage (Blocks.add): 1 MiB. */
const SLAB = 1 << 17;

/** Runs a Blocks' solves elsewhere (an engine's threads), the bits of `apply` / `applyPair` on `packInto`'s factors. */
export interface BlockApplier {
  apply(v: Float64Array, out: Float64Array): void;
  applyPair(v1: Float64Array, out1: Float64Array, v2: Float64Array, out2: Float64Array): void;
}

/** Sizes of the packed factors (`Blocks.packedSizes`, for `packInto`'s arrays). */
export interface PackedSizes {
  blocks: number;
  /** Indices over all blocks (the length of `ix`). */
  indices: number;
  /** Triangle entries over all blocks (the length of `Bk`). */
  triangle: number;
  /** The largest block. */
  maxP: number;
}

/** Blocks: each is a list of parameter indices and a factorised dense matrix over them. */
export class Blocks {
  readonly idx: Int32Array[] = [];
  readonly chol: Float64Array[] = [];
  /** Per block: the largest |step| any coordinate may take in one application (Infinity = none). */
  readonly cap: number[] = [];

  // The factors and index lists are views of shared slabs (no typed array per block).
  private slab = new Float64Array(0);
  private slabUsed = 0;
  private ixSlab = new Int32Array(0);
  private ixUsed = 0;

  constructor(readonly size: number) {}

  /** A zeroed view of n doubles for a factor. */
  private factorView(n: number): Float64Array {
    if (this.slabUsed + n > this.slab.length) {
      this.slab = new Float64Array(Math.max(SLAB, n));
      this.slabUsed = 0;
    }
    const v = this.slab.subarray(this.slabUsed, this.slabUsed + n);
    this.slabUsed += n;
    return v;
  }

  private indexView(indices: ArrayLike<number>): Int32Array {
    const n = indices.length;
    if (this.ixUsed + n > this.ixSlab.length) {
      this.ixSlab = new Int32Array(Math.max(SLAB >> 1, n));
      this.ixUsed = 0;
    }
    const v = this.ixSlab.subarray(this.ixUsed, this.ixUsed + n);
    this.ixUsed += n;
    for (let t = 0; t < n; t++) v[t] = indices[t]!;
    return v;
  }

  /** Where set (`setApplier`), apply and applyPair run there; `add` drops it (the blocks changed). */
  private applier: BlockApplier | null = null;

  /** Factorise block H (P x P over `indices`, in place: fixed rows identity, the ridge added); reads only its lower triangle. */
  add(indices: ArrayLike<number>, H: Float64Array, free: Uint8Array, ridge: number, cap = Infinity): void {
    // A block with no free parameter (an item while scoring) is the identity on coordinates whose
    // gradient and steps are 0: left out, apply's zero fill gives the same (at 28,632 items, the
    // factorising of blocks nothing reads was a tenth of `score`).
    let anyFree = false;
    for (let r = 0; r < indices.length && !anyFree; r++) anyFree = free[indices[r]!] !== 0;
    if (!anyFree) return;
    this.applier = null;
    this.cap.push(cap);
    const P = indices.length;
    // Fixed parameters: identity rows, so the solve leaves their zero residual at zero.
    let maxDiag = 0;
    for (let r = 0; r < P; r++) maxDiag = Math.max(maxDiag, H[r * P + r]!);
    for (let r = 0; r < P; r++) {
      if (!free[indices[r]!]) {
        for (let c = 0; c < P; c++) {
          H[r * P + c] = 0;
          H[c * P + r] = 0;
        }
        H[r * P + r] = 1;
      } else {
        H[r * P + r]! += ridge + 1e-8 * maxDiag;
      }
    }
    const L = choleskyInto(H, P, this.factorView(P * P));
    this.idx.push(this.indexView(indices));
    this.chol.push(L);
  }

  /** The blocks packed for apply (built at its first call): per block L's columns (`Bk`), P (P + 1) / 2 entries. */
  private packed: { off: Int32Array; ix: Int32Array; Bk: Float64Array; lo: Int32Array; cap: Float64Array; y: Float64Array; y2: Float64Array } | null = null;

  private pack(): NonNullable<Blocks['packed']> {
    const sz = this.packedSizes();
    const B = sz.blocks;
    const off = new Int32Array(B + 1);
    const lo = new Int32Array(B + 1);
    const ix = new Int32Array(sz.indices);
    const Bk = new Float64Array(sz.triangle);
    const cap = new Float64Array(B);
    this.packInto(off, lo, ix, Bk, cap);
    this.packed = { off, ix, Bk, lo, cap, y: new Float64Array(sz.maxP), y2: new Float64Array(sz.maxP) };
    return this.packed;
  }

  /** The lengths of `packInto`'s arrays. */
  packedSizes(): PackedSizes {
    let indices = 0;
    let triangle = 0;
    let maxP = 0;
    for (const ix of this.idx) {
      const P = ix.length;
      indices += P;
      triangle += (P * (P + 1)) / 2;
      if (P > maxP) maxP = P;
    }
    return { blocks: this.idx.length, indices, triangle, maxP };
  }

  /** The factors as `apply` reads them (ix by off, the rows of L^T's upper triangle in Bk by lo, the caps) into the given arrays (packedSizes). */
  packInto(off: Int32Array, lo: Int32Array, ix: Int32Array, Bk: Float64Array, cap: Float64Array): void {
    const B = this.idx.length;
    off[0] = 0;
    lo[0] = 0;
    for (let b = 0; b < B; b++) {
      const P = this.idx[b]!.length;
      off[b + 1] = off[b]! + P;
      lo[b + 1] = lo[b]! + (P * (P + 1)) / 2;
      cap[b] = this.cap[b]!;
    }
    for (let b = 0; b < B; b++) {
      ix.set(this.idx[b]!, off[b]!);
      const C = this.chol[b]!;
      const P = off[b + 1]! - off[b]!;
      let q = lo[b]!;
      for (let i = 0; i < P; i++) for (let k = i; k < P; k++) Bk[q++] = C[k * P + i]!;
    }
  }

  /** Run apply and applyPair on `applier` (null: here again); `add` drops it. */
  setApplier(applier: BlockApplier | null): void {
    this.applier = applier;
  }

  /** out = H^-1 v block by block. */
  apply(v: Float64Array, out: Float64Array): void {
    if (this.applier !== null) {
      this.applier.apply(v, out);
      return;
    }
    out.fill(0);
    const pk = this.packed !== null && this.packed.off.length === this.idx.length + 1 ? this.packed : this.pack();
    const { off, ix, Bk, lo, cap: caps, y } = pk;
    // cholSolve's arithmetic per block (the same bits), on packed triangles.
    for (let b = 0; b < caps.length; b++) {
      const o = off[b]!;
      const P = off[b + 1]! - o;
      for (let r = 0; r < P; r++) y[r] = v[ix[o + r]!]!;
      // Forward, L y = v, by columns (column k of L is Bk[c .. c + P - k), the diagonal first): each y[i]
      // takes its terms off in the row-by-row order (the same bits), the column's updates independent.
      let c = lo[b]!;
      for (let k = 0; k < P; k++) {
        const yk = y[k]! / Bk[c]!;
        y[k] = yk;
        for (let i = k + 1; i < P; i++) y[i]! -= Bk[c + i - k]! * yk;
        c += P - k;
      }
      // Backward, L^T x = y, by rows: row i of L^T is Bk[r .. r + P - i), the diagonal first.
      let r = lo[b + 1]!;
      for (let i = P - 1; i >= 0; i--) {
        r -= P - i;
        let s = y[i]!;
        for (let k = i + 1; k < P; k++) s -= Bk[r + k - i]! * y[k]!;
        y[i] = s / Bk[r]!;
      }
      // Trust region (items under the gate): scale the block's step so no coordinate moves more than `cap`.
      let scale = 1;
      const cap = caps[b]!;
      if (cap !== Infinity) {
        let mx = 0;
        for (let t = 0; t < P; t++) mx = Math.max(mx, Math.abs(y[t]!));
        if (mx > cap) scale = cap / mx;
      }
      for (let t = 0; t < P; t++) out[ix[o + t]!] = scale * y[t]!;
    }
  }

  /** out1 = H^-1 v1 and out2 = H^-1 v2 in one sweep over the factors, each with `apply`'s operations in its order (the same bits). */
  applyPair(v1: Float64Array, out1: Float64Array, v2: Float64Array, out2: Float64Array): void {
    if (this.applier !== null) {
      this.applier.applyPair(v1, out1, v2, out2);
      return;
    }
    out1.fill(0);
    out2.fill(0);
    const pk = this.packed !== null && this.packed.off.length === this.idx.length + 1 ? this.packed : this.pack();
    const { off, ix, Bk, lo, cap: caps, y, y2 } = pk;
    for (let b = 0; b < caps.length; b++) {
      const o = off[b]!;
      const P = off[b + 1]! - o;
      for (let r = 0; r < P; r++) {
        y[r] = v1[ix[o + r]!]!;
        y2[r] = v2[ix[o + r]!]!;
      }
      // Forward by columns as in apply, two columns a step, each row's terms in apply's order (the same bits).
      let c = lo[b]!;
      let k = 0;
      for (; k + 1 < P; k += 2) {
        const d = Bk[c]!;
        const a = y[k]! / d;
        const a2 = y2[k]! / d;
        y[k] = a;
        y2[k] = a2;
        const l1 = Bk[c + 1]!;
        const c1 = c + P - k;
        const d1 = Bk[c1]!;
        const e = (y[k + 1]! - l1 * a) / d1;
        const e2 = (y2[k + 1]! - l1 * a2) / d1;
        y[k + 1] = e;
        y2[k + 1] = e2;
        for (let i = k + 2; i < P; i++) {
          const la = Bk[c + i - k]!;
          const lb = Bk[c1 + i - k - 1]!;
          y[i] = y[i]! - la * a - lb * e;
          y2[i] = y2[i]! - la * a2 - lb * e2;
        }
        c = c1 + P - k - 1;
      }
      if (k < P) {
        const d = Bk[c]!;
        y[k] = y[k]! / d;
        y2[k] = y2[k]! / d;
      }
      let r = lo[b + 1]!;
      for (let i = P - 1; i >= 0; i--) {
        r -= P - i;
        let s = y[i]!;
        let s2 = y2[i]!;
        for (let k = i + 1; k < P; k++) {
          const l = Bk[r + k - i]!;
          s -= l * y[k]!;
          s2 -= l * y2[k]!;
        }
        y[i] = s / Bk[r]!;
        y2[i] = s2 / Bk[r]!;
      }
      let scale = 1;
      let scale2 = 1;
      const cap = caps[b]!;
      if (cap !== Infinity) {
        let mx = 0;
        let mx2 = 0;
        for (let t = 0; t < P; t++) {
          mx = Math.max(mx, Math.abs(y[t]!));
          mx2 = Math.max(mx2, Math.abs(y2[t]!));
        }
        if (mx > cap) scale = cap / mx;
        if (mx2 > cap) scale2 = cap / mx2;
      }
      for (let t = 0; t < P; t++) {
        out1[ix[o + t]!] = scale * y[t]!;
        out2[ix[o + t]!] = scale2 * y2[t]!;
      }
    }
  }
}
