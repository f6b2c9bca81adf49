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
  const seen = new Map<string, number>();
  for (const r of records) {
    const k = `${r.model}\u0000${r.item}\u0000${r.position?.join(',') ?? ''}`;
    seen.set(k, (seen.get(k) ?? 0) + 1);
  }
  let count = 0;
  const examples: DuplicateRows['examples'] = [];
  for (const [k, n] of seen) {
    if (n < 2) continue;
    count += n - 1;
    if (examples.length < 5) {
      const [model, item] = k.split('\u0000') as [string, string];
      examples.push({ model, item, rows: n });
    }
  }
  return { count, examples };
}
