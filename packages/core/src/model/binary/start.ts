import { correctness, type ResponseBank } from '../../data/bank.js';
import { bankMeans, initialTheta } from '../../internal/bankMeans.js';
import type { BinaryLayout } from '../layout.js';

/** A reasonable starting point: theta from accuracy, intercepts from each item's proportion correct. */
export function binaryStart(bank: ResponseBank, layout: BinaryLayout): Float64Array {
  const x = new Float64Array(layout.size);
  const { acc } = bankMeans(bank);
  const theta = initialTheta(acc);
  x.set(theta, layout.theta);
  const J = bank.models.length;
  const nC = bank.colItem.length;
  const I = bank.items.length;
  const y = correctness(bank);
  const pc = new Float64Array(I);
  const n = new Float64Array(I);
  for (let j = 0; j < J; j++) {
    for (let c = 0; c < nC; c++) {
      const yy = y[j * nC + c]!;
      if (yy === 255) continue;
      pc[bank.colItem[c]!]! += yy;
      n[bank.colItem[c]!]!++;
    }
  }
  for (let i = 0; i < I; i++) {
    const p = Math.min(0.98, Math.max(0.02, n[i]! > 0 ? pc[i]! / n[i]! : 0.5));
    x[layout.slope + i] = 1;
    x[layout.intercept + i] = Math.log(p / (1 - p));
    x[layout.guess + i] = layout.pl >= 3 ? -2 : 0;
    x[layout.slip + i] = layout.pl >= 4 ? -3 : 0;
  }
  return x;
}
