import { rankIntervals } from './rankIntervals.js';

/** Coverage of a scored run's rank interval: the leaderboard's (its rank intervals and tie groups are 95%). */
export const RUN_RANK_LEVEL = 0.95;
/** Draws and seed of the rank intervals' Monte Carlo, the leaderboard build's defaults. */
export const RUN_RANK_DRAWS = 2000;
export const RUN_RANK_SEED = 1;

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
 * The rank interval of one scored run among the calibrated LLMs: analysis' `rankIntervals` over the
 * calibrated LLMs (theta descending, ties by id, so the draws do not depend on the caller's order)
 * and the run last, at `RUN_RANK_LEVEL` with the leaderboard's draws and seed. The one rule of
 * `llm-nrm score` and the site's score page and board, so both show one interval for one run. A run
 * whose SE is not finite could take any rank: 1 to of.
 */
export function runRankInterval(
  calibrated: readonly { id: string; theta: number; se: number | null }[],
  run: { theta: number; se: number },
  options: { level?: number } = {},
): RunRank {
  const level = options.level ?? RUN_RANK_LEVEL;
  const sorted = calibrated.slice().sort((a, b) => b.theta - a.theta || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const of = sorted.length + 1;
  const rank = 1 + sorted.filter((l) => l.theta > run.theta).length;
  if (!Number.isFinite(run.se)) return { rank, lo: 1, hi: of, of, level };
  const ri = rankIntervals([...sorted.map((l) => l.theta), run.theta], [...sorted.map((l) => l.se), run.se], {
    draws: RUN_RANK_DRAWS,
    seed: RUN_RANK_SEED,
    level,
  });
  const t = sorted.length;
  return { rank: ri.rank[t]!, lo: ri.lo[t]!, hi: ri.hi[t]!, of, level };
}
