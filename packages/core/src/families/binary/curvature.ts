import type { ResponseBank } from '../../bank.js';
import { Blocks } from '../../internal/blocks.js';
import { sigmoid, type BinaryLayout } from '../../layout.js';
import { DEFAULT_PRIORS, type Priors } from '../../objective.js';
import type { CurvatureAt } from '../family.js';

/** Block Fisher curvature of the binary objective at x: one block per LLM (theta), one per item. */
export function binaryCurvature(bank: ResponseBank, L: BinaryLayout, x: Float64Array, free: Uint8Array, priors: Priors, y: Uint8Array): CurvatureAt {
  const { itemSd } = { ...DEFAULT_PRIORS, ...priors };
  const lamItem = 1 / (itemSd * itemSd);
  const J = L.nModels;
  const I = L.nItems;
  const nC = bank.colItem.length;
  const HI = new Float64Array(I * 16);
  const Ht = new Float64Array(J);
  const pl = L.pl;
  for (let j = 0; j < J; j++) {
    const th = x[L.theta + j]!;
    for (let col = 0; col < nC; col++) {
      if (y[j * nC + col] === 255) continue;
      const i = bank.colItem[col]!;
      const a = pl >= 2 ? x[L.slope + i]! : 1;
      const sg = sigmoid(a * th + x[L.intercept + i]!);
      const lo = pl >= 3 ? sigmoid(x[L.guess + i]!) : 0;
      const hi = pl >= 4 ? 1 - sigmoid(x[L.slip + i]!) : 1;
      const P = Math.min(1 - 1e-12, Math.max(1e-12, lo + (hi - lo) * sg));
      // Fisher information of a Bernoulli in P: (dP)^2 / (P (1 - P)).
      const fi = 1 / (P * (1 - P));
      const deta = (hi - lo) * sg * (1 - sg);
      const jv = [
        deta * th, // slope
        deta, // intercept
        pl >= 3 ? (1 - sg) * lo * (1 - lo) : 0,
        pl >= 4 ? -sg * (1 - hi) * hi : 0,
      ];
      for (let r = 0; r < 4; r++) for (let c = 0; c < 4; c++) HI[i * 16 + r * 4 + c]! += fi * jv[r]! * jv[c]!;
      Ht[j]! += fi * deta * a * deta * a;
    }
  }
  const blocks = new Blocks(L.size);
  const llm: Float64Array[] = [];
  for (let j = 0; j < J; j++) {
    llm.push(Float64Array.of(Ht[j]!));
    blocks.add([L.theta + j], Float64Array.of(Ht[j]! + 1), free, 0);
  }
  for (let i = 0; i < I; i++) {
    blocks.add([L.slope + i, L.intercept + i, L.guess + i, L.slip + i], HI.slice(i * 16, i * 16 + 16), free, lamItem);
  }
  return { blocks, llm };
}
