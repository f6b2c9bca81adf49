import type { ResponseBank } from '../../data/bank.js';
import { computeDifficulties } from '../difficulty.js';
import { sigmoid, softmaxInPlace, softplus, type LlmNrmLayout } from '../layout.js';
import type { Predictor } from '../family.js';

/**
 * The forward model of LLM-NRM/NRM (paper.md, eq. for p_jik), written once: p = softmax(v) with
 *   v_k = (1 - G) s (a_k theta + c_k + delta_k) + G rho_k,  G = sigmoid(w0 - kappa (theta - b_i)),
 * and, for information about theta (analysis' llmInformation),
 *   dv_k/dtheta = (1 - G) s a_k - kappa G (1 - G) (rho_k - s z_k)    (dG/dtheta = -kappa G (1 - G)).
 * `difficulties`: the gate's b_i when already computed (`itemDifficulties`); computed here otherwise.
 */
export function llmNrmPredictor(bank: ResponseBank, layout: LlmNrmLayout, x: Float64Array, difficulties?: Float64Array): Predictor {
  const I = bank.items.length;
  const { sharpness: useS, position: usePos, fallback: useFb } = layout.parts;
  let b: Float64Array = new Float64Array(I);
  if (useFb) {
    if (difficulties !== undefined) b = difficulties;
    else computeDifficulties(bank, x, layout.a, layout.c, b, new Float64Array(3 * I), new Float64Array(layout.sumK));
  }
  const kappa = softplus(x[layout.kbar]!);
  const w0 = x[layout.w0]!;
  // s_j = softplus(sbar_j) of the last row asked for, recomputed when the row or its sbar changes
  // (callers walk a row's cells in turn: the SEs' dispersion asks three predictors for every cell).
  let sRow = -1;
  let sIn = NaN;
  let sOut = 1;
  const rowS = (j: number): number => {
    const sb = x[layout.sbar + j]!;
    if (j !== sRow || sb !== sIn) {
      sRow = j;
      sIn = sb;
      sOut = softplus(sb);
    }
    return sOut;
  };
  // The bank's arrays and the layout's offsets read once: the scorers call this for every cell of
  // thousands of evaluations a run.
  const { colItem, itemOffsets, colOffsets, colPosition } = bank;
  const { a: aOff, c: cOff, theta: thOff, delta: dBase, rho: rBase, kMax } = layout;
  const logits = (j: number, col: number, v: Float64Array, dv?: Float64Array, theta?: number): void => {
    const i = colItem[col]!;
    const io = itemOffsets[i]!;
    const co = colOffsets[col]!;
    const K = colOffsets[col + 1]! - co;
    const th = theta === undefined ? x[thOff + j]! : theta;
    const s = useS ? rowS(j) : 1;
    const G = useFb ? sigmoid(w0 - kappa * (th - b[i]!)) : 0;
    const dG = -kappa * G * (1 - G);
    const os = (1 - G) * s;
    const dOff = dBase + j * kMax;
    const rOff = rBase + j * kMax;
    for (let k = 0; k < K; k++) {
      const p = colPosition === null ? k : colPosition[co + k]!;
      const a = x[aOff + io + k]!;
      const z = a * th + x[cOff + io + k]! + (usePos ? x[dOff + p]! : 0);
      const rho = useFb ? x[rOff + p]! : 0;
      v[k] = os * z + G * rho;
      if (dv !== undefined) dv[k] = os * a + dG * (rho - s * z);
    }
  };
  const cell = (j: number, col: number, out: Float64Array): void => {
    logits(j, col, out);
    softmaxInPlace(out, bank.colOffsets[col + 1]! - bank.colOffsets[col]!);
  };
  // dv_k along w, from v_k = (1 - G) s z_k + G rho_k (z_k = a_k theta + c_k + delta_k):
  //   dv_k = (1 - G) (ds z_k + s dz_k) + dG (rho_k - s z_k) + G drho_k,  dz_k = a_k dtheta + ddelta_k,
  //   ds = sigmoid(sbar) dsbar,  dG = G (1 - G) (dw0 - dkappa (theta - b_i) - kappa dtheta),
  //   dkappa = sigmoid(kbar) dkbar.
  // Parts that are off leave their coordinates out of the logits, so their derivative is 0 here too.
  const K0 = layout.kMax;
  const wDelta = new Float64Array(K0);
  const wRho = new Float64Array(K0);
  const along = (j: number, idx: Int32Array, w: Float64Array): ((c: number, p: Float64Array, dv: Float64Array) => void) | null => {
    let wTh = 0;
    let wS = 0;
    let wW0 = 0;
    let wKb = 0;
    wDelta.fill(0);
    wRho.fill(0);
    const dOff = layout.delta + j * K0;
    const rOff = layout.rho + j * K0;
    for (let a = 0; a < idx.length; a++) {
      const t = idx[a]!;
      if (t === layout.theta + j) wTh += w[a]!;
      else if (t === layout.sbar + j) wS += w[a]!;
      else if (t >= dOff && t < dOff + K0) wDelta[t - dOff]! += w[a]!;
      else if (t >= rOff && t < rOff + K0) wRho[t - rOff]! += w[a]!;
      else if (t === layout.w0) wW0 += w[a]!;
      else if (t === layout.kbar) wKb += w[a]!;
      else return null;
    }
    const th = x[layout.theta + j]!;
    const s = useS ? rowS(j) : 1;
    const ds = useS ? sigmoid(x[layout.sbar + j]!) * wS : 0;
    const dKappa = sigmoid(x[layout.kbar]!) * wKb;
    // One cell: p as `cell` computes it (the same bits) and dv, sharing G and z.
    return (col: number, out: Float64Array, dv: Float64Array): void => {
      const i = colItem[col]!;
      const io = itemOffsets[i]!;
      const co = colOffsets[col]!;
      const K = colOffsets[col + 1]! - co;
      const G = useFb ? sigmoid(w0 - kappa * (th - b[i]!)) : 0;
      const dG = useFb ? G * (1 - G) * (wW0 - dKappa * (th - b[i]!) - kappa * wTh) : 0;
      const omg = 1 - G;
      const os = omg * s;
      for (let k = 0; k < K; k++) {
        const p = colPosition === null ? k : colPosition[co + k]!;
        const a = x[aOff + io + k]!;
        const z = a * th + x[cOff + io + k]! + (usePos ? x[dOff + p]! : 0);
        const dz = a * wTh + (usePos ? wDelta[p]! : 0);
        const rho = useFb ? x[rOff + p]! : 0;
        out[k] = os * z + G * rho;
        dv[k] = omg * (ds * z + s * dz) + dG * (rho - s * z) + (useFb ? G * wRho[p]! : 0);
      }
      softmaxInPlace(out, K);
    };
  };
  const tmp = new Float64Array(bank.kMax);
  return { layout, cell, logits, along, pKey: (j, c) => (cell(j, c, tmp), tmp[bank.key[bank.colItem[c]!]!]!) };
}
