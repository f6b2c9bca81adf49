// Shapes of the site's data shards (written by siteData, read by the pages). Types only, so both
// the Node build and the browser app import them.
import type { CalibrationBundle, LlmNrmParts, ModelName } from '@llm-nrm/core';
import type { PackageAccuracy } from '@llm-nrm/analysis';

export interface Manifest {
  version: number;
  title: string;
  model: ModelName;
  parts: LlmNrmParts;
  kMax: number;
  llms: number;
  items: number;
  benchmarks: { id: number; name: string; items: number; shards: number }[];
  /** Whether the calibrated LLMs' responses were given (preferred options, bias intervals). */
  hasResponses: boolean;
  /**
   * The published tiny subset; `task` where the site was given the whole package (bank.json with its
   * scoring and accuracy models): then data/tiny.json lets the score page score its runs. `adaptive`
   * where the package is adaptive (`publish --adaptive`): its items are the pool its runner asks from.
   */
  tiny: { source: string; items: number; task?: string; adaptive?: boolean } | null;
  /** Lowest and highest calibrated theta: a score outside is an extrapolation. */
  calibratedRange: [number, number];
  /**
   * The calibration fit's diagnostics: `settled` false when it ended farther than 1 SE from its
   * optimum (core's fitConvergence; its UNCONVERGED warning comes first in `warnings`).
   */
  fit: { loss: number; converged: boolean; settled: boolean; distance: number | null; optimizer: string; cells: number | null };
  provenance: { tool: string; version: string; createdAt: string };
  rankDraws: number;
  rankSeed: number;
  /** The bundle's warnings (design checks, item versions): shown with the leaderboard. */
  warnings: { code: string; message: string; llms?: string[]; items?: string[] }[];
}

export interface LeaderboardRow {
  id: string;
  theta: number;
  se: number | null;
  /** 95% interval of theta, theta -+ 1.96 se. */
  lo: number | null;
  hi: number | null;
  rank: number;
  /** Monte Carlo rank interval at analysis RANK_LEVEL (90%). */
  rankLo: number;
  rankHi: number;
  /** Tie group (1 = top). */
  group: number;
  accuracy: number | null;
  cells: number | null;
  sharpness: number;
  /** max_k rho_k - min_k rho_k: how strongly its fallback leans to a displayed position (logits). */
  fallbackStrength: number;
  /** Mean fallback gate over its items, as ModelShard.fallbackUse (null: no fallback, or a model scored in the page). */
  fallbackUse: number | null;
  positionBias: number[];
  fallback: number[];
  /** Codes of the bundle warnings that name this LLM. */
  warnings: string[];
  /** Accuracy per benchmark (manifest order), null where it answered none; null without responses. */
  benchmarks: (number | null)[] | null;
}

export interface LeaderboardShard {
  version: number;
  /** Theta descending. */
  llms: LeaderboardRow[];
}

export interface SeparatingItem {
  id: string;
  benchmark: number;
  shard: number;
  /** Text of the keyed option, when the bundle has option texts. */
  keyText: string | null;
  /** Mean probability on the key (observed) or P(key) at its theta (model), this LLM and the neighbour. */
  self: number;
  other: number;
  observed: boolean;
}

export interface ModelShard {
  version: number;
  id: string;
  index: number;
  information: { benchmark: string; items: number; total: number; binary: number; wrong: number }[];
  paramSe: { theta: number; positionBias: number[]; fallback: number[] } | null;
  /**
   * Mean fallback gate G = sigmoid(w0 - kappa (theta - b_i)) over the items it answered (all the
   * bank's items without responses): the share of its choices the fallback is fitted to explain.
   * Near 0 (gate shut) its fallback pattern is not estimated from data and any interval is the prior's.
   * Null where the model has no fallback.
   */
  fallbackUse: number | null;
  accuracy: { benchmark: string; accuracy: number | null; cells: number }[] | null;
  neighbours: { id: string; index: number; relation: 'above' | 'below'; items: SeparatingItem[] }[];
}

export interface ItemEntry {
  id: string;
  key: number;
  nOptions: number;
  options: string[] | null;
  a: number[];
  c: number[];
  difficulty: number;
  irt: { discrimination: number; intercept: number; guess: number; upper: number } | null;
  flags: string[];
  quality: { topAtHigh: number; keySlope: number; spread: number; dominant: number; dominantMass: number } | null;
  /**
   * The key audit's verdict (analysis keyAudit): set when the option the curves favour at highTheta is
   * not the key, with logit(implied) - logit(key) there and sigmoid of it; null when they agree.
   */
  keyAudit: { highTheta: number; implied: number; margin: number; confidence: number } | null;
  informative: number[];
  /** Information averaged over N(0, 1) abilities, split. */
  information: { total: number; binary: number; wrong: number };
  /** Preferred option per board row (-1: no response), and the mean probability it got. */
  preferred: number[] | null;
  preferredQ: number[] | null;
}

export interface ItemShard {
  version: number;
  benchmark: string;
  shard: number;
  items: ItemEntry[];
}

export interface ItemRow {
  id: string;
  shard: number;
  nOptions: number;
  difficulty: number;
  information: number;
  flags: string[];
  stem: string | null;
  keyText: string | null;
}

export interface Curve {
  total: number[];
  binary: number[];
  wrong: number[];
  se: (number | null)[];
}

export interface BenchmarkShard {
  version: number;
  id: string;
  name: string;
  items: number;
  theta: number[];
  full: Curve;
  tiny: (Curve & { items: number }) | null;
  compression: { budget: number; kendall: number; kendallRandom: number | null }[] | null;
}

/**
 * A published tiny package's scoring (data/tiny.json): what `llm-nrm score <package>` scores a run
 * of it with, so the score page gives a tiny run the same theta, rank interval and predicted
 * full-bank accuracy.
 */
export interface TinyScoringShard {
  version: number;
  /** The package's task (`tiny_<name>`) and bank.json's sha256. */
  task: string;
  bankSha256: string;
  /** bank.json's `scoring` (its `nuisance` is the scoring mode of its runs). */
  scoring: { nuisance: 'sharpness' | 'fleet'; thetaSd: number; sharpnessSd: number; pFloor: number };
  /** bank.json's accuracy models (analysis' `predictPackageAccuracy` reads them). */
  accuracy: PackageAccuracy;
  /** The bundle its runs are scored against (adapters' `tinyScoringBundle`). */
  bundle: CalibrationBundle;
}
