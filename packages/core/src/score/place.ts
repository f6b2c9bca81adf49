import type { CalibrationBundle } from '../data/bundleFormat.js';

/** A scored LLM placed among the bundle's calibrated LLMs. */
export interface Placement {
  /** 1-based rank of the new LLM among the calibrated ones plus itself. */
  rank: number;
  /** Out of: the calibrated LLMs plus this one. */
  of: number;
  /** Share (0-100) of calibrated LLMs with a lower theta (ties count half). */
  percentile: number;
  /** The calibrated LLMs just above and just below it. */
  above: { id: string; theta: number } | null;
  below: { id: string; theta: number } | null;
}

/**
 * Where `theta` falls among the bundle's calibrated LLMs: rank 1 + the number of calibrated LLMs
 * with a higher theta (the leaderboard's ranking rule: equal thetas share the better rank).
 */
export function place(bundle: Pick<CalibrationBundle, 'llms'>, theta: number): Placement {
  const sorted = bundle.llms.slice().sort((a, b) => b.theta - a.theta);
  let higher = 0;
  let ties = 0;
  for (const l of sorted) {
    if (l.theta > theta) higher++;
    else if (l.theta === theta) ties++;
  }
  const n = sorted.length;
  const lower = n - higher - ties;
  const pick = (i: number) => (i >= 0 && i < n ? { id: sorted[i]!.id, theta: sorted[i]!.theta } : null);
  return {
    rank: higher + 1,
    of: n + 1,
    percentile: n > 0 ? (100 * (lower + ties / 2)) / n : NaN,
    above: pick(higher - 1),
    below: pick(higher + ties),
  };
}
