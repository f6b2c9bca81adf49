import type { ResponseBank } from './bank.js';
import { computeDifficulties, itemDifficultyGrad } from './difficulty.js';
import { cholesky, cholSolve } from './internal/cholesky.js';
import type { BinaryLayout, LlmNrmLayout } from './layout.js';
import { llmParamIndices, sigmoid, softplus } from './layout.js';
import type { Objective, Priors } from './objective.js';
import { DEFAULT_PRIORS } from './objective.js';

/**
 * A block-diagonal Gauss-Newton (Fisher) approximation of the MAP objective's Hessian, used as
 * L-BFGS's initial inverse Hessian. IRT objectives are nearly block diagonal: given the LLMs, items
 * are independent, and given the items, LLMs are; each block (an item's 2K option parameters, an
 * LLM's theta, sharpness, bias and fallback logits, the two gate globals) has its own strongly
 * coupled, very differently scaled curvature that an identity or diagonal H0 cannot absorb. L-BFGS
 * then only has to learn the weaker item-LLM coupling.
 *
 * For softmax cross-entropy with logits v and target mass Q, d2L/dv2 = Q (diag p - p p^T) exactly;
 * GN drops the second derivatives of v in the parameters (and the gate's dependence on a, c
 * through b_i), which keeps every block positive semi-definite.
 */
export interface BlockPreconditioner {
  /** out = H^-1 v, block by block (0 where a parameter is fixed). */
  apply(v: Float64Array, out: Float64Array): void;
  /** Recompute the blocks at x (one pass over the data). */
  refresh(x: Float64Array): void;
}

/**
 * Largest move of any item parameter in one preconditioner application when the gate is on: the
 * gate makes the loss strongly non-quadratic in (a_i, c_i) (b_i swings, and G with it), so a full
 * block-Newton step on a weakly determined item can overshoot badly; measured on simulated fleets,
 * a cap of 0.25 halved the passes to convergence.
 */
export const ITEM_STEP_CAP = 0.25;

/**
 * Largest move of any per-LLM parameter in one application when the gate is on. A long step can
 * throw an LLM's theta deep into the region where its gate is open (G ~ 1): there the NRM part's
 * weight 1 - G vanishes, so does theta's gradient, and the LLM stays stuck in fallback mode (seen on
 * a simulated 189 x 2,000 fleet: one strong LLM ended at theta -6.2 instead of +2.4).
 */
export const LLM_STEP_CAP = 1;

/** Blocks: each is a list of parameter indices and a factorised dense matrix over them. */
class Blocks {
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

/** Block Gauss-Newton preconditioner for an objective built by `modelObjective`. */
export function blockPreconditioner(bank: ResponseBank, obj: Objective, priors: Priors = {}, yBinary?: Uint8Array): BlockPreconditioner {
  const layout = obj.layout;
  let blocks = new Blocks(layout.size);
  const refresh = (x: Float64Array): void => {
    blocks = layout.kind === 'llm-nrm' ? llmNrmBlocks(bank, layout, x, obj.free, priors) : binaryBlocks(bank, layout, x, obj.free, priors, yBinary!);
  };
  return { apply: (v, out) => blocks.apply(v, out), refresh };
}

function llmNrmBlocks(bank: ResponseBank, L: LlmNrmLayout, x: Float64Array, free: Uint8Array, priors: Priors): Blocks {
  const { itemSd, llmSd, sharpnessSd } = { ...DEFAULT_PRIORS, ...priors };
  const lamItem = 1 / (itemSd * itemSd);
  const lamLlm = 1 / (llmSd * llmSd);
  const lamS = 1 / (sharpnessSd * sharpnessSd);
  const J = L.nModels;
  const I = L.nItems;
  const Kmax = L.kMax;
  const P = 2 + 2 * Kmax;
  const { sharpness: useS, position: usePos, fallback: useFb } = L.parts;
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC]!;
  const { q, observed, colItem, colOffsets, itemOffsets, colPosition } = bank;
  const b = new Float64Array(I);
  const aux = new Float64Array(3 * I);
  const wts = new Float64Array(L.sumK);
  if (useFb) computeDifficulties(bank, x, L.a, L.c, b, aux, wts);
  // The gate's b_i depends on a_i, c_i: the Jacobian of v in the item block is A + h t^T, with
  // h_k = dv_k/db_i and t = db_i/d(a_i, c_i). Its GN block adds u t^T + t u^T + (h^T M h) t t^T,
  // u = A^T M h. Without it the GN step ignores that moving a_i can flip the gate.
  const U1 = new Float64Array(L.sumK);
  const U0 = new Float64Array(L.sumK);
  const HH = new Float64Array(I);
  // dL/db_i over all cells: the weight of b_i's own curvature in the item block's Hessian.
  const GB = new Float64Array(I);
  const w0 = x[L.w0]!;
  const kappa = useFb ? softplus(x[L.kbar]!) : 0;
  const dkappa = sigmoid(x[L.kbar]!);
  // Item accumulators: S_m = sum over cells of w^2 theta^m M (m = 0, 1, 2), K x K each.
  const sq = new Int32Array(I + 1);
  for (let i = 0; i < I; i++) {
    const K = itemOffsets[i + 1]! - itemOffsets[i]!;
    sq[i + 1] = sq[i]! + K * K;
  }
  const S0 = new Float64Array(sq[I]!);
  const S1 = new Float64Array(sq[I]!);
  const S2 = new Float64Array(sq[I]!);
  const Hg = new Float64Array(4); // globals (w0, kbar)
  const blocks = new Blocks(L.size);
  const p = new Float64Array(Kmax);
  const zd = new Float64Array(Kmax);
  const pos = new Int32Array(Kmax);
  const Jrow = new Float64Array(4 * Kmax); // per option: dtheta, dsbar, ddelta, drho
  const u = new Float64Array(P);
  const touched = new Int32Array(2 + 2 * Kmax);
  const HL = new Float64Array(P * P);
  for (let j = 0; j < J; j++) {
    HL.fill(0);
    const th = x[L.theta + j]!;
    const sb = x[L.sbar + j]!;
    const s = useS ? softplus(sb) : 1;
    const ds = sigmoid(sb);
    const dOff = L.delta + j * Kmax;
    const rOff = L.rho + j * Kmax;
    for (let col = 0; col < nC; col++) {
      if (observed[j * nC + col] === 0) continue;
      const i = colItem[col]!;
      const io = itemOffsets[i]!;
      const co = colOffsets[col]!;
      const K = colOffsets[col + 1]! - co;
      const qo = j * width + co;
      const G = useFb ? sigmoid(w0 - kappa * (th - b[i]!)) : 0;
      const omg = 1 - G;
      let m = -Infinity;
      let Q = 0;
      for (let k = 0; k < K; k++) {
        const ps = colPosition === null ? k : colPosition[co + k]!;
        pos[k] = ps;
        const z = x[L.a + io + k]! * th + x[L.c + io + k]! + (usePos ? x[dOff + ps]! : 0);
        zd[k] = z;
        const v = useFb ? omg * s * z + G * x[rOff + ps]! : s * z;
        p[k] = v;
        if (v > m) m = v;
        Q += q[qo + k]!;
      }
      let sum = 0;
      for (let k = 0; k < K; k++) {
        p[k] = Math.exp(p[k]! - m);
        sum += p[k]!;
      }
      for (let k = 0; k < K; k++) p[k]! /= sum;
      // Item block: w = (1 - G) s; M = Q (diag p - p p^T).
      const w2 = omg * s * omg * s * Q;
      const base = sq[i]!;
      const th2 = th * th;
      for (let k = 0; k < K; k++) {
        const pk = p[k]!;
        const wk = w2 * pk;
        for (let l = k; l < K; l++) {
          const mkl = (k === l ? wk : 0) - wk * p[l]!;
          const t = base + k * K + l;
          S0[t]! += mkl;
          S1[t]! += mkl * th;
          S2[t]! += mkl * th2;
        }
      }
      const gg = G * omg;
      if (useFb) {
        // h_k = dv_k/db = (rho - s z_k) G (1 - G) kappa; (M h)_k = Q p_k (h_k - p.h).
        let ph = 0;
        for (let k = 0; k < K; k++) ph += p[k]! * (x[rOff + pos[k]!]! - s * zd[k]!);
        ph *= gg * kappa;
        const wq = omg * s * Q;
        let hMh = 0;
        let rh = 0;
        for (let k = 0; k < K; k++) {
          const hk = (x[rOff + pos[k]!]! - s * zd[k]!) * gg * kappa;
          rh += (Q * p[k]! - q[qo + k]!) * hk;
          const mh = p[k]! * (hk - ph);
          U1[io + k]! += wq * th * mh;
          U0[io + k]! += wq * mh;
          hMh += Q * hk * mh;
        }
        HH[i]! += hMh;
        GB[i]! += rh;
      }
      // LLM block: sparse Jacobian rows J_k over (theta, sbar, delta_pos, rho_pos).
      u.fill(0);
      let ug0 = 0;
      let ug1 = 0;
      let gq0 = 0;
      let gq1 = 0;
      let gq01 = 0;
      for (let k = 0; k < K; k++) {
        const rho = useFb ? x[rOff + pos[k]!]! : 0;
        const dvdG = rho - s * zd[k]!;
        const jt = omg * s * x[L.a + io + k]! - dvdG * kappa * gg;
        const js = useS ? omg * zd[k]! * ds : 0;
        const jd = usePos ? omg * s : 0;
        const jr = useFb ? G : 0;
        Jrow[4 * k] = jt;
        Jrow[4 * k + 1] = js;
        Jrow[4 * k + 2] = jd;
        Jrow[4 * k + 3] = jr;
        const pk = p[k]!;
        u[0]! += pk * jt;
        u[1]! += pk * js;
        u[2 + pos[k]!]! += pk * jd;
        u[2 + Kmax + pos[k]!]! += pk * jr;
        // sum_k p_k J_k J_k^T over (theta, sbar, delta_pos, rho_pos), written out (hot loop).
        const i2 = 2 + pos[k]!;
        const i3 = 2 + Kmax + pos[k]!;
        const wq = pk * Q;
        HL[0]! += wq * jt * jt;
        HL[1]! += wq * jt * js;
        HL[P + 1]! += wq * js * js;
        HL[i2]! += wq * jt * jd;
        HL[P + i2]! += wq * js * jd;
        HL[i2 * P + i2]! += wq * jd * jd;
        HL[i3]! += wq * jt * jr;
        HL[P + i3]! += wq * js * jr;
        HL[i2 * P + i3]! += wq * jd * jr;
        HL[i3 * P + i3]! += wq * jr * jr;
        // Globals: dv/dw0 = dvdG G(1-G); dv/dkbar = -(theta - b) dvdG G(1-G) kappa'.
        if (useFb) {
          const jw = dvdG * gg;
          const jk = -(th - b[i]!) * dvdG * gg * dkappa;
          gq0 += pk * jw * jw;
          gq1 += pk * jk * jk;
          gq01 += pk * jw * jk;
          ug0 += pk * jw;
          ug1 += pk * jk;
        }
      }
      // - Q u u^T over the touched indices (upper triangle; mirrored after the LLM's cells).
      let nt = 2;
      touched[0] = 0;
      touched[1] = 1;
      for (let k = 0; k < K; k++) {
        touched[nt++] = 2 + pos[k]!;
        touched[nt++] = 2 + Kmax + pos[k]!;
      }
      for (let a = 0; a < nt; a++) {
        const r = touched[a]!;
        const ur = u[r]! * Q;
        if (ur === 0) continue;
        for (let bb = 0; bb < nt; bb++) {
          const c = touched[bb]!;
          if (c >= r) HL[r * P + c]! -= ur * u[c]!;
        }
      }
      if (useFb) {
        Hg[0]! += Q * (gq0 - ug0 * ug0);
        Hg[3]! += Q * (gq1 - ug1 * ug1);
        Hg[1]! += Q * (gq01 - ug0 * ug1);
        Hg[2]! += Q * (gq01 - ug0 * ug1);
      }
    }
    // Only the upper triangle was accumulated: mirror it.
    for (let r = 0; r < P; r++) for (let c = r + 1; c < P; c++) HL[c * P + r] = HL[r * P + c]!;
    // Prior curvature: theta 1; sharpness (GN of the log-normal prior); delta, rho lamLlm.
    HL[0]! += 1;
    HL[P + 1]! += lamS * (ds / s) * (ds / s);
    for (let r = 2; r < P; r++) HL[r * P + r]! += lamLlm;
    blocks.add(llmParamIndices(L, j), Float64Array.from(HL), free, 0, useFb ? LLM_STEP_CAP : Infinity);
  }
  for (let i = 0; i < I; i++) {
    const io = itemOffsets[i]!;
    const K = itemOffsets[i + 1]! - io;
    const P2 = 2 * K;
    const H = new Float64Array(P2 * P2);
    const base = sq[i]!;
    for (let k = 0; k < K; k++) {
      for (let l = 0; l < K; l++) {
        const t = base + (k <= l ? k * K + l : l * K + k); // upper triangle accumulated
        H[k * P2 + l] = S2[t]!; // a-a
        H[k * P2 + K + l] = S1[t]!; // a-c
        H[(K + k) * P2 + l] = S1[t]!; // c-a
        H[(K + k) * P2 + K + l] = S0[t]!; // c-c
      }
    }
    if (useFb) {
      const g = bank.key[i]!;
      const dN = aux[3 * i]!;
      const dD = aux[3 * i + 1]!;
      const abar = aux[3 * i + 2]!;
      const t = new Float64Array(P2);
      const uu = new Float64Array(P2);
      for (let k = 0; k < K; k++) {
        const wk = wts[io + k]!;
        t[k] = k === g ? dD : -dD * wk;
        t[K + k] = k === g ? -dN : dN * wk - dD * wk * (x[L.a + io + k]! - abar);
        uu[k] = U1[io + k]!;
        uu[K + k] = U0[io + k]!;
      }
      const hh = HH[i]!;
      for (let r = 0; r < P2; r++) {
        for (let c = 0; c < P2; c++) H[r * P2 + c]! += uu[r]! * t[c]! + t[r]! * uu[c]! + hh * t[r]! * t[c]!;
      }
      // + dL/db_i * Hessian of b_i (by differences of its analytic gradient; item-local, cheap).
      // This is the term GN drops; near D_i ~ 0 it dominates and can make the block indefinite,
      // which the Cholesky shift in Blocks.add then repairs.
      const gbi = GB[i]!;
      if (gbi !== 0) {
        const av = new Float64Array(K);
        const cv = new Float64Array(K);
        for (let k = 0; k < K; k++) {
          av[k] = x[L.a + io + k]!;
          cv[k] = x[L.c + io + k]!;
        }
        const g0 = new Float64Array(P2);
        const g1 = new Float64Array(P2);
        const wk = new Float64Array(K);
        itemDifficultyGrad(av, cv, K, g, g0, wk);
        const hstep = 1e-6;
        for (let p = 0; p < P2; p++) {
          const arr = p < K ? av : cv;
          const kk = p < K ? p : p - K;
          const old = arr[kk]!;
          arr[kk] = old + hstep;
          itemDifficultyGrad(av, cv, K, g, g1, wk);
          arr[kk] = old;
          for (let r = 0; r < P2; r++) {
            const hv = (gbi * (g1[r]! - g0[r]!)) / hstep;
            H[r * P2 + p]! += 0.5 * hv;
            H[p * P2 + r]! += 0.5 * hv;
          }
        }
      }
    }
    const ix: number[] = [];
    for (let k = 0; k < K; k++) ix.push(L.a + io + k);
    for (let k = 0; k < K; k++) ix.push(L.c + io + k);
    blocks.add(ix, H, free, lamItem, useFb ? ITEM_STEP_CAP : Infinity);
  }
  blocks.add([L.w0, L.kbar], Float64Array.from(Hg), free, 1e-6);
  return blocks;
}

function binaryBlocks(bank: ResponseBank, L: BinaryLayout, x: Float64Array, free: Uint8Array, priors: Priors, y: Uint8Array): Blocks {
  const { itemSd } = { ...DEFAULT_PRIORS, ...priors };
  const lamItem = 1 / (itemSd * itemSd);
  const J = L.nModels;
  const I = L.nItems;
  const nC = bank.colItem.length;
  const HI = new Float64Array(I * 16);
  const Ht = new Float64Array(J);
  const pl = L.pl;
  for (let j = 0; j < J; j++) {
    const th = x[L.theta + j]!;
    for (let col = 0; col < nC; col++) {
      if (y[j * nC + col] === 255) continue;
      const i = bank.colItem[col]!;
      const a = pl >= 2 ? x[L.slope + i]! : 1;
      const sg = sigmoid(a * th + x[L.intercept + i]!);
      const lo = pl >= 3 ? sigmoid(x[L.guess + i]!) : 0;
      const hi = pl >= 4 ? 1 - sigmoid(x[L.slip + i]!) : 1;
      const P = Math.min(1 - 1e-12, Math.max(1e-12, lo + (hi - lo) * sg));
      // Fisher information of a Bernoulli in P: (dP)^2 / (P (1 - P)).
      const fi = 1 / (P * (1 - P));
      const deta = (hi - lo) * sg * (1 - sg);
      const jv = [
        deta * th, // slope
        deta, // intercept
        pl >= 3 ? (1 - sg) * lo * (1 - lo) : 0,
        pl >= 4 ? -sg * (1 - hi) * hi : 0,
      ];
      for (let r = 0; r < 4; r++) for (let c = 0; c < 4; c++) HI[i * 16 + r * 4 + c]! += fi * jv[r]! * jv[c]!;
      Ht[j]! += fi * deta * a * deta * a;
    }
  }
  const blocks = new Blocks(L.size);
  for (let j = 0; j < J; j++) blocks.add([L.theta + j], Float64Array.of(Ht[j]! + 1), free, 0);
  for (let i = 0; i < I; i++) {
    blocks.add([L.slope + i, L.intercept + i, L.guess + i, L.slip + i], HI.slice(i * 16, i * 16 + 16), free, lamItem);
  }
  return blocks;
}
