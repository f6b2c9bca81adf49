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
  /**
   * An added run of the site's tiny package: `accuracy` (and `benchmarks`) are its predicted
   * full-bank accuracies, not its accuracy on the package's items; these are their 90% intervals.
   */
  predicted?: Record<string, { accuracy: number; low: number; high: number }>;
  /**
   * How an added model's nuisances were scored (core's `LlmScore.nuisance`): only 'fit' fits its own
   * position bias and fallback; otherwise they are the calibrated fleet's means (priors), not the model's.
   */
  nuisance?: 'fit' | 'fleet' | 'sharpness';
}

/** Whether a row's position bias and fallback are its own (fitted), not the fleet's means standing in. */
export function ownBias(r: Pick<BoardRow, 'added' | 'nuisance'>): boolean {
  return !r.added || r.nuisance === undefined || r.nuisance === 'fit';
}

/** Whether a row's sharpness is its own (fitted): 'fleet' holds it at the fleet's mean too. */
export function ownSharpness(r: Pick<BoardRow, 'added' | 'nuisance'>): boolean {
  return !r.added || r.nuisance !== 'fleet';
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
