/** Dense Cholesky helpers for the small per-block systems of the preconditioner and the SEs. */

/** Cholesky factor (lower, row-major) of a symmetric matrix, adding diagonal jitter until PD. */
export function cholesky(H: Float64Array, P: number): Float64Array {
  return choleskyInto(H, P, new Float64Array(P * P));
}

/** cholesky(H, P) written into `L` (P x P, zero above the diagonal on entry; the same bits), e.g. views of one buffer. */
export function choleskyInto(H: Float64Array, P: number, L: Float64Array): Float64Array {
  let jitter = 0;
  let scale = 0;
  for (let r = 0; r < P; r++) scale = Math.max(scale, Math.abs(H[r * P + r]!));
  scale = scale || 1;
  for (;;) {
    // Rows i and i + 1 side by side: each L[i, j] is still one chain of subtractions in k = 0, 1, ...
    // (the row-by-row loop's bits), the two chains sharing each L[j, k] read. Only H's lower triangle
    // is read and nothing above L's diagonal written. Off the diagonal `+ 0` is kept from the
    // row-by-row loop's `H + (i === j ? jitter : 0)`: it turns a -0 entry into +0.
    let ok = true;
    let i = 0;
    for (; i + 1 < P; i += 2) {
      const ri = i * P;
      const ri1 = ri + P;
      for (let j = 0; j < i; j++) {
        const rj = j * P;
        let s = H[ri + j]! + 0;
        let s1 = H[ri1 + j]! + 0;
        for (let k = 0; k < j; k++) {
          const ljk = L[rj + k]!;
          s -= L[ri + k]! * ljk;
          s1 -= L[ri1 + k]! * ljk;
        }
        const d = L[rj + j]!;
        L[ri + j] = s / d;
        L[ri1 + j] = s1 / d;
      }
      let s = H[ri + i]! + jitter;
      let s1 = H[ri1 + i]! + 0;
      for (let k = 0; k < i; k++) {
        const lik = L[ri + k]!;
        s -= lik * lik;
        s1 -= L[ri1 + k]! * lik;
      }
      if (!(s > 0)) {
        ok = false;
        break;
      }
      const d = Math.sqrt(s);
      L[ri + i] = d;
      L[ri1 + i] = s1 / d;
      let s2 = H[ri1 + i + 1]! + jitter;
      for (let k = 0; k <= i; k++) s2 -= L[ri1 + k]! * L[ri1 + k]!;
      if (!(s2 > 0)) {
        ok = false;
        break;
      }
      L[ri1 + i + 1] = Math.sqrt(s2);
    }
    if (ok && i < P) {
      // The last row of an odd P on its own.
      const ri = i * P;
      for (let j = 0; j < i; j++) {
        const rj = j * P;
        let s = H[ri + j]! + 0;
        for (let k = 0; k < j; k++) s -= L[ri + k]! * L[rj + k]!;
        L[ri + j] = s / L[rj + j]!;
      }
      let s = H[ri + i]! + jitter;
      for (let k = 0; k < i; k++) s -= L[ri + k]! * L[ri + k]!;
      if (s > 0) L[ri + i] = Math.sqrt(s);
      else ok = false;
    }
    if (ok) return L;
    // Indefinite (the b-curvature term) or singular: shift by a growing multiple of the scale.
    jitter = jitter === 0 ? 1e-6 * scale : jitter * 4;
  }
}

/** Solve (L L^T) y_new = y in place (`from`: the first row where y may be nonzero). */
export function cholSolve(L: Float64Array, P: number, y: Float64Array, from = 0): void {
  // y's entries before `from` are 0: the forward solve leaves them +0 and their products would only
  // subtract zeros, so it starts there (the same bits).
  for (let i = from; i < P; i++) {
    let s = y[i]!;
    for (let k = from; k < i; k++) s -= L[i * P + k]! * y[k]!;
    y[i] = s / L[i * P + i]!;
  }
  for (let i = P - 1; i >= 0; i--) {
    let s = y[i]!;
    for (let k = i + 1; k < P; k++) s -= L[k * P + i]! * y[k]!;
    y[i] = s / L[i * P + i]!;
  }
}
