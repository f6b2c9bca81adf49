import { LlmNrmError } from '@llm-nrm/core';

/**
 * Distribution over options from per-option continuation scores (HELM `multiple_choice_separate_*`,
 * lm-eval loglikelihoods): p_k = exp(s_k - max s) / sum_k' exp(s_k' - max s). Subtracting the max
 * keeps exp from underflowing when the scores are large negative sums of token logprobs.
 * `-Infinity` scores get zero mass; NaN, +Infinity or all `-Infinity` throw `INVALID_PROBS`.
 *
 * @example
 * softmaxOptionLogprobs([Math.log(0.2), Math.log(0.6), Math.log(0.2)]) // [0.2, 0.6, 0.2]
 */
export function softmaxOptionLogprobs(perOptionLogprobs: readonly number[]): number[] {
  let max = -Infinity;
  for (let k = 0; k < perOptionLogprobs.length; k++) {
    const s = perOptionLogprobs[k];
    if (typeof s !== 'number' || Number.isNaN(s) || s === Infinity) {
      throw new LlmNrmError('INVALID_PROBS', `invalid option logprob at ${k}: ${JSON.stringify(s)}`);
    }
    if (s > max) max = s;
  }
  if (max === -Infinity) throw new LlmNrmError('INVALID_PROBS', 'every option logprob is -Infinity');
  const out = perOptionLogprobs.map((s) => Math.exp(s - max));
  let sum = 0;
  for (const e of out) sum += e;
  return out.map((e) => e / sum);
}
