import { familyOfLayout, type Layout, type ResponseBank } from '@llm-nrm/core';

/**
 * Informative distractors (paper.md, "Information"): per item, the incorrect options that are the
 * single most likely response at some ability on a grid (default -4..4 by 0.05), under the NRM
 * component p = softmax(a theta + c). Returns option indices (content order) per item; binary layouts
 * carry no option curves, so every list is empty.
 */
export function informativeDistractors(bank: ResponseBank, layout: Layout, x: Float64Array, options: { grid?: ArrayLike<number> } = {}): number[][] {
  const grid = options.grid ?? Float64Array.from({ length: 161 }, (_, t) => -4 + 0.05 * t);
  const out: number[][] = [];
  const family = familyOfLayout(layout);
  const option = family.kind === 'option-level' ? family : null;
  const v = new Float64Array(bank.kMax);
  for (let i = 0; i < bank.items.length; i++) {
    const found: number[] = [];
    if (option !== null) {
      const io = bank.itemOffsets[i]!;
      const K = bank.itemOffsets[i + 1]! - io;
      const g = bank.key[i]!;
      const seen = new Uint8Array(K);
      for (let t = 0; t < grid.length; t++) {
        const th = grid[t]!;
        option.itemLogits(bank, layout, x, i, th, v);
        let best = -1;
        let bv = -Infinity;
        let tie = false;
        for (let k = 0; k < K; k++) {
          if (v[k]! > bv) {
            bv = v[k]!;
            best = k;
            tie = false;
          } else if (v[k] === bv) tie = true;
        }
        // "single most likely": exact ties do not count.
        if (!tie && best !== g) seen[best] = 1;
      }
      for (let k = 0; k < K; k++) if (seen[k]) found.push(k);
    }
    out.push(found);
  }
  return out;
}
