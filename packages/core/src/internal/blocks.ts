import { cholesky, cholSolve } from './cholesky.js';

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

  apply(v: Float64Array, out: Float64Array): void {
    out.fill(0);
    const tmp = new Float64Array(64);
    for (let b = 0; b < this.idx.length; b++) {
      const ix = this.idx[b]!;
      const P = ix.length;
      const L = this.chol[b]!;
      const y = P <= 64 ? tmp : new Float64Array(P);
      for (let r = 0; r < P; r++) y[r] = v[ix[r]!]!;
      cholSolve(L, P, y);
      // Trust region on blocks whose model is unreliable far out (items under the gate): scale the
      // block's step so no coordinate moves more than `cap`. Still a positive scaling of H^-1 v.
      let scale = 1;
      const cap = this.cap[b]!;
      if (cap !== Infinity) {
        let mx = 0;
        for (let r = 0; r < P; r++) mx = Math.max(mx, Math.abs(y[r]!));
        if (mx > cap) scale = cap / mx;
      }
      for (let r = 0; r < P; r++) out[ix[r]!] = scale * y[r]!;
    }
  }
}
