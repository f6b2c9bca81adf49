import { itemDifficulties, sigmoid, softplus, type Layout, type ResponseBank } from '@llm-nrm/core';
import { binaryInformation } from './itemInformation.js';
import { informationSplit } from './informationSplit.js';

/** Per-column information for one LLM (length C each). */
export interface LlmInformation {
  total: Float64Array;
  binary: Float64Array;
  wrong: Float64Array;
}

export interface LlmInformationOptions {
  /** Ability to evaluate at (default the LLM's fitted theta). */
  theta?: number;
  /** Item difficulties b_i of the gate, when already computed (`itemDifficulties`). */
  difficulties?: Float64Array;
}

/**
 * Full LLM-NRM Fisher information about theta_j in each column (presentation) for LLM j, with its
 * sharpness, positional bias and difficulty-gated fallback (paper.md, LLM-NRM):
 *   v_k = (1 - G) s (a_k theta + c_k + delta_k) + G rho_k,  G = sigmoid(w0 - kappa (theta - b_i))
 *   dv_k/dtheta = (1 - G) s a_k - kappa G (1 - G) (rho_k - s z_k)    (dG/dtheta = -kappa G (1 - G))
 *   I = sum_k p_k (dv_k/dtheta - sum_l p_l dv_l/dtheta)^2, split by `informationSplit`.
 * Binary layouts give (dP/dtheta)^2 / (P (1 - P)) in `binary` and `total`.
 */
export function llmInformation(bank: ResponseBank, layout: Layout, x: Float64Array, j: number, options: LlmInformationOptions = {}): LlmInformation {
  const nC = bank.colItem.length;
  const total = new Float64Array(nC);
  const binary = new Float64Array(nC);
  const wrong = new Float64Array(nC);
  const th = options.theta ?? x[layout.theta + j]!;
  if (layout.kind === 'binary') {
    for (let col = 0; col < nC; col++) {
      const info = binaryInformation(layout, x, bank.colItem[col]!, th);
      total[col] = info;
      binary[col] = info;
    }
    return { total, binary, wrong };
  }
  const { sharpness: useS, position: usePos, fallback: useFb } = layout.parts;
  const b = useFb ? (options.difficulties ?? itemDifficulties(bank, layout, x)) : null;
  const s = useS ? softplus(x[layout.sbar + j]!) : 1;
  const kappa = softplus(x[layout.kbar]!);
  const w0 = x[layout.w0]!;
  const dOff = layout.delta + j * layout.kMax;
  const rOff = layout.rho + j * layout.kMax;
  const v = new Float64Array(bank.kMax);
  const d = new Float64Array(bank.kMax);
  const out = new Float64Array(3);
  for (let col = 0; col < nC; col++) {
    const i = bank.colItem[col]!;
    const io = bank.itemOffsets[i]!;
    const co = bank.colOffsets[col]!;
    const K = bank.colOffsets[col + 1]! - co;
    const G = b ? sigmoid(w0 - kappa * (th - b[i]!)) : 0;
    const dG = -kappa * G * (1 - G);
    for (let k = 0; k < K; k++) {
      const pos = bank.colPosition === null ? k : bank.colPosition[co + k]!;
      const a = x[layout.a + io + k]!;
      const z = a * th + x[layout.c + io + k]! + (usePos ? x[dOff + pos]! : 0);
      const rho = useFb ? x[rOff + pos]! : 0;
      v[k] = (1 - G) * s * z + G * rho;
      d[k] = (1 - G) * s * a + dG * (rho - s * z);
    }
    informationSplit(v, d, K, bank.key[i]!, out);
    total[col] = out[0]!;
    binary[col] = out[1]!;
    wrong[col] = out[2]!;
  }
  return { total, binary, wrong };
}
