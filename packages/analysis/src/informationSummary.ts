import type { ResponseBank } from '@llm-nrm/core';
import type { ItemInformation } from './itemInformation.js';

/** One benchmark's information totals (items averaged over the ability distribution). */
export interface InformationSummaryRow {
  benchmark: string;
  items: number;
  /** Mean item information, full option response. */
  total: number;
  /** Mean item information kept by binary scoring. */
  binary: number;
  /** Mean item information added by the chosen distractor. */
  wrong: number;
  /** total / binary - 1: the "+X% over binary" of paper.md Fig. 2 (ratio of means). */
  gain: number;
  /** Median over items of I_i / I_binary,i - 1 (items with I_binary > 0). */
  medianItemGain: number;
}

/**
 * Information per benchmark and overall (last row, benchmark '(all)'): how much the full option
 * response adds over binary scoring (paper.md, "Information", Fig. 2). Items without a benchmark go
 * under '(none)'. NaN item values are skipped.
 */
export function informationSummary(bank: ResponseBank, info: Pick<ItemInformation, 'total' | 'binary' | 'wrong'>): InformationSummaryRow[] {
  const groups = new Map<string, number[]>();
  const all: number[] = [];
  bank.items.forEach((it, i) => {
    const name = it.benchmark ?? '(none)';
    let g = groups.get(name);
    if (!g) groups.set(name, (g = []));
    g.push(i);
    all.push(i);
  });
  const row = (benchmark: string, idx: number[]): InformationSummaryRow => {
    let t = 0;
    let b = 0;
    let w = 0;
    let n = 0;
    const ratios: number[] = [];
    for (const i of idx) {
      const ti = info.total[i]!;
      const bi = info.binary[i]!;
      const wi = info.wrong[i]!;
      if (Number.isNaN(ti) || Number.isNaN(bi) || Number.isNaN(wi)) continue;
      t += ti;
      b += bi;
      w += wi;
      n++;
      if (bi > 0) ratios.push(ti / bi - 1);
    }
    ratios.sort((p, q) => p - q);
    const m = ratios.length;
    const median = m === 0 ? NaN : m % 2 ? ratios[(m - 1) / 2]! : 0.5 * (ratios[m / 2 - 1]! + ratios[m / 2]!);
    return { benchmark, items: n, total: t / n, binary: b / n, wrong: w / n, gain: b > 0 ? t / b - 1 : NaN, medianItemGain: median };
  };
  const rows = [...groups.keys()].sort().map((k) => row(k, groups.get(k)!));
  rows.push(row('(all)', all));
  return rows;
}
