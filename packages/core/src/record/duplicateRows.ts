import type { ResponseRecord } from '../types.js';

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
  // Per model, per item (and display order): the item string itself is the key where there is no
  // position, so no key string is built per record (378,000 at 189 x 2,000). Each key's count sits
  // in first-appearance order, as the examples are reported.
  const seen = new Map<string, Map<string, number>>();
  const counts: number[] = [];
  const models: string[] = [];
  const keys: string[] = [];
  for (const r of records) {
    let m = seen.get(r.model);
    if (m === undefined) seen.set(r.model, (m = new Map()));
    const k = r.position === undefined ? r.item : `${r.item}\u0000${r.position.join(',')}`;
    const at = m.get(k);
    if (at === undefined) {
      m.set(k, counts.length);
      counts.push(1);
      models.push(r.model);
      keys.push(k);
    } else counts[at]!++;
  }
  let count = 0;
  const examples: DuplicateRows['examples'] = [];
  for (let t = 0; t < counts.length; t++) {
    const n = counts[t]!;
    if (n < 2) continue;
    count += n - 1;
    if (examples.length < 5) {
      const k = keys[t]!;
      const cut = k.indexOf('\u0000');
      examples.push({ model: models[t]!, item: cut < 0 ? k : k.slice(0, cut), rows: n });
    }
  }
  return { count, examples };
}
