import { LlmNrmError, type Layout, type ResponseBank } from '@llm-nrm/core';
import { fleetInformation } from './fleetInformation.js';
import { itemInformation, type Abilities } from './itemInformation.js';

export interface SelectItemsOptions {
  /**
   * Ability distribution the information is averaged over: 'fitted' (default: the fitted thetas of
   * `rows`), 'prior' (N(0,1)), or explicit abilities.
   */
  abilities?: Abilities;
  /** LLMs whose fitted parameters define the 'fitted' distribution (default all). */
  rows?: ArrayLike<number>;
  /**
   * 'nrm' (default): the NRM component's information sum p (a - abar)^2 of paper.md; 'llm': each
   * fitted LLM's full LLM-NRM information (`fleetInformation`, 'fitted' only). The full information
   * rewards items whose difficulty gate switches near some LLM's ability (dG/dtheta times the gap
   * between fallback and knowledge logits); on the NAEP fixture (14 calibration LLMs) ranking by it
   * picked such items and gave held-out rankings that were worse than random (Kendall < 0), so the
   * NRM component is the default.
   */
  information?: 'nrm' | 'llm';
  /** Rank by 'total' information (default) or by the 'binary' part only. */
  by?: 'total' | 'binary';
}

export interface ItemSelection {
  /** Selected item indices, most informative first. */
  items: Int32Array;
  ids: string[];
  /** Information of each selected item (same order). */
  information: Float64Array;
}

/**
 * The n most informative items (paper.md, experiment 5: compression), by the item's information
 * averaged over the ability distribution. Ties keep bank order.
 */
export function selectItems(bank: ResponseBank, layout: Layout, x: Float64Array, n: number, options: SelectItemsOptions = {}): ItemSelection {
  const I = bank.items.length;
  if (!Number.isInteger(n) || n < 1) throw new LlmNrmError('INVALID_OPTION', `invalid item budget: ${n}`);
  const ab = options.abilities ?? 'fitted';
  let info;
  if (options.information === 'llm') {
    if (ab !== 'fitted') throw new LlmNrmError('INVALID_OPTION', "information 'llm' needs the fitted abilities");
    info = fleetInformation(bank, layout, x, options.rows);
  } else if (ab === 'fitted' && options.rows) {
    const thetas = Array.from(options.rows, (j) => x[layout.theta + j]!);
    info = itemInformation(bank, layout, x, { abilities: thetas });
  } else info = itemInformation(bank, layout, x, { abilities: ab });
  const score = options.by === 'binary' ? info.binary : info.total;
  const order = Array.from({ length: I }, (_, i) => i);
  const val = (i: number) => (Number.isNaN(score[i]!) ? -Infinity : score[i]!);
  order.sort((a, b) => val(b) - val(a) || a - b);
  const m = Math.min(n, I);
  const items = Int32Array.from(order.slice(0, m));
  return { items, ids: Array.from(items, (i) => bank.items[i]!.id), information: Float64Array.from(items, (i) => score[i]!) };
}
