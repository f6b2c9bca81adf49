// What the visitor added (models scored in this tab): kept in memory only, never sent anywhere.
import { rankIntervals } from '@llm-nrm/analysis';
import type { LeaderboardRow, Manifest } from '@llm-nrm/site/types';

export interface BoardRow extends LeaderboardRow {
  /** Index of the calibrated LLM's shards, or -1 for a model scored in this page. */
  index: number;
  added: boolean;
  /** Theta outside the calibrated LLMs' range: an extrapolation. */
  outOfRange: boolean;
  /** File the added model was scored from. */
  source?: string;
}

export const added: BoardRow[] = [];

/**
 * The board with the visitor's models merged in. Rank intervals and tie groups are recomputed with
 * analysis' rankIntervals (same draws and seed as the build) when anything was added.
 */
export function board(calibrated: LeaderboardRow[], manifest: Manifest): BoardRow[] {
  const [lo, hi] = manifest.calibratedRange;
  const rows: BoardRow[] = calibrated.map((r, i) => ({ ...r, index: i, added: false, outOfRange: false }));
  if (added.length === 0) return rows;
  const all = [...rows, ...added.map((r) => ({ ...r, outOfRange: r.theta < lo || r.theta > hi }))];
  all.sort((a, b) => b.theta - a.theta || (a.id < b.id ? -1 : 1));
  const ri = rankIntervals(
    all.map((r) => r.theta),
    all.map((r) => r.se),
    { draws: manifest.rankDraws, seed: manifest.rankSeed },
  );
  return all.map((r, t) => ({ ...r, rank: ri.rank[t]!, rankLo: ri.lo[t]!, rankHi: ri.hi[t]!, group: ri.group[t]! }));
}
