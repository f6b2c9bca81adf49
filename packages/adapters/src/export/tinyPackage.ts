import type { CalibrationBundle, ItemSource } from '@llm-nrm/core';

/** One row of a tiny package's items.jsonl. */
export interface TinyItem {
  item_id: string;
  benchmark: string;
  /**
   * The exact context of the calibration (or a rendered one: see `TinyBank.renderedPrompts`); ''
   * for a multiple-input item, whose contexts are per option (`contexts`).
   */
  prompt: string;
  /** The scored strings, content order (a multiple-input item's shared continuation, once per option). */
  continuations: string[];
  /**
   * A multiple-input item's per-option contexts, content order (lm-eval's winogrande form: option k
   * scored as `continuations[k]` after `contexts[k]`); absent for single-prompt items.
   */
  contexts?: string[];
  /** 0-based index of the keyed option. */
  gold: number;
  options: string[];
  source: ItemSource | null;
  content_sha256: string;
}

/** An accuracy curve on the bank's grid. */
export interface TinyAccuracy {
  /** F(theta): the calibrated LLMs' full-bank accuracy against their theta, on the grid. */
  accuracy: number[];
  residualSd: number;
  llms: number;
  /**
   * The accuracy estimator of a tiny run (analysis' `TinyAccuracyEstimator`):
   * accuracy = coef[0] + coef[1] F(theta) + coef[2] a + coef[3] log(sharpness), a the run's argmax
   * accuracy on these items, theta and sharpness its tiny-run scores; fitted over the calibrated LLMs
   * scored as tiny runs of this package; the 90% interval is +/- 1.645 residualSd. Read (packages
   * written before `run`), no longer written: it could weight the run's own accuracy negatively.
   */
  estimator?: {
    coef: [number, number, number, number];
    residualSd: number;
    llms: number;
    /** Folds of the cross-fit the calibrated LLMs' tiny runs were scored on (each on a calibration without it); absent: in sample. */
    crossFitFolds?: number;
  };
  /**
   * The run-accuracy model (analysis' `RunAccuracyModel`, `predictRunAccuracy`): the run's accuracy on
   * these items moved onto the bank by a logit shift of its chance-corrected share, blended with
   * F(theta) by `curveWeight` inside the calibrated LLMs' range of tiny accuracy and sharpness, kept in
   * the run's own 99% range; the 90% interval from `residualSd`. Written from issue 30 on, in place of `estimator`;
   * not for adaptive packages, whose runs answer items aimed at their level (the curve at theta with its SE serves).
   */
  run?: {
    chanceTiny: number;
    chanceFull: number;
    shift: number;
    curveWeight: number;
    residualSd: number;
    items: number;
    tinyAccuracyRange: [number, number];
    logSharpnessRange: [number, number];
    llms: number;
    /** The local correction on the grid: a bias added at the run's theta and the 90% interval's SD there (written from 2026-12-07). */
    local?: { bias: number[]; sd: number[] };
  };
  /** Packages written before the estimator: F(theta) + beta (a - T(theta)). Read, no longer written. */
  tiny?: { accuracy: number[]; beta: number; residualSd: number };
}

/** The stopping rule and selection of an adaptive package's runner (analysis' `AdaptiveOptions`, names alike). */
export interface AdaptiveSettings {
  /** Items per round (one batched harness call). */
  batch: number;
  /** Stop once theta's standard error is at most this ... */
  se: number;
  /** ... and at least this many items were answered. */
  minItems: number;
  /** Stop at this many items whatever the SE. */
  maxItems: number;
  /** Randomesque exposure control: each slot takes one of this many most informative items at random (1: the most informative). */
  randomesque: number;
  /** Seed of the randomesque draws. */
  seed: number;
  /** Content balancing across benchmarks. */
  balance: boolean;
}

/** bank.json of a tiny package. */
export interface TinyBank {
  format: 'llm-nrm-tiny';
  formatVersion: 1;
  name: string;
  /** Task name the harnesses see (`tiny_<name>`). */
  task: string;
  tool: { name: 'llm-nrm'; version: string };
  /** sha256 of items.jsonl (every copy in the package is byte-identical). */
  itemsSha256: string;
  /** Items whose prompt was rendered from question and options (`--render-prompt`), not the calibration's. */
  renderedPrompts: number;
  /**
   * Of those, items with no question text (or no option texts): their prompts are placeholders
   * (`Question <id>`, letters as options), published only with `--allow-placeholder-prompts`; absent: none.
   */
  placeholderPrompts?: number;
  /** Items of the bank left out of selection because `llm-nrm report` flags them (possible-wrong-key: analysis SELECTION_FLAGS); absent: none. */
  leftOut?: { id: string; flags: string[] }[];
  /**
   * How the harness-side aggregation and `llm-nrm score` score a run: theta and sharpness (prior
   * log s ~ N(fleet.logSharpness, sharpnessSd^2)), bias and fallback under N(fleet mean, fleet
   * variance) priors per position (core's `minimiseTinyRun`; packages written before the variances
   * were: at the fleet's means).
   */
  scoring: {
    nuisance: 'sharpness' | 'fleet';
    thetaSd: number;
    sharpnessSd: number;
    pFloor: number;
    fleet: { sbar: number; delta: number[]; rho: number[]; logSharpness: number; deltaVar?: number[]; rhoVar?: number[] };
  };
  /** Expected full-bank accuracy of an LLM of ability theta, per benchmark and overall. */
  accuracy: { grid: number[]; overall: TinyAccuracy; benchmarks: Record<string, TinyAccuracy> };
  /** The calibration bundle restricted to the selected items (all calibrated LLMs kept). */
  bundle: CalibrationBundle;
  /**
   * An adaptive package (`llm-nrm publish --adaptive`): the items are the whole calibrated pool and
   * lm-eval/nrm_adaptive.py asks each model the items most informative at its estimate (analysis'
   * `adaptiveStep`), with these settings as its defaults; absent: a tiny package (every item asked).
   */
  adaptive?: AdaptiveSettings;
  /** Which parallel form this is (A, B, ...) of how many, when several were made (they share no item). */
  form?: { name: string; of: number };
  provenance: { createdAt: string; command?: string; bundle?: { path: string; sha256: string }; responses?: { path: string; sha256: string } };
}

/** What every exporter is given. */
export interface TinyPackage {
  bank: TinyBank;
  /** bank.json exactly as written (its sha256 is recorded in the harness task files). */
  bankJson: string;
  bankSha256: string;
  items: TinyItem[];
  /** items.jsonl exactly as written. */
  itemsJsonl: string;
}

/** Whether a package's items are multiple-input (per-option contexts): they all are, or none is. */
export function multipleInputItems(items: readonly TinyItem[]): boolean {
  return items.length > 0 && items.every((it) => it.contexts !== undefined);
}

/** items.jsonl text: one JSON object per line, `\n` line ends. */
export function tinyItemsJsonl(items: readonly TinyItem[]): string {
  return items.map((it) => JSON.stringify(it)).join('\n') + '\n';
}
