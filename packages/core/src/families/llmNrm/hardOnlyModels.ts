import type { ResponseBank } from '../../bank.js';

/**
 * The LLMs (bank rows) whose every observed cell is a hard answer: a parsed choice, or a
 * distribution with all its mass on one option. From one-hot targets an inverse temperature is not
 * identified: the soft cross-entropy -sum q log p of a one-hot q keeps falling as the sharpness s_j
 * sharpens the softmax of paper.md eq. (1) toward the chosen options, so a free s_j runs away (29
 * real LLMs x 12,066 MMLU-Pro items: s 312, SEs 0.0002, the fit 27.6 SE from its optimum at the
 * cap; issue 31). LLM-NRM fixes s_j = 1 for these rows (layout `fixedSharpness`): the classical
 * nominal model's reading of a choice as one draw from the option curves.
 */
export function hardOnlyModels(bank: ResponseBank): number[] {
  const J = bank.models.length;
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC]!;
  const out: number[] = [];
  for (let j = 0; j < J; j++) {
    let any = false;
    let soft = false;
    for (let c = 0; c < nC && !soft; c++) {
      const cell = j * nC + c;
      if (!bank.observed[cell]) continue;
      any = true;
      if (bank.hard[cell]) continue;
      // A soft record whose mass sits on one option says no more than a choice.
      const o = j * width + bank.colOffsets[c]!;
      const K = bank.colOffsets[c + 1]! - bank.colOffsets[c]!;
      let top = 0;
      for (let k = 0; k < K; k++) top = Math.max(top, bank.q[o + k]!);
      if (top < 1 - 1e-9) soft = true;
    }
    if (any && !soft) out.push(j);
  }
  return out;
}
