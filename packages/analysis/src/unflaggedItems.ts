import type { Layout, ResponseBank } from '@llm-nrm/core';
import { itemQuality, type ItemFlag, type ItemQualityOptions } from './itemQuality.js';

/**
 * The `report` flags that keep an item out of a tiny benchmark: its key is suspect. Not
 * 'dominant-distractor': a distractor modal over most of N(0, 1) while the key still wins at high
 * ability is a hard item, and hard items are what separates the strongest LLMs. Leaving them out
 * too (14-25 of NAEP's 297 items per 14-LLM calibration) took NAEP's leave-LLMs-out Kendall at 41
 * items from 0.961 to 0.791 and 20-item from 0.791 to 0.817 at best, the soft fleet's at 100 from
 * 0.987 to 0.960 (analysis/BENCHMARKS.md, "flags before selection").
 */
export const SELECTION_FLAGS: readonly ItemFlag[] = ['possible-wrong-key'];

/** An item left out of selection and the flags that left it out. */
export interface LeftOutItem {
  id: string;
  flags: ItemFlag[];
}

/**
 * The items a tiny benchmark may select (eligible[i] = 1) and those left out: an item with a flag of
 * SELECTION_FLAGS from `itemQuality` (the flags `llm-nrm report` lists) is left out. A mis-keyed item
 * looks very "informative", because it separates LLMs sharply (the strong ones pick the real
 * answer), so a tiny benchmark would rank LLMs by agreement with a wrong key: on NAEP (297 items, 18
 * LLMs) `report` flags 7 items as possible wrong keys and the unrestricted 41-item selection takes
 * one of them at rank 14. `selectForRange` applies this unless told otherwise. Binary layouts carry
 * no flags: every item stays eligible.
 */
export function unflaggedItems(
  bank: ResponseBank,
  layout: Layout,
  x: Float64Array,
  options: ItemQualityOptions = {},
): { eligible: Uint8Array; leftOut: LeftOutItem[] } {
  const eligible = new Uint8Array(bank.items.length).fill(1);
  const leftOut: LeftOutItem[] = [];
  const quality = itemQuality(bank, layout, x, options);
  quality.forEach((q, i) => {
    const flags = q.flags.filter((f) => SELECTION_FLAGS.includes(f));
    if (flags.length === 0) return;
    eligible[i] = 0;
    leftOut.push({ id: q.id, flags });
  });
  return { eligible, leftOut };
}
