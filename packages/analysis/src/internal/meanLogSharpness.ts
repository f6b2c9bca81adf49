import { familyOfLayout, softplus, type Layout } from '@llm-nrm/core';

/**
 * Mean log sharpness of the listed LLMs at x: the centre of the tiny-run scorers' sharpness prior
 * (log s ~ N(mean of the calibration fleet, sd^2)). 0 for families without sharpness or an empty list.
 */
export function meanLogSharpness(layout: Layout, x: Float64Array, llms: Iterable<number>): number {
  const family = familyOfLayout(layout);
  if (family.kind !== 'option-level') return 0;
  let s = 0;
  let n = 0;
  for (const j of llms) {
    s += Math.log(softplus(x[family.sharpnessIndex(layout, j)]!));
    n++;
  }
  return n > 0 ? s / n : 0;
}
