// The calibration bundle's shape, types only: a leaf that the family seam (model/family.ts)
// and the families' bundle mappings can import without importing bundle.ts, which reads fits.
import type { Priors } from '../model/objective.js';
import type { ItemSource, LlmNrmParts, ModelName } from '../model/types.js';

/** The calibration bundle (schema: schema/calibration-bundle.schema.json, `schemaVersion` 1). */
export interface CalibrationBundle {
  schemaVersion: 1;
  model: ModelName;
  parts: LlmNrmParts;
  priors?: Priors;
  kMax: number;
  llms: BundleLlm[];
  items: BundleItem[];
  globals: { w0: number; kappa: number };
  fit: {
    model: string;
    loss: number;
    iterations: number;
    passes: number;
    seconds: number;
    converged: boolean;
    reason?: string;
    distance?: number | null;
    optimizer: string;
    engine: string;
    cells?: number;
    /** How many items were fitted without a key (absent: every item keyed). */
    keyFree?: number;
    /** How the SEs were computed (FitOptions.seMode; 'fisher' under scoring). */
    seMode?: string;
  };
  provenance: { tool: string; version: string; createdAt: string; inputs?: { path: string; sha256: string }[]; seed?: number; command?: string };
  /** What the data cannot support (design checks, item versions): shown with any leaderboard. */
  warnings?: BundleWarning[];
}

/** One warning of a bundle: a code to branch on, a sentence, and the LLMs or items concerned. */
export interface BundleWarning {
  code: string;
  message: string;
  llms?: string[];
  items?: string[];
}

export interface BundleLlm {
  id: string;
  theta: number;
  /** Standard error of theta (null when not computed or not identified). */
  se: number | null;
  /** false when theta is not identified (infinite SE: the CLI prints 'unidentified'). */
  identified?: boolean;
  sharpness: number;
  /** delta_j over displayed positions 0..kMax-1 (sum to zero). */
  positionBias: number[];
  /** rho_j over displayed positions (sum to zero). */
  fallback: number[];
  /** Share of observed cells whose argmax was the key. */
  accuracy?: number;
  cells?: number;
}

export interface BundleItem {
  id: string;
  /** The keyed option; with `keyFree` the fleet-consensus anchor, never a key. */
  key: number;
  /** No record gave the item a key (key-free fitting): keyed outputs refuse it. */
  keyFree?: true;
  nOptions: number;
  benchmark?: string;
  options?: string[];
  /** Option slopes, content order, sum to zero (empty for binary models). */
  a: number[];
  /** Option intercepts, content order, sum to zero (empty for binary models). */
  c: number[];
  difficulty: number;
  /** Binary models: discrimination, intercept, guess and upper asymptote. */
  irt?: { discrimination: number; intercept: number; guess: number; upper: number };
  informativeDistractors?: number[];
  /** Where the item came from in its harness. */
  source?: ItemSource;
  /** `itemContentSha256(prompt, continuations)` of the calibration text. */
  contentSha256?: string;
}
