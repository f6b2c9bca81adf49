import { argmaxAt } from '../internal/argmaxAt.js';
import type { ResponseRecord } from '../model/types.js';

/** Key of the overall accuracy in `argmaxAccuracies`' per-LLM maps (a benchmark is never named ''). */
export const OVERALL = '';

/**
 * Each LLM's argmax accuracy on the given items: the share of its responses whose most likely
 * option (the largest of probs or logprobs, the first on a tie; a hard answer's choice) is the key.
 * Per LLM, `OVERALL` ('') over all its answered responses and one entry per named benchmark.
 * Responses to items not given, and missing answers (choice null, no distribution), do not count.
 * The one accuracy rule of a tiny run and of the calibrated LLMs' curves (`llm-nrm publish`,
 * `llm-nrm score` of a package, the site's score page).
 */
export function argmaxAccuracies(
  records: Iterable<ResponseRecord>,
  items: Iterable<{ id: string; key: number; benchmark?: string }>,
): Map<string, Map<string, number>> {
  const tally = argmaxTally(items);
  for (const r of records) tally.add(r);
  return tally.result();
}

/**
 * `argmaxAccuracies` one record at a time (records are not kept: a streaming read's counter, as
 * `duplicateRowCounter`): `add` each record, then `result`, the same maps for the same records.
 */
export function argmaxTally(items: Iterable<{ id: string; key: number; benchmark?: string }>): {
  add(r: ResponseRecord): void;
  result(): Map<string, Map<string, number>>;
} {
  const byId = new Map<string, { key: number; benchmark: string }>();
  for (const it of items) byId.set(it.id, { key: it.key, benchmark: it.benchmark ?? '' });
  const tally = new Map<string, Map<string, [number, number]>>();
  const add = (r: ResponseRecord): void => {
    const it = byId.get(r.item);
    if (it === undefined) return;
    const d = r.probs ?? r.logprobs;
    const pick = d !== undefined ? argmaxAt(d, 0, d.length) : r.choice;
    if (pick === null || pick === undefined) return;
    let m = tally.get(r.model);
    if (m === undefined) tally.set(r.model, (m = new Map()));
    const right = pick === it.key ? 1 : 0;
    for (const b of it.benchmark === '' ? [OVERALL] : [OVERALL, it.benchmark]) {
      const t = m.get(b) ?? [0, 0];
      t[0] += right;
      t[1]++;
      m.set(b, t);
    }
  };
  const result = () => new Map([...tally].map(([model, m]) => [model, new Map([...m].map(([b, [right, n]]) => [b, right / n]))]));
  return { add, result };
}
