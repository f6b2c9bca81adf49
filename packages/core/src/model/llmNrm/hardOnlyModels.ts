import type { ResponseBank } from '../../data/bank.js';

/**
 * The LLMs (bank rows) whose every observed cell is a hard answer (a choice, or all mass on one
 * option). From one-hot targets the sharpness s_j of paper.md eq. (1) is not identified (the
 * cross-entropy keeps falling as s_j grows; issue 31): LLM-NRM fixes s_j = 1 for these rows.
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
