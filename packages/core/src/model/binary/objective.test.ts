// The binary kernel's two cell orders (objective.ts): item by item (banks with one column per item)
// and row by row give the same loss and gradient bit for bit, with unobserved cells present.
import { describe, expect, it } from 'vitest';
import { correctness, withObserved } from '../../data/bank.js';
import { binaryLayout } from '../layout.js';
import { simulateFleet } from '../../simulate/simulate.js';
import { binaryStart } from './start.js';
import { binaryObjective } from './objective.js';

const { bank: full } = simulateFleet({ models: 30, items: 50, seed: 5 });
// About a fifth of the cells held out, as in a CV fold.
const mask = new Uint8Array(full.models.length * full.colItem.length).map((_, t) => ((t * 7919) % 5 === 2 ? 0 : 1));
const bank = withObserved(full, mask);

describe('binaryObjective', () => {
  for (const pl of [1, 2, 3, 4] as const) {
    it(`${pl}PL: the item-major pass gives the row pass's loss and gradient bit for bit`, () => {
      const L = binaryLayout(bank, pl);
      const y = correctness(bank);
      const byItem = binaryObjective(bank, L, y);
      const byRow = binaryObjective(bank, L, y, {}, { itemMajor: false });
      const x = binaryStart(bank, L);
      for (let t = 0; t < x.length; t++) x[t]! += 0.8 * Math.sin(1.7 * t);
      for (const scope of [{}, { thetaPrior: false }, { itemPrior: false }]) {
        const g1 = new Float64Array(L.size);
        const g2 = new Float64Array(L.size);
        const l1 = byItem.lossAndGrad(x, g1, scope);
        const l2 = byRow.lossAndGrad(x, g2, scope);
        expect(Object.is(l1, l2)).toBe(true);
        let differ = 0;
        for (let t = 0; t < g1.length; t++) if (!Object.is(g1[t], g2[t])) differ++;
        expect(differ).toBe(0);
      }
      // The held-out cells are not in the loss: it differs from the full bank's.
      const gFull = new Float64Array(L.size);
      expect(binaryObjective(full, L, correctness(full)).lossAndGrad(x, gFull)).not.toBe(byItem.lossAndGrad(x, new Float64Array(L.size)));
    });
  }
});
