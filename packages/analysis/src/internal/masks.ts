import type { ResponseBank } from '@llm-nrm/core';

/** Observed cells of the LLMs with rows[j] = 1 (and, when given, of the columns with cols[c] = 1). */
export function rowMask(bank: ResponseBank, rows: ArrayLike<number>, cols?: ArrayLike<number>): Uint8Array {
  const nC = bank.colItem.length;
  const m = new Uint8Array(bank.observed.length);
  for (let j = 0; j < bank.models.length; j++) {
    if (!rows[j]) continue;
    for (let c = 0; c < nC; c++) if (bank.observed[j * nC + c] && (!cols || cols[c])) m[j * nC + c] = 1;
  }
  return m;
}

/** Columns whose item is selected (items[i] = 1). */
export function columnsOfItems(bank: ResponseBank, items: ArrayLike<number>): Uint8Array {
  const cols = new Uint8Array(bank.colItem.length);
  for (let c = 0; c < cols.length; c++) cols[c] = items[bank.colItem[c]!] ? 1 : 0;
  return cols;
}
