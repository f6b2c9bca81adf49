import type { ResponseRecord } from '../model/types.js';
import { IdNumbers } from './idNumbers.js';

/** Rows that repeat a (model, item, presentation) already seen, and a few of them for a report. */
export interface DuplicateRows {
  /** Rows beyond the first of their (model, item, display order). */
  count: number;
  /** Up to 5 of them: model, item and how many rows in all. */
  examples: { model: string; item: string; rows: number }[];
}

/**
 * Count repeated (model, item, presentation) rows. They are kept as replicate columns by the bank
 * (epochs, HELM trials are legitimate repeats), but a file concatenated twice looks the same, so
 * they are always reported.
 */
export function duplicateRows(records: readonly ResponseRecord[]): DuplicateRows {
  const counter = duplicateRowCounter();
  for (const r of records) counter.add(r);
  return counter.result();
}

/** `duplicateRows` one record at a time (records streamed into a bank are not kept). */
export function duplicateRowCounter(): { add(record: ResponseRecord): void; result(): DuplicateRows } {
  // Keys (the item, and its display order) and models by number; then per model typed arrays by
  // key of the rows seen and of the first one.
  const keys = new IdNumbers();
  const models = new IdNumbers();
  const counts: Int32Array[] = [];
  const firstRow: Int32Array[] = [];
  // Repeated (model, key) pairs as [model, key], in the order of their second row.
  const repeated: [number, number][] = [];
  let prevModel: string | undefined;
  let mi = -1;
  let t = -1;
  const add = (r: ResponseRecord): void => {
    t++;
    const ki = keys.number(r.position === undefined ? r.item : `${r.item}\u0000${r.position.join(',')}`);
    if (r.model !== prevModel) {
      prevModel = r.model;
      mi = models.number(r.model);
    }
    let c = counts[mi];
    if (c === undefined || ki >= c.length) {
      const size = Math.max(64, 2 * (ki + 1));
      const grown = new Int32Array(size);
      const first = new Int32Array(size);
      if (c !== undefined) {
        grown.set(c);
        first.set(firstRow[mi]!);
      }
      counts[mi] = c = grown;
      firstRow[mi] = first;
    }
    const n = ++c[ki]!;
    if (n === 1) firstRow[mi]![ki] = t;
    else if (n === 2) repeated.push([mi, ki]);
  };
  const result = (): DuplicateRows => {
    let count = 0;
    for (const [m, k] of repeated) count += counts[m]![k]! - 1;
    // The examples in the order their (model, key) first appeared, as before.
    const examples: DuplicateRows['examples'] = repeated
      .sort((a, b) => firstRow[a[0]]![a[1]]! - firstRow[b[0]]![b[1]]!)
      .slice(0, 5)
      .map(([m, k]) => {
        const key = keys.ids[k]!;
        const cut = key.indexOf('\u0000');
        return { model: models.ids[m]!, item: cut < 0 ? key : key.slice(0, cut), rows: counts[m]![k]! };
      });
    return { count, examples };
  };
  return { add, result };
}
