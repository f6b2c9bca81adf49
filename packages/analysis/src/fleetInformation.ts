import { predictor, type Layout, type ResponseBank } from '@llm-nrm/core';
import { llmInformation } from './llmInformation.js';

/**
 * Per-item information at the fitted ability distribution: the mean over LLMs `rows` (default all)
 * of each LLM's full LLM-NRM information (`llmInformation`), summed over the item's columns (an item
 * shown in four rotations carries the four presentations' information). Length I each.
 */
export function fleetInformation(
  bank: ResponseBank,
  layout: Layout,
  x: Float64Array,
  rows?: ArrayLike<number>,
): { total: Float64Array; binary: Float64Array; wrong: Float64Array } {
  const I = bank.items.length;
  const total = new Float64Array(I);
  const binary = new Float64Array(I);
  const wrong = new Float64Array(I);
  const list = rows ?? Array.from({ length: layout.nModels }, (_, j) => j);
  // One forward model for every LLM (it computes the gate's difficulties once).
  const pred = predictor(bank, layout, x);
  const n = list.length;
  for (let r = 0; r < n; r++) {
    const info = llmInformation(bank, layout, x, list[r]!, { predictor: pred });
    for (let col = 0; col < bank.colItem.length; col++) {
      const i = bank.colItem[col]!;
      total[i]! += info.total[col]! / n;
      binary[i]! += info.binary[col]! / n;
      wrong[i]! += info.wrong[col]! / n;
    }
  }
  return { total, binary, wrong };
}
