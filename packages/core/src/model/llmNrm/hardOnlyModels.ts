import type { ResponseBank } from '../../data/bank.js';
import type { LlmNrmParts } from '../types.js';

export { hardOnlyModels, identifiedParts };

/**
 * The LLMs (bank rows) whose every observed cell is a hard answer (a choice, or all mass on one
 * option). From one-hot targets the sharpness s_j of paper.md eq. (1) is not identified (the
 * cross-entropy keeps falling as s_j grows; issue 31): LLM-NRM fixes s_j = 1 for these rows.
 */
function hardOnlyModels(bank: ResponseBank): number[] {
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

/**
 * The LLM-NRM parts a fresh fit of `bank` can identify: the requested ones, less the guessing
 * fallback when every LLM's answers are all hard. From one-hot answers the gate of paper.md,
 * G = sigmoid(w0 - kappa (theta - b)), runs away to a step (w0 -> -inf, kappa -> +inf at a fixed
 * ratio): with sharpness held at 1 the step hands each hard-looking cell to a per-LLM fallback, a
 * cell-level temperature the data cannot pin (issue 31: a simulated 29 x 3,000 all-hard fleet
 * ended at w0 -46.6, kappa 22.8 after 5,762 iterations, 117 s; without the gate 121 iterations,
 * 4.5 s; packages/core/BENCHMARKS.md). A bank with any soft LLM keeps the gate: its soft rows pin
 * w0 and kappa.
 */
function identifiedParts(bank: ResponseBank, parts: LlmNrmParts): LlmNrmParts {
  if (!parts.fallback || bank.models.length === 0) return parts;
  return hardOnlyModels(bank).length === bank.models.length ? { ...parts, fallback: false } : parts;
}
