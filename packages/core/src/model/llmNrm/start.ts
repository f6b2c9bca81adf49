import type { ResponseBank } from '../../data/bank.js';
import { bankMeans, initialTheta } from '../../internal/bankMeans.js';
import { softplusInv, type LlmNrmLayout } from '../layout.js';

/** A reasonable starting point: theta from accuracy, c from log mean choice rates, a from covariances. */
export function llmNrmStart(bank: ResponseBank, layout: LlmNrmLayout): Float64Array {
  const x = new Float64Array(layout.size);
  const { acc, pbar, nItem } = bankMeans(bank);
  const theta = initialTheta(acc);
  x.set(theta, layout.theta);
  const J = bank.models.length;
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC]!;
  const sumK = layout.sumK;
  for (let j = 0; j < J; j++) x[layout.sbar + j] = softplusInv(1);
  // a_ik: one GLM-like step, cov_j(theta_j, q_jik) / (pbar (1 - pbar)), clipped.
  const cov = new Float64Array(sumK);
  for (let j = 0; j < J; j++) {
    for (let c = 0; c < nC; c++) {
      if (!bank.observed[j * nC + c]) continue;
      const i = bank.colItem[c]!;
      const qo = j * width + bank.colOffsets[c]!;
      const io = bank.itemOffsets[i]!;
      const K = bank.itemOffsets[i + 1]! - io;
      for (let k = 0; k < K; k++) cov[io + k]! += theta[j]! * (bank.q[qo + k]! - pbar[io + k]!);
    }
  }
  for (let i = 0; i < bank.items.length; i++) {
    const io = bank.itemOffsets[i]!;
    const K = bank.itemOffsets[i + 1]! - io;
    let ma = 0;
    let mc = 0;
    for (let k = 0; k < K; k++) {
      const p = pbar[io + k]!;
      // nItem: the item's observed cells, each of its options' count.
      const a = nItem[i]! > 0 ? cov[io + k]! / nItem[i]! / (p * (1 - p) + 0.05) : 0;
      x[layout.a + io + k] = Math.max(-3, Math.min(3, a));
      x[layout.c + io + k] = Math.log(p + 1e-3);
      ma += x[layout.a + io + k]! / K;
      mc += x[layout.c + io + k]! / K;
    }
    for (let k = 0; k < K; k++) {
      x[layout.a + io + k]! -= ma;
      x[layout.c + io + k]! -= mc;
    }
  }
  x[layout.w0] = layout.parts.fallback ? -2 : 0;
  x[layout.kbar] = softplusInv(1);
  return x;
}
