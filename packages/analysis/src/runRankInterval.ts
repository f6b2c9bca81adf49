import { placeAmong, RANK_LEVEL } from './rankIntervals.js';

/** A scored run's rank among the calibrated LLMs plus itself, with its rank interval. */
export interface RunRank {
  /** 1 + the calibrated LLMs with a higher theta (core's `place`). */
  rank: number;
  /** The central `level` interval of its rank (1 = best). */
  lo: number;
  hi: number;
  /** Out of: the calibrated LLMs plus this run. */
  of: number;
  level: number;
}

/**
 * The rank interval of one scored run among a bundle's calibrated LLMs: `placeAmong` (the run's
 * difference to each LLM carries both SEs) at `RANK_LEVEL` with the leaderboard's draws and seed,
 * the LLMs taken theta descending, ties by id, so the draws do not depend on the caller's order.
 * The one rule of `llm-nrm score` and the site's score page, so both show one interval for one run.
 * A run whose SE is not finite could take any rank: 1 to of.
 */
export function runRankInterval(
  calibrated: readonly { id: string; theta: number; se: number | null }[],
  run: { theta: number; se: number },
  options: { level?: number } = {},
): RunRank {
  const level = options.level ?? RANK_LEVEL;
  const sorted = calibrated.slice().sort((a, b) => b.theta - a.theta || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const p = placeAmong(
    sorted.map((l) => l.theta),
    sorted.map((l) => l.se),
    run.theta,
    run.se,
    { level },
  );
  return { rank: p.rank, lo: p.lo, hi: p.hi, of: sorted.length + 1, level };
}
