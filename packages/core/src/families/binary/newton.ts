import type { ResponseBank } from '../../bank.js';
import type { NewtonModel, NewtonPoint } from '../../fit/newton.js';
import { standardized } from '../../internal/standardized.js';
import { cholSolve } from '../../internal/cholesky.js';
import { sigmoid, type BinaryLayout } from '../../layout.js';
import { priorPrecisions, type Priors } from '../../objective.js';

/** How the fit pins theta's scale (fit.ts): standardised t, or a N(0, 1/thetaPrecision) prior. */
export interface BinaryNewtonOptions {
  standardize: boolean;
  /** Precision of the theta prior in the objective (0 under standardisation). */
  thetaPrecision: number;
}

/**
 * The full Newton model of the binary objective (families/binary/objective.ts) for fit/newton.ts's
 * damped Newton. The Hessian is an arrowhead: one block per item over its 1-4 parameters (slope,
 * intercept, guess and slip logits), a diagonal over the thetas (each cell holds one theta), and
 * the item-theta cross terms of the cells. `at` builds it in one pass over the cells (the observed
 * Hessian: 3PL and 4PL are not canonical links, and Fisher scoring crawled, 200 iterations still
 * 320 nats up on a 3PL CV fold); `step` eliminates the items, leaving the J x J Schur complement
 * S = H_tt - sum_i C_i D_i^-1 C_i^T (about items x J^2 x p / 2 flops), factors it densely, and
 * back-substitutes the items. Damping: H + lambda M, M the Fisher diagonal (the items' floored at
 * their prior precision).
 *
 * Under standardisation (fit.ts: theta = (t - mean t) / sd t) the objective is constant along t's
 * shift and scale, so the step is the Newton step on the manifold mean theta = 0, mean theta^2 = 1:
 * dtheta on its tangent space (orthogonal to 1 and theta), with the constraint's curvature
 * -mean(g theta) on theta's diagonal (the Lagrangian's Hessian), and x + d read back as t.
 */
export function binaryNewton(bank: ResponseBank, L: BinaryLayout, y: Uint8Array, priors: Priors, opts: BinaryNewtonOptions): NewtonModel {
  const lamItem = priorPrecisions(priors).item;
  const J = L.nModels;
  const I = L.nItems;
  const nC = bank.colItem.length;
  const colItem = bank.colItem;
  const pl = L.pl;
  // Active item parameters, in block order (slope, intercept, guess, slip), and their offsets.
  const active = [pl >= 2, true, pl >= 3, pl >= 4];
  const base = [L.slope, L.intercept, L.guess, L.slip];
  const centre = [1, 0, 0, 0];
  const act: number[] = [];
  for (let r = 0; r < 4; r++) if (active[r]) act.push(r);
  const p = act.length;

  // The (LLM, item) pairs with cells, grouped by item, LLMs ascending: entry e of item i is
  // entries [start[i], start[i + 1]); cellEntry maps an observed cell to its pair.
  const count = new Int32Array(I + 1);
  const stamp = new Int32Array(I).fill(-1);
  for (let j = 0; j < J; j++)
    for (let col = 0; col < nC; col++) {
      if (y[j * nC + col] === 255) continue;
      const i = colItem[col]!;
      if (stamp[i] !== j) {
        stamp[i] = j;
        count[i + 1]!++;
      }
    }
  const start = new Int32Array(I + 1);
  for (let i = 0; i < I; i++) start[i + 1] = start[i]! + count[i + 1]!;
  const E = start[I]!;
  const entryRow = new Int32Array(E);
  const fillAt = Int32Array.from(start.subarray(0, I));
  const cellEntry = new Int32Array(J * nC).fill(-1);
  stamp.fill(-1);
  const lastEntry = new Int32Array(I);
  for (let j = 0; j < J; j++)
    for (let col = 0; col < nC; col++) {
      if (y[j * nC + col] === 255) continue;
      const i = colItem[col]!;
      if (stamp[i] !== j) {
        stamp[i] = j;
        lastEntry[i] = fillAt[i]!++;
        entryRow[lastEntry[i]!] = j;
      }
      cellEntry[j * nC + col] = lastEntry[i]!;
    }

  /** Per-item sums of one pass: gradient (4), observed Hessian (4 x 4, lower triangle), Fisher diagonal (4). */
  interface ItemSums {
    g: Float64Array;
    h: Float64Array;
    m: Float64Array;
  }
  const pt: ItemSums = { g: new Float64Array(4 * I), h: new Float64Array(16 * I), m: new Float64Array(4 * I) };
  const gT = new Float64Array(J);
  const hT = new Float64Array(J);
  const mT = new Float64Array(J);
  const cross = new Float64Array(4 * E);
  const th = new Float64Array(J);
  // Per-item values at the pass's point.
  const A = new Float64Array(I);
  const Bt = new Float64Array(I);
  const LO = new Float64Array(I);
  const HIv = new Float64Array(I);

  function readItems(u: Float64Array): void {
    for (let i = 0; i < I; i++) {
      A[i] = pl >= 2 ? u[L.slope + i]! : 1;
      Bt[i] = u[L.intercept + i]!;
      LO[i] = pl >= 3 ? sigmoid(u[L.guess + i]!) : 0;
      HIv[i] = pl >= 4 ? 1 - sigmoid(u[L.slip + i]!) : 1;
    }
  }

  /**
   * One pass over the cells at thetas t and items u: the items' gradient (4 each), observed Hessian
   * (lower triangle of the 4 x 4 block) and Fisher diagonal; theta's gradient, Hessian and Fisher
   * diagonals; the cross terms (4 per entry). Priors included. Parameters a layout does not use
   * have zero derivatives, so only the used entries are summed.
   */
  function pass(t: Float64Array, u: Float64Array, sums: ItemSums): void {
    readItems(u);
    const { g: gU, h: hU, m: mU } = sums;
    gU.fill(0);
    hU.fill(0);
    mU.fill(0);
    gT.fill(0);
    hT.fill(0);
    mT.fill(0);
    cross.fill(0);
    const g3 = pl >= 3;
    const g4 = pl >= 4;
    const g2 = pl >= 2;
    for (let j = 0; j < J; j++) {
      const tj = t[j]!;
      let gt = 0;
      let htj = 0;
      let mtj = 0;
      const row = j * nC;
      for (let col = 0; col < nC; col++) {
        const yy = y[row + col]!;
        if (yy === 255) continue;
        const i = colItem[col]!;
        const a = A[i]!;
        const sg = sigmoid(a * tj + Bt[i]!);
        const lo = LO[i]!;
        const hi = HIv[i]!;
        const R = hi - lo;
        const P = lo + R * sg;
        // The kernel's clamp, so gradient and curvature are those of the loss it computes.
        const Pc = P < 1e-300 ? 1e-300 : P > 1 - 1e-16 ? 1 - 1e-16 : P;
        // Observed Hessian: D1^2 (dP)(dP)^T + D1 d2P, D1 = dL/dP; Fisher: (dP)^2 / (P (1 - P)).
        const D1 = yy === 1 ? -1 / Pc : 1 / (1 - Pc);
        const w2 = D1 * D1;
        const fi = 1 / (Pc * (1 - Pc));
        const s1 = sg * (1 - sg);
        const Rs1 = R * s1;
        const Rs2 = Rs1 * (1 - 2 * sg);
        // dP / (slope, intercept, guess, slip) and dP / dtheta.
        const v0 = Rs1 * tj;
        const v1 = Rs1;
        const dth = Rs1 * a;
        gt += D1 * dth;
        htj += w2 * dth * dth + D1 * Rs2 * a * a;
        mtj += fi * dth * dth;
        const i4 = 4 * i;
        const o = 16 * i;
        const e4 = 4 * cellEntry[row + col]!;
        gU[i4 + 1]! += D1 * v1;
        mU[i4 + 1]! += fi * v1 * v1;
        hU[o + 5]! += w2 * v1 * v1 + D1 * Rs2;
        cross[e4 + 1]! += w2 * dth * v1 + D1 * Rs2 * a;
        if (g2) {
          gU[i4]! += D1 * v0;
          mU[i4]! += fi * v0 * v0;
          hU[o]! += w2 * v0 * v0 + D1 * Rs2 * tj * tj;
          hU[o + 4]! += w2 * v1 * v0 + D1 * Rs2 * tj;
          cross[e4]! += w2 * dth * v0 + D1 * (Rs2 * tj * a + Rs1);
        }
        if (g3) {
          const gl = lo * (1 - lo);
          const v2 = (1 - sg) * gl;
          const s1gl = s1 * gl;
          gU[i4 + 2]! += D1 * v2;
          mU[i4 + 2]! += fi * v2 * v2;
          hU[o + 8]! += w2 * v2 * v0 - D1 * s1gl * tj;
          hU[o + 9]! += w2 * v2 * v1 - D1 * s1gl;
          hU[o + 10]! += w2 * v2 * v2 + D1 * v2 * (1 - 2 * lo);
          cross[e4 + 2]! += w2 * dth * v2 - D1 * s1gl * a;
          if (g4) {
            const sh = hi * (1 - hi);
            const v3 = -sg * sh;
            const s1sh = s1 * sh;
            gU[i4 + 3]! += D1 * v3;
            mU[i4 + 3]! += fi * v3 * v3;
            hU[o + 12]! += w2 * v3 * v0 - D1 * s1sh * tj;
            hU[o + 13]! += w2 * v3 * v1 - D1 * s1sh;
            hU[o + 14]! += w2 * v3 * v2;
            hU[o + 15]! += w2 * v3 * v3 - D1 * v3 * (1 - 2 * hi);
            cross[e4 + 3]! += w2 * dth * v3 - D1 * s1sh * a;
          }
        }
      }
      gT[j] = gt + opts.thetaPrecision * tj;
      hT[j] = htj + opts.thetaPrecision;
      mT[j] = mtj + opts.thetaPrecision;
    }
    // The items' ridge (slope centred on 1).
    for (let i = 0; i < I; i++)
      for (const r of act) {
        gU[4 * i + r]! += lamItem * (u[base[r]! + i]! - centre[r]!);
        hU[16 * i + 5 * r]! += lamItem;
        mU[4 * i + r]! += lamItem;
      }
  }

  const Lf = new Float64Array(16);

  /** Factor item i's block + shift * its Fisher diagonal into Lf (p x p); false if not definite. */
  function factorItem(sums: ItemSums, i: number, shift: number): boolean {
    for (let r = 0; r < p; r++)
      for (let c = 0; c <= r; c++)
        Lf[r * p + c] = sums.h[16 * i + 4 * act[r]! + act[c]!]! + (r === c ? shift * Math.max(sums.m[4 * i + act[r]!]!, lamItem) : 0);
    return choleskyInPlace(Lf, p);
  }

  // Per step: items' factors (p x p), D^-1 g (p), L^-1 c per entry (p), S, rhs.
  const LU = new Float64Array(p * p * I);
  const zU = new Float64Array(p * I);
  const W = new Float64Array(p * E);
  const chunk = new Float64Array(J * p * CHUNK_ITEMS);
  const S = new Float64Array(J * J);
  const rhs = new Float64Array(J);
  const dT = new Float64Array(J);
  const tmp = new Float64Array(p);
  const tNew = new Float64Array(J);

  function at(x0: Float64Array): NewtonPoint {
    const x = Float64Array.from(x0);
    const t0 = opts.standardize ? standardized(x, J) : x;
    for (let j = 0; j < J; j++) th[j] = t0[L.theta + j]!;
    for (let j = 0; j < J; j++) x[L.theta + j] = th[j]!;
    pass(th, x, pt);
    const { g: gU, m: mU } = pt;
    // Standardisation: the constraint's curvature on theta's diagonal.
    let mgy = 0;
    if (opts.standardize) for (let j = 0; j < J; j++) mgy += (gT[j]! * th[j]!) / J;
    let mScale = 0;
    for (let j = 0; j < J; j++) mScale += mT[j]! / J;
    const mFloor = 1e-9 * (mScale || 1);
    const S0 = new Float64Array(J * J);
    const rhs0 = new Float64Array(J);

    function step(lambda: number, xNew: Float64Array): { decrement: number; predicted: number } | null {
      // Items: factor D_i + lambda_i M_i (lambda_i grown until definite), z_i = that^-1 g_i.
      for (let i = 0; i < I; i++) {
        if (!factorItem(pt, i, lambda)) return null;
        LU.set(Lf.subarray(0, p * p), p * p * i);
        const z = zU.subarray(p * i, p * (i + 1));
        for (let r = 0; r < p; r++) z[r] = gU[4 * i + act[r]!]!;
        cholSolve(LU.subarray(p * p * i, p * p * (i + 1)), p, z);
      }
      // W_e = L_i^-1 c_e; rhs = -g_t + sum_i C_i z_i; S = diag(h_t - mgy + lambda m_t) - sum_i W_i W_i^T.
      for (let j = 0; j < J; j++) rhs0[j] = -gT[j]!;
      for (let i = 0; i < I; i++) {
        const Li = LU.subarray(p * p * i, p * p * (i + 1));
        const z = zU.subarray(p * i, p * (i + 1));
        for (let e = start[i]!; e < start[i + 1]!; e++) {
          let cz = 0;
          for (let r = 0; r < p; r++) {
            let s = cross[4 * e + act[r]!]!;
            cz += s * z[r]!;
            for (let k = 0; k < r; k++) s -= Li[r * p + k]! * W[p * e + k]!;
            W[p * e + r] = s / Li[r * p + r]!;
          }
          rhs0[entryRow[e]!]! += cz;
        }
      }
      S0.fill(0);
      for (let j = 0; j < J; j++) S0[j * J + j] = hT[j]! - mgy;
      schurUpdate(S0, W, entryRow, start, I, J, p, chunk);
      for (let j = 0; j < J; j++) for (let k = 0; k < j; k++) S0[k * J + j] = S0[j * J + k]!;
      S.set(S0);
      rhs.set(rhs0);
      for (let j = 0; j < J; j++) S[j * J + j]! += lambda * Math.max(mT[j]!, mFloor);
      if (opts.standardize) projectTangent(S, rhs, th, J);
      if (!choleskyInPlace(S, J)) return null;
      dT.set(rhs);
      cholSolve(S, J, dT);
      if (opts.standardize) {
        // Back onto the tangent space exactly (the solve leaves rounding along 1 and theta).
        let m1 = 0;
        let mv = 0;
        for (let j = 0; j < J; j++) {
          m1 += dT[j]! / J;
          mv += (dT[j]! * th[j]!) / J;
        }
        for (let j = 0; j < J; j++) dT[j] = dT[j]! - m1 - mv * th[j]!;
      }
      // Items to first order: du_i = -D_i^-1 (g_i + C_i^T dtheta).
      xNew.set(x);
      let gd = 0;
      let dMd = 0;
      for (let j = 0; j < J; j++) {
        tNew[j] = th[j]! + dT[j]!;
        gd += gT[j]! * dT[j]!;
        dMd += lambda * Math.max(mT[j]!, mFloor) * dT[j]! * dT[j]!;
      }
      for (let i = 0; i < I; i++) {
        for (let r = 0; r < p; r++) tmp[r] = gU[4 * i + act[r]!]!;
        for (let e = start[i]!; e < start[i + 1]!; e++) {
          const dj = dT[entryRow[e]!]!;
          for (let r = 0; r < p; r++) tmp[r]! += cross[4 * e + act[r]!]! * dj;
        }
        cholSolve(LU.subarray(p * p * i, p * p * (i + 1)), p, tmp);
        for (let r = 0; r < p; r++) {
          const du = -tmp[r]!;
          const k = base[act[r]!]! + i;
          xNew[k] = x[k]! + du;
          gd += gU[4 * i + act[r]!]! * du;
          dMd += lambda * Math.max(mU[4 * i + act[r]!]!, lamItem) * du * du;
        }
      }
      const decrement = -gd;
      // The model's decrease: -(g^T d + d^T H d / 2) with d^T H d = -g^T d - lambda d_t^T M d_t.
      const predicted = 0.5 * (decrement + dMd);
      const t1 = opts.standardize ? standardized(tNew, J) : tNew;
      for (let j = 0; j < J; j++) xNew[L.theta + j] = t1[j]!;
      return { decrement, predicted };
    }
    return { step };
  }
  return { at };
}

/** Items per dense block of the Schur update (J x p x CHUNK_ITEMS doubles: 6 MB at J = 189, p = 4). */
const CHUNK_ITEMS = 1024;

/**
 * S -= sum_i W_i W_i^T (lower triangle), W_i = item i's entries (p values per LLM that answered it):
 * the step's dominant cost. Items are laid out CHUNK_ITEMS at a time as a dense J x (p x items)
 * block (zeros where an LLM has no cell), and S -= block block^T in 2 x 4 register tiles, which
 * measured about 2x faster than the sparse per-item update (189 x 2,000, 80% of cells: 63 against
 * 129 CPU ms).
 */
function schurUpdate(S: Float64Array, W: Float64Array, rows: Int32Array, start: Int32Array, I: number, J: number, p: number, buf: Float64Array): void {
  for (let i0 = 0; i0 < I; i0 += CHUNK_ITEMS) {
    const i1 = Math.min(I, i0 + CHUNK_ITEMS);
    const n = p * (i1 - i0);
    buf.fill(0, 0, J * n);
    for (let i = i0; i < i1; i++) {
      const col = p * (i - i0);
      for (let e = start[i]!; e < start[i + 1]!; e++) {
        const o = rows[e]! * n + col;
        for (let r = 0; r < p; r++) buf[o + r] = W[p * e + r]!;
      }
    }
    for (let j = 0; j < J; j += 2) {
      const j1 = Math.min(j + 1, J - 1);
      const a0 = j * n;
      const a1 = j1 * n;
      for (let k = 0; k <= j1; k += 4) {
        const b0 = Math.min(k, J - 1) * n;
        const b1 = Math.min(k + 1, J - 1) * n;
        const b2 = Math.min(k + 2, J - 1) * n;
        const b3 = Math.min(k + 3, J - 1) * n;
        let s00 = 0;
        let s01 = 0;
        let s02 = 0;
        let s03 = 0;
        let s10 = 0;
        let s11 = 0;
        let s12 = 0;
        let s13 = 0;
        for (let c = 0; c < n; c++) {
          const x0 = buf[a0 + c]!;
          const x1 = buf[a1 + c]!;
          const y0 = buf[b0 + c]!;
          const y1 = buf[b1 + c]!;
          const y2 = buf[b2 + c]!;
          const y3 = buf[b3 + c]!;
          s00 += x0 * y0;
          s01 += x0 * y1;
          s02 += x0 * y2;
          s03 += x0 * y3;
          s10 += x1 * y0;
          s11 += x1 * y1;
          s12 += x1 * y2;
          s13 += x1 * y3;
        }
        const sub = (r: number, q: number, v: number): void => {
          if (q <= r && q < J) S[r * J + q]! -= v;
        };
        sub(j, k, s00);
        sub(j, k + 1, s01);
        sub(j, k + 2, s02);
        sub(j, k + 3, s03);
        if (j + 1 < J) {
          sub(j + 1, k, s10);
          sub(j + 1, k + 1, s11);
          sub(j + 1, k + 2, s12);
          sub(j + 1, k + 3, s13);
        }
      }
    }
  }
}

/**
 * S <- P S P + c (I - P), rhs <- P rhs, P = I - u u^T - v v^T (u = 1/sqrt(J), v = theta/sqrt(J)):
 * the system restricted to the tangent space, made definite along the two removed directions.
 */
function projectTangent(S: Float64Array, rhs: Float64Array, th: Float64Array, J: number): void {
  const u = 1 / Math.sqrt(J);
  const v = new Float64Array(J);
  for (let j = 0; j < J; j++) v[j] = th[j]! / Math.sqrt(J);
  const project = (w: Float64Array, off: number, stride: number): void => {
    let a = 0;
    let b = 0;
    for (let j = 0; j < J; j++) {
      a += w[off + j * stride]! * u;
      b += w[off + j * stride]! * v[j]!;
    }
    for (let j = 0; j < J; j++) w[off + j * stride] = w[off + j * stride]! - a * u - b * v[j]!;
  };
  let c = 0;
  for (let j = 0; j < J; j++) c += S[j * J + j]! / J;
  for (let r = 0; r < J; r++) project(S, r * J, 1);
  for (let col = 0; col < J; col++) project(S, col, J);
  for (let r = 0; r < J; r++) for (let k = 0; k < J; k++) S[r * J + k]! += c * (u * u + v[r]! * v[k]!);
  project(rhs, 0, 1);
}

/** Lower Cholesky factor of a symmetric positive definite matrix in place (its lower triangle); false if not definite. */
function choleskyInPlace(M: Float64Array, P: number): boolean {
  for (let i = 0; i < P; i++) {
    for (let j = 0; j <= i; j++) {
      let s = M[i * P + j]!;
      for (let k = 0; k < j; k++) s -= M[i * P + k]! * M[j * P + k]!;
      if (i === j) {
        if (!(s > 0)) return false;
        M[i * P + i] = Math.sqrt(s);
      } else M[i * P + j] = s / M[j * P + j]!;
    }
  }
  return true;
}
