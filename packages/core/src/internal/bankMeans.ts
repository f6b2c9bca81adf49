import type { ResponseBank } from '../data/bank.js';

/** Per-LLM mean probability on the key and per-item/option mean probability (observed cells only). */
export function bankMeans(bank: ResponseBank): { acc: Float64Array; pbar: Float64Array; nItem: Float64Array; nModel: Float64Array } {
  const J = bank.models.length;
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC]!;
  const sumK = bank.itemOffsets[bank.items.length]!;
  const acc = new Float64Array(J);
  const nModel = new Float64Array(J);
  const pbar = new Float64Array(sumK);
  const nItem = new Float64Array(bank.items.length);
  for (let j = 0; j < J; j++) {
    for (let c = 0; c < nC; c++) {
      if (!bank.observed[j * nC + c]) continue;
      const i = bank.colItem[c]!;
      const qo = j * width + bank.colOffsets[c]!;
      const io = bank.itemOffsets[i]!;
      const K = bank.itemOffsets[i + 1]! - io;
      for (let k = 0; k < K; k++) pbar[io + k]! += bank.q[qo + k]!;
      acc[j]! += bank.q[qo + bank.key[i]!]!;
      nModel[j]!++;
      nItem[i]!++;
    }
  }
  for (let j = 0; j < J; j++) acc[j] = nModel[j]! > 0 ? acc[j]! / nModel[j]! : 0.5;
  for (let i = 0; i < bank.items.length; i++) {
    const io = bank.itemOffsets[i]!;
    const K = bank.itemOffsets[i + 1]! - io;
    for (let k = 0; k < K; k++) pbar[io + k] = nItem[i]! > 0 ? pbar[io + k]! / nItem[i]! : 1 / K;
  }
  return { acc, pbar, nItem, nModel };
}

/** Standardised logit of each LLM's mean key probability: a starting theta on the N(0,1) scale. */
export function initialTheta(acc: Float64Array): Float64Array {
  const J = acc.length;
  const t = new Float64Array(J);
  let mean = 0;
  for (let j = 0; j < J; j++) {
    const p = Math.min(0.995, Math.max(0.005, acc[j]!));
    t[j] = Math.log(p / (1 - p));
    mean += t[j]! / J;
  }
  let v = 0;
  for (let j = 0; j < J; j++) v += (t[j]! - mean) ** 2 / J;
  const sd = Math.sqrt(v);
  for (let j = 0; j < J; j++) t[j] = sd > 1e-9 ? (t[j]! - mean) / sd : 0;
  return t;
}
