import type { Layout, ResponseBank } from '@llm-nrm/core';
import { itemInformation } from './itemInformation.js';

/** Test information curve: sum over items of the item information at each theta of a grid. */
export interface TestInformation {
  theta: Float64Array;
  total: Float64Array;
  binary: Float64Array;
  wrong: Float64Array;
}

/**
 * Test information T(theta) = sum_i I_i(theta) (NRM component; paper.md, "Information") on a grid
 * (default -4..4 by 0.25), with its binary and distractor parts. `items` restricts the sum (e.g. a
 * selected subset), as item indices.
 */
export function testInformation(
  bank: ResponseBank,
  layout: Layout,
  x: Float64Array,
  options: { grid?: ArrayLike<number>; items?: ArrayLike<number> } = {},
): TestInformation {
  const theta = options.grid ? Float64Array.from(options.grid) : Float64Array.from({ length: 33 }, (_, t) => -4 + 0.25 * t);
  const total = new Float64Array(theta.length);
  const binary = new Float64Array(theta.length);
  const wrong = new Float64Array(theta.length);
  const chosen = options.items ? Array.from(options.items) : null;
  for (let t = 0; t < theta.length; t++) {
    const info = itemInformation(bank, layout, x, { abilities: [theta[t]!] });
    if (chosen) {
      for (const i of chosen) {
        total[t]! += info.total[i]!;
        binary[t]! += info.binary[i]!;
        wrong[t]! += info.wrong[i]!;
      }
    } else {
      for (let i = 0; i < info.total.length; i++) {
        total[t]! += info.total[i]!;
        binary[t]! += info.binary[i]!;
        wrong[t]! += info.wrong[i]!;
      }
    }
  }
  return { theta, total, binary, wrong };
}
