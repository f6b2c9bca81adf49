import { LlmNrmError, type Layout, type ResponseBank } from '@llm-nrm/core';
import { fleetInformation } from './fleetInformation.js';
import { itemInformation, type Abilities } from './itemInformation.js';

export interface SelectItemsOptions {
  /**
   * Ability distribution the information is averaged over: 'fitted' (default: every fitted LLM with
   * its own sharpness, bias and fallback, `fleetInformation`), 'prior' (N(0,1), NRM component), or
   * explicit abilities (NRM component).
   */
  abilities?: Abilities;
  /** LLMs whose fitted parameters define the 'fitted' distribution (default all). */
  rows?: ArrayLike<number>;
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
  const info = ab === 'fitted' ? fleetInformation(bank, layout, x, options.rows) : itemInformation(bank, layout, x, { abilities: ab });
  const score = options.by === 'binary' ? info.binary : info.total;
  const order = Array.from({ length: I }, (_, i) => i);
  const val = (i: number) => (Number.isNaN(score[i]!) ? -Infinity : score[i]!);
  order.sort((a, b) => val(b) - val(a) || a - b);
  const m = Math.min(n, I);
  const items = Int32Array.from(order.slice(0, m));
  return { items, ids: Array.from(items, (i) => bank.items[i]!.id), information: Float64Array.from(items, (i) => score[i]!) };
}
