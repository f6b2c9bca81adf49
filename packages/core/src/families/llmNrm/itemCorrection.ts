/**
 * Scratch buffers of `itemCorrection`, grown on demand and reused across LLMs and calls: the
 * correction runs once per (LLM, item) pair (378,000 at 189 x 2,000), and per-pair allocations
 * (the earlier version's M, WM, m, Wv) made it 4.2 s of an 11.6 s fit, most of it garbage.
 */
let scratch = new Float64Array(0);
let rowBuf = new Int32Array(0);

function ensure(P: number, K: number): void {
  const need = K * K + 2 * P * K + 2 * K + 2 * P + 2 * K;
  if (scratch.length < need) scratch = new Float64Array(need);
  if (rowBuf.length < P) rowBuf = new Int32Array(P);
}

/**
 * sum over the LLM's items of B_i D_i^-1 B_i^T (P x P), B_i = [theta W_i, W_i] + E_i t_i^T; zeroes
 * the W, E columns it used. With M = theta^2 D_aa + theta (D_ac + D_ca) + D_cc, m = D^-1 t and
 * v = theta m_a + m_c: B D^-1 B^T = W M W^T + (W v) E^T + E (W v)^T + (t.m) E E^T.
 * With itemZ also bz += B Z (P x 2), Z = D^-1 G_i (the items' cross with the gate globals).
 *
 * Only the rows of B an item touched (theta, sbar and its displayed positions: 2 + 2K of P) are
 * gathered into a compact K x rows copy of W, so every product runs over contiguous memory; the
 * sums run in the same order as the direct formulas, so the result is the same to the last bit.
 */
export function itemCorrection(
  Wb: Float64Array,
  Eb: Float64Array,
  items: readonly number[],
  inv: Float64Array[],
  tItem: Float64Array[],
  itemOffsets: Int32Array,
  th: number,
  P: number,
  _sumK: number,
  _I: number,
  itemZ: Float64Array[] | undefined,
  bz: Float64Array | null,
): Float64Array {
  const C = new Float64Array(P * P);
  let Kmax = 0;
  for (const i of items) Kmax = Math.max(Kmax, itemOffsets[i + 1]! - itemOffsets[i]!);
  ensure(P, Kmax);
  const buf = scratch;
  const rows = rowBuf;
  // Offsets into the scratch buffer.
  const oM = 0; // K x K
  const oW = oM + Kmax * Kmax; // compact W: K x nr (row l: option l, column a: row rows[a])
  const oWM = oW + P * Kmax; // nr x K
  const oMv = oWM + P * Kmax; // 2K
  const oWv = oMv + 2 * Kmax; // nr
  const oE = oWv + P; // nr
  const oZ = oE + P; // K: theta Z_a + Z_c of one global
  const th2 = th * th;
  for (const i of items) {
    const io = itemOffsets[i]!;
    const K = itemOffsets[i + 1]! - io;
    const P2 = 2 * K;
    const D = inv[i]!;
    for (let l = 0; l < K; l++) {
      for (let m = 0; m < K; m++) {
        buf[oM + l * K + m] = th2 * D[l * P2 + m]! + th * (D[l * P2 + K + m]! + D[(K + l) * P2 + m]!) + D[(K + l) * P2 + K + m]!;
      }
    }
    // Only the rows this item touched (2 + 2K of P without rotations).
    let nr = 0;
    const eo = i * P;
    for (let r = 0; r < P; r++) {
      let nz = Eb[eo + r] !== 0;
      for (let l = 0; l < K && !nz; l++) nz = Wb[(io + l) * P + r] !== 0;
      if (nz) rows[nr++] = r;
    }
    // Gather W (and E) of those rows, zeroing the accumulators for the next LLM.
    for (let l = 0; l < K; l++) {
      const src = (io + l) * P;
      const dst = oW + l * nr;
      for (let a = 0; a < nr; a++) {
        const r = rows[a]!;
        buf[dst + a] = Wb[src + r]!;
        Wb[src + r] = 0;
      }
    }
    for (let a = 0; a < nr; a++) {
      const r = rows[a]!;
      buf[oE + a] = Eb[eo + r]!;
      Eb[eo + r] = 0;
    }
    // WM = W^T M (nr x K).
    for (let a = 0; a < nr; a++) {
      for (let m = 0; m < K; m++) {
        let acc = 0;
        for (let l = 0; l < K; l++) acc += buf[oW + l * nr + a]! * buf[oM + l * K + m]!;
        buf[oWM + a * K + m] = acc;
      }
    }
    // C += WM W (upper triangle: rows are ascending, so b >= a is c >= r).
    for (let a = 0; a < nr; a++) {
      const rP = rows[a]! * P;
      for (let b = a; b < nr; b++) {
        let acc = 0;
        for (let m = 0; m < K; m++) acc += buf[oWM + a * K + m]! * buf[oW + m * nr + b]!;
        C[rP + rows[b]!]! += acc;
      }
    }
    const t = tItem[i];
    if (t !== undefined) {
      let tm = 0;
      for (let a = 0; a < P2; a++) {
        let acc = 0;
        for (let b = 0; b < P2; b++) acc += D[a * P2 + b]! * t[b]!;
        buf[oMv + a] = acc;
        tm += t[a]! * acc;
      }
      for (let a = 0; a < nr; a++) {
        let acc = 0;
        for (let l = 0; l < K; l++) acc += buf[oW + l * nr + a]! * (th * buf[oMv + l]! + buf[oMv + K + l]!);
        buf[oWv + a] = acc;
      }
      for (let a = 0; a < nr; a++) {
        const rP = rows[a]! * P;
        const er = buf[oE + a]!;
        const wr = buf[oWv + a]!;
        for (let b = a; b < nr; b++) {
          const ec = buf[oE + b]!;
          C[rP + rows[b]!]! += wr * ec + er * buf[oWv + b]! + tm * er * ec;
        }
      }
    }
    if (bz !== null) {
      // B Z (P x 2), Z = D^-1 G_i: B = [theta W, W] + E t^T.
      const Z = itemZ![i]!;
      for (let g = 0; g < 2; g++) {
        let tz = 0;
        if (t !== undefined) for (let a = 0; a < P2; a++) tz += t[a]! * Z[2 * a + g]!;
        for (let l = 0; l < K; l++) buf[oZ + l] = th * Z[2 * l + g]! + Z[2 * (K + l) + g]!;
        for (let a = 0; a < nr; a++) {
          let acc = 0;
          for (let l = 0; l < K; l++) acc += buf[oW + l * nr + a]! * buf[oZ + l]!;
          bz[2 * rows[a]! + g]! += acc + buf[oE + a]! * tz;
        }
      }
    }
  }
  for (let r = 0; r < P; r++) for (let c = r + 1; c < P; c++) C[c * P + r] = C[r * P + c]!;
  return C;
}
