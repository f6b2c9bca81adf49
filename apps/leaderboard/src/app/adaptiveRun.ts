// An adaptive run's view (a package's lm-eval/nrm_adaptive.py, `llm-nrm publish --adaptive`): the
// items it asked in order, each with the round that asked it, its benchmark and whether the answer
// was right, and the SE after each round. Composed from the run's own log (its results file) and
// its samples; "right" is core's one accuracy rule (argmaxAccuracies: the most likely option is the
// key). Pure: the worker calls it, the unit test checks it.
import { LlmNrmError, OVERALL, argmaxAccuracies, type ResponseRecord } from '@llm-nrm/core';
import type { AdaptiveRunLog } from '@llm-nrm/adapters/browser';

/** One item an adaptive run asked. */
export interface AdaptiveItemRow {
  /** 1-based position in the order asked. */
  order: number;
  /** 1-based round (one batched harness call) that asked it. */
  round: number;
  id: string;
  benchmark: string;
  /** Whether the run's most likely option was the key; null where the sample has no usable answer. */
  right: boolean | null;
}

/** The SE (and theta) after a round, against the items answered by then. */
export interface AdaptivePoint {
  answered: number;
  theta: number;
  se: number;
}

export interface AdaptiveRunView {
  /** The results file the log came from. */
  file: string;
  stop: AdaptiveRunLog['stop'];
  settings: AdaptiveRunLog['settings'];
  pool: number;
  /** The runner's own final estimate (its results file), beside which the site shows its scoring. */
  theta: number;
  se: number;
  items: AdaptiveItemRow[];
  /** Every step with at least one item answered (the first step's SE is the prior placeholder, not an estimate). */
  points: AdaptivePoint[];
}

/**
 * The view of an adaptive run from its log and the records of its samples file (one model's). The
 * samples must answer exactly the items the log says were asked: otherwise the two files are not of
 * one run, and the error names both.
 */
export function adaptiveRunView(
  log: AdaptiveRunLog,
  files: { results: string; samples: string },
  records: readonly ResponseRecord[],
  items: readonly { id: string; key: number; benchmark?: string }[],
): AdaptiveRunView {
  const byItem = new Map(records.map((r) => [r.item, r]));
  const asked = new Set(log.items);
  const missing = log.items.find((id) => !byItem.has(id));
  const extra = records.find((r) => !asked.has(r.item));
  if (missing !== undefined || extra !== undefined || byItem.size !== records.length)
    throw new LlmNrmError(
      'FORMAT',
      `${files.samples} and ${files.results} are not of one adaptive run: ${
        missing !== undefined
          ? `the results file lists item ${JSON.stringify(missing)}, which the samples do not answer`
          : extra !== undefined
            ? `the samples answer item ${JSON.stringify(extra.item)}, which the results file does not list`
            : 'the samples answer an item twice'
      } (drop a run's samples_<task>_<date>.jsonl with the results_<date>.json written beside it)`,
      { file: files.results },
    );
  const meta = new Map(items.map((it) => [it.id, it]));
  const roundOf = new Map<string, number>();
  log.rounds.forEach((r, n) => r.next.forEach((id) => roundOf.set(id, n + 1)));
  const rows = log.items.map((id, n): AdaptiveItemRow => {
    const it = meta.get(id);
    const r = byItem.get(id)!;
    // Core's accuracy rule on this one answer: 1 right, 0 wrong, absent where there is no usable answer.
    const acc = it ? argmaxAccuracies([r], [it]).get(r.model)?.get(OVERALL) : undefined;
    return { order: n + 1, round: roundOf.get(id)!, id, benchmark: it?.benchmark ?? '', right: acc === undefined ? null : acc === 1 };
  });
  return {
    file: files.results,
    stop: log.stop,
    settings: log.settings,
    pool: log.pool,
    theta: log.theta,
    se: log.se,
    items: rows,
    points: log.rounds.filter((r) => r.answered > 0).map((r) => ({ answered: r.answered, theta: r.theta, se: r.se })),
  };
}

/** Why the run stopped, in words (analysis' adaptiveStep's rules, as nrm_adaptive.py applies them). */
export function stopReason(v: Pick<AdaptiveRunView, 'stop' | 'settings' | 'pool' | 'se' | 'items'>): string {
  const n = v.items.length;
  const se = v.se.toFixed(3);
  if (v.stop === 'se') return `Stopped by the SE rule: SE ${se} ≤ ${v.settings.se} after ${n} items (at least ${v.settings.minItems} asked first).`;
  if (v.stop === 'max-items') return `Stopped at the item cap: ${n} items (max ${v.settings.maxItems}), SE ${se}, short of the target ${v.settings.se}.`;
  return `Stopped when the pool ran out: all ${v.pool} items asked, SE ${se} (target ${v.settings.se}).`;
}

/** How closely the page's scoring must give the runner's own θ and SE to call them the same (issue 29's 1e-4 agreement). */
export const RUNNER_AGREEMENT = 1e-4;

/**
 * Whether the page's score of the run is the runner's own estimate (its results file): so when the
 * site scores it against the package the runner asked from; a site without that package scores it
 * against the full bank, whose estimate may differ.
 */
export function runnerAgrees(v: Pick<AdaptiveRunView, 'theta' | 'se'>, scored: { theta: number; se: number }): boolean {
  return Math.abs(v.theta - scored.theta) <= RUNNER_AGREEMENT && Math.abs(v.se - scored.se) <= RUNNER_AGREEMENT;
}
