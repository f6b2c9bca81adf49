import { predictor, type Layout, type Predictor, type ResponseBank } from '@llm-nrm/core';
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
  /** The forward model at x, when already built (`predictor(bank, layout, x)`; one serves every LLM). */
  predictor?: Predictor;
}

/**
 * Full LLM-NRM Fisher information about theta_j in each column (presentation) for LLM j, with its
 * sharpness, positional bias and difficulty-gated fallback (paper.md, LLM-NRM): from the family's
 * forward model (core's `predictor`: the logits v_k and their slopes dv_k/dtheta, written there once),
 *   I = sum_k p_k (dv_k/dtheta - sum_l p_l dv_l/dtheta)^2, split by `informationSplit`.
 * Binary layouts give (dP/dtheta)^2 / (P (1 - P)) in `binary` and `total`.
 */
export function llmInformation(bank: ResponseBank, layout: Layout, x: Float64Array, j: number, options: LlmInformationOptions = {}): LlmInformation {
  const nC = bank.colItem.length;
  const total = new Float64Array(nC);
  const binary = new Float64Array(nC);
  const wrong = new Float64Array(nC);
  const th = options.theta ?? x[layout.theta + j]!;
  // Option-level families give logits (and their slopes); the binary ones only P(correct).
  const logits = (options.predictor ?? predictor(bank, layout, x, undefined, options.difficulties)).logits;
  if (logits === null) {
    const tmp = new Float64Array(3);
    for (let col = 0; col < nC; col++) {
      const info = binaryInformation(layout, x, bank.colItem[col]!, th, tmp);
      total[col] = info;
      binary[col] = info;
    }
    return { total, binary, wrong };
  }
  const v = new Float64Array(bank.kMax);
  const d = new Float64Array(bank.kMax);
  const out = new Float64Array(3);
  for (let col = 0; col < nC; col++) {
    const K = bank.colOffsets[col + 1]! - bank.colOffsets[col]!;
    logits(j, col, v, d, th);
    informationSplit(v, d, K, bank.key[bank.colItem[col]!]!, out);
    total[col] = out[0]!;
    binary[col] = out[1]!;
    wrong[col] = out[2]!;
  }
  return { total, binary, wrong };
}
