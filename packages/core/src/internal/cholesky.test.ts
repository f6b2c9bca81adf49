// choleskyInto against the row-by-row Cholesky it replaced, bit for bit: it computes two rows side
// by side, and each entry must still be the same chain of operations, jitter retries included, so
// that the preconditioner's blocks (and every fit's path) are unchanged.
import { describe, expect, it } from 'vitest';
import { randomSource } from '../simulate/random.js';
import { choleskyInto } from './cholesky.js';

/** The row-by-row loop choleskyInto had before (the reference bits). */
function rowByRow(H: Float64Array, P: number): Float64Array {
  const L = new Float64Array(P * P);
  let jitter = 0;
  let scale = 0;
  for (let r = 0; r < P; r++) scale = Math.max(scale, Math.abs(H[r * P + r]!));
  scale = scale || 1;
  for (;;) {
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
    jitter = jitter === 0 ? 1e-6 * scale : jitter * 4;
  }
}

describe('choleskyInto', () => {
  it('gives the row-by-row loop bits on definite, indefinite and -0 blocks of odd and even size', () => {
    const rng = randomSource(11);
    let indefinite = 0;
    for (let n = 0; n < 400; n++) {
      const P = 1 + (n % 21);
      const A = Float64Array.from({ length: P * P }, () => rng.uniform() - 0.5);
      const H = new Float64Array(P * P);
      for (let i = 0; i < P; i++) for (let j = 0; j < P; j++) for (let k = 0; k < P; k++) H[i * P + j]! += A[i * P + k]! * A[j * P + k]!;
      // Every third block shifted indefinite (the jitter's retries), every fifth with -0 and zero rows.
      if (n % 3 === 0) for (let r = 0; r < P; r++) H[r * P + r]! -= 0.6;
      if (n % 5 === 0 && P > 2) {
        H[P] = -0;
        H[1] = -0;
        for (let c = 0; c < P; c++) H[2 * P + c] = H[c * P + 2] = c === 2 ? 1 : 0;
      }
      const want = rowByRow(H, P);
      if (rowByRow(Float64Array.from(H), P)[0] !== Math.sqrt(H[0]!)) indefinite++;
      const got = choleskyInto(H, P, new Float64Array(P * P));
      for (let t = 0; t < P * P; t++) expect(Object.is(got[t], want[t]), `P ${P}, block ${n}, entry ${t}: ${got[t]} vs ${want[t]}`).toBe(true);
    }
    // The jitter path was taken (a shifted first pivot) on some blocks.
    expect(indefinite).toBeGreaterThan(10);
  });
});
