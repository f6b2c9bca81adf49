import { bootstrapSd } from './bootstrapSd.js';
import { kendallTau } from './kendallTau.js';
import type { Ranking } from './parseRanking.js';
import { spearmanRho } from './spearmanRho.js';

export interface RankAgreementRow {
  /** Which score (e.g. 'LLM-NRM theta', 'raw accuracy'). */
  score: string;
  n: number;
  spearman: number;
  spearmanSd: number;
  kendall: number;
  kendallSd: number;
}

export interface RankAgreement {
  rows: RankAgreementRow[];
  /** Models found in both. */
  matched: string[];
  /** Models of ours without an external score, and external models we do not have. */
  missingExternal: string[];
  missingOurs: string[];
}

/**
 * Agreement of our scores (abilities, raw accuracy, ...) with an external ranking (paper.md, Table 2):
 * Spearman and Kendall tau-b over the matched models, with bootstrap SDs over models (seeded; the
 * same resamples for every score, so the rows are comparable).
 */
export function rankAgreement(
  models: string[],
  scores: Record<string, ArrayLike<number>>,
  external: Ranking,
  options: { samples?: number; seed?: number } = {},
): RankAgreement {
  const ext = new Map<string, number>();
  external.models.forEach((m, t) => ext.set(m, external.scores[t]!));
  const ours = new Set(models);
  const idx: number[] = [];
  const matched: string[] = [];
  models.forEach((m, j) => {
    if (ext.has(m)) {
      idx.push(j);
      matched.push(m);
    }
  });
  const y = Float64Array.from(matched, (m) => ext.get(m)!);
  const rows: RankAgreementRow[] = [];
  for (const [name, s] of Object.entries(scores)) {
    const xs = Float64Array.from(idx, (j) => s[j]!);
    const boot = { samples: options.samples ?? 1000, seed: options.seed ?? 1 };
    rows.push({
      score: name,
      n: idx.length,
      spearman: spearmanRho(xs, y),
      spearmanSd: bootstrapSd(xs, y, spearmanRho, boot),
      kendall: kendallTau(xs, y),
      kendallSd: bootstrapSd(xs, y, kendallTau, boot),
    });
  }
  return {
    rows,
    matched,
    missingExternal: models.filter((m) => !ext.has(m)),
    missingOurs: external.models.filter((m) => !ours.has(m)),
  };
}
