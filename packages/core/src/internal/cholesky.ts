/** Dense Cholesky helpers for the small per-block systems of the preconditioner and the SEs. */

/** Cholesky factor (lower, row-major) of a symmetric matrix, adding diagonal jitter until PD. */
export function cholesky(H: Float64Array, P: number): Float64Array {
  return choleskyInto(H, P, new Float64Array(P * P));
}

/**
 * cholesky(H, P) written into `L` (P x P, zero above the diagonal on entry; the same bits): for
 * callers that factorise thousands of small blocks into views of one buffer (Blocks.add), where a
 * fresh Float64Array per block cost more than its factorisation.
 */
export function choleskyInto(H: Float64Array, P: number, L: Float64Array): Float64Array {
  let jitter = 0;
  let scale = 0;
  for (let r = 0; r < P; r++) scale = Math.max(scale, Math.abs(H[r * P + r]!));
  scale = scale || 1;
  for (;;) {
    // A failed try's entries are all rewritten before they are read (row i reads only entries of
    // rows <= i, columns < the one it writes), and nothing above the diagonal is written.
    let ok = true;
    for (let i = 0; i < P && ok; i++) {
      for (let j = 0; j <= i; j++) {
        let s = H[i * P + j]! + (i === j ? jitter : 0);
        for (let k = 0; k < j; k++) s -= L[i * P + k]! * L[j * P + k]!;
        if (i === j) {
          if (!(s > 0)) {
            ok = false;
            break;
          }
          L[i * P + i] = Math.sqrt(s);
        } else L[i * P + j] = s / L[j * P + j]!;
      }
    }
    if (ok) return L;
    // Indefinite (the b-curvature term) or singular: shift by a growing multiple of the scale.
    jitter = jitter === 0 ? 1e-6 * scale : jitter * 4;
  }
}

/** Solve (L L^T) y_new = y in place. */
export function cholSolve(L: Float64Array, P: number, y: Float64Array): void {
  for (let i = 0; i < P; i++) {
    let s = y[i]!;
    for (let k = 0; k < i; k++) s -= L[i * P + k]! * y[k]!;
    y[i] = s / L[i * P + i]!;
  }
  for (let i = P - 1; i >= 0; i--) {
    let s = y[i]!;
    for (let k = i + 1; k < P; k++) s -= L[k * P + i]! * y[k]!;
    y[i] = s / L[i * P + i]!;
  }
}
