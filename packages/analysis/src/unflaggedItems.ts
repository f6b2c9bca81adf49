import type { Layout, ResponseBank } from '@llm-nrm/core';
import { itemQuality, type ItemFlag, type ItemQualityOptions } from './itemQuality.js';

/** The `report` flags that keep an item out of a tiny benchmark: its key or its options are suspect. */
export const SELECTION_FLAGS: readonly ItemFlag[] = ['possible-wrong-key', 'dominant-distractor'];

/** An item left out of selection and the flags that left it out. */
export interface LeftOutItem {
  id: string;
  flags: ItemFlag[];
}

/**
 * The items a tiny benchmark may select (eligible[i] = 1) and those left out: an item flagged
 * possible-wrong-key or dominant-distractor by `itemQuality` (the flags `llm-nrm report` lists) is
 * left out. Such items are often the most "informative" ones, because a mis-keyed item separates
 * LLMs sharply (the strong ones pick the real answer): on NAEP `report` flags 8 of 252 items and the
 * range selection of 41 put 5 of them at ranks 1, 2, 4, 6 and 12, so a tiny benchmark would rank
 * LLMs by agreement with a wrong key. Binary layouts carry no flags: every item stays eligible.
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
