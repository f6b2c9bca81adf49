import { cholesky } from './cholesky.js';

/** Blocks: each is a list of parameter indices and a factorised dense matrix over them. */
export class Blocks {
  readonly idx: Int32Array[] = [];
  readonly chol: Float64Array[] = [];
  /** Per block: the largest |step| any coordinate may take in one application (Infinity = none). */
  readonly cap: number[] = [];

  constructor(readonly size: number) {}

  add(indices: number[], H: Float64Array, free: Uint8Array, ridge: number, cap = Infinity): void {
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
    const L = cholesky(H, P);
    this.idx.push(Int32Array.from(indices));
    this.chol.push(L);
  }

  /** The blocks packed into flat arrays for apply (built at its first call; add after that rebuilds). */
  private packed: { off: Int32Array; ix: Int32Array; L: Float64Array; LT: Float64Array; lo: Int32Array; cap: Float64Array; y: Float64Array } | null = null;

  private pack(): NonNullable<Blocks['packed']> {
    const B = this.idx.length;
    const off = new Int32Array(B + 1);
    const lo = new Int32Array(B + 1);
    let maxP = 0;
    for (let b = 0; b < B; b++) {
      const P = this.idx[b]!.length;
      off[b + 1] = off[b]! + P;
      lo[b + 1] = lo[b]! + P * P;
      if (P > maxP) maxP = P;
    }
    const ix = new Int32Array(off[B]!);
    const L = new Float64Array(lo[B]!);
    const LT = new Float64Array(lo[B]!);
    for (let b = 0; b < B; b++) {
      ix.set(this.idx[b]!, off[b]!);
      const C = this.chol[b]!;
      const P = off[b + 1]! - off[b]!;
      L.set(C, lo[b]!);
      for (let r = 0; r < P; r++) for (let c = 0; c < P; c++) LT[lo[b]! + c * P + r] = C[r * P + c]!;
    }
    this.packed = { off, ix, L, LT, lo, cap: Float64Array.from(this.cap), y: new Float64Array(maxP) };
    return this.packed;
  }

  /** out = H^-1 v block by block. */
  apply(v: Float64Array, out: Float64Array): void {
    out.fill(0);
    const pk = this.packed !== null && this.packed.off.length === this.idx.length + 1 ? this.packed : this.pack();
    const { off, ix, L, LT, lo, cap: caps, y } = pk;
    // The same arithmetic as cholSolve per block, on flat factor arrays (L and its transpose, so
    // that both substitutions read rows): one call for all blocks.
    for (let b = 0; b < caps.length; b++) {
      const o = off[b]!;
      const P = off[b + 1]! - o;
      const l0 = lo[b]!;
      for (let r = 0; r < P; r++) y[r] = v[ix[o + r]!]!;
      for (let i = 0; i < P; i++) {
        let s = y[i]!;
        const row = l0 + i * P;
        for (let k = 0; k < i; k++) s -= L[row + k]! * y[k]!;
        y[i] = s / L[row + i]!;
      }
      for (let i = P - 1; i >= 0; i--) {
        let s = y[i]!;
        const row = l0 + i * P;
        for (let k = i + 1; k < P; k++) s -= LT[row + k]! * y[k]!;
        y[i] = s / LT[row + i]!;
      }
      // Trust region on blocks whose model is unreliable far out (items under the gate): scale the
      // block's step so no coordinate moves more than `cap`. Still a positive scaling of H^-1 v.
      let scale = 1;
      const cap = caps[b]!;
      if (cap !== Infinity) {
        let mx = 0;
        for (let r = 0; r < P; r++) mx = Math.max(mx, Math.abs(y[r]!));
        if (mx > cap) scale = cap / mx;
      }
      for (let r = 0; r < P; r++) out[ix[o + r]!] = scale * y[r]!;
    }
  }
}
