import type { ResponseBank } from '../../data/bank.js';
import type { Priors } from '../objective.js';
import type { LlmNrmParts } from '../types.js';

export { HARD_ITEM_SD, hardOnlyModels, hardOnlyRow, identifiedParts, identifiedPriors };

/**
 * The LLMs (bank rows) whose every observed cell is a hard answer (a choice, or all mass on one
 * option). From one-hot targets the sharpness s_j of paper.md eq. (1) is not identified (the
 * cross-entropy keeps falling as s_j grows; issue 31): LLM-NRM fixes s_j = 1 for these rows.
 */
function hardOnlyModels(bank: ResponseBank): number[] {
  const out: number[] = [];
  for (let j = 0; j < bank.models.length; j++) if (hardOnlyRow(bank, j)) out.push(j);
  return out;
}

/**
 * Whether bank row j has observed cells and every one is a hard answer (`hardOnlyModels`, one row);
 * with `cols`, only the columns c with cols[c] = 1 (a tiny run's, as `score` sees that run alone).
 */
function hardOnlyRow(bank: ResponseBank, j: number, cols?: ArrayLike<number>): boolean {
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC]!;
  let any = false;
  for (let c = 0; c < nC; c++) {
    const cell = j * nC + c;
    if (!bank.observed[cell] || (cols !== undefined && !cols[c])) continue;
    any = true;
    if (bank.hard[cell]) continue;
    // A soft record whose mass sits on one option says no more than a choice.
    const o = j * width + bank.colOffsets[c]!;
    const K = bank.colOffsets[c + 1]! - bank.colOffsets[c]!;
    let top = 0;
    for (let k = 0; k < K; k++) top = Math.max(top, bank.q[o + k]!);
    if (top < 1 - 1e-9) return false;
  }
  return any;
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
  return parts.fallback && everyAnswerHard(bank) ? { ...parts, fallback: false } : parts;
}

/**
 * SD of the item prior for a fresh option-level fit of an all-hard bank (`identifiedPriors`), in
 * place of the default 10.
 */
const HARD_ITEM_SD = 2;

/**
 * The priors a fresh option-level fit of `bank` uses: the given ones, and where every LLM's answers
 * are hard and no item SD was given, a_ik, c_ik ~ N(0, 2^2) instead of the near-flat N(0, 10^2).
 * From one-hot answers of a few dozen LLMs an item's 2(K - 1) logits meet separation (an option
 * chosen by exactly the stronger LLMs has an unbounded slope), so the weak ridge leaves items that
 * fit the training fleet's draws and tiny-benchmark selection picks them first (issue 30/31, a
 * simulated 29 x 12,000 MMLU-Pro fleet: held-out option log-loss 3.33 with SD 10, 2.45 with SD 2,
 * log 10 = 2.30; theta Spearman 0.958 -> 0.962; 45 iterations instead of 137; selected tiny items
 * below random at 41 items with SD 10, above with SD 2: packages/core/BENCHMARKS.md).
 */
function identifiedPriors(bank: ResponseBank, optionLevel: boolean, priors: Priors): Priors {
  return optionLevel && priors.itemSd === undefined && everyAnswerHard(bank) ? { ...priors, itemSd: HARD_ITEM_SD } : priors;
}

/**
 * Whether the bank has answers and every one is hard. LLMs with no observed cell (held out by a
 * mask, as cross-validation and the compression study fit) say nothing either way.
 */
function everyAnswerHard(bank: ResponseBank): boolean {
  const J = bank.models.length;
  const nC = bank.colItem.length;
  let answering = 0;
  for (let j = 0; j < J; j++) {
    for (let c = 0; c < nC; c++) {
      if (bank.observed[j * nC + c]) {
        answering++;
        break;
      }
    }
  }
  return answering > 0 && hardOnlyModels(bank).length === answering;
}
