import { bankFromRecords, correctness, type BankStats } from '../data/bank.js';
import { bundleItems, bundleParameters } from '../data/bundle.js';
import type { CalibrationBundle } from '../data/bundleFormat.js';
import type { Engine } from '../engines.js';
import { fit } from '../fit/fit.js';
import { familyOfLayout } from '../model/registry.js';
import { hardOnlyRow } from '../model/llmNrm/hardOnlyModels.js';
import { scoreThetaAlone } from './scoreThetaAlone.js';
import type { OptimizeProgress } from '../fit/optimizer.js';
import type { RecordSource, ResponseRecord } from '../model/types.js';

export interface ScoreOptions {
  /** Where each record came from (same index), for error messages. */
  sources?: RecordSource[];
  file?: string;
  /** Skip (and count) records that are invalid or for items not in the bundle. Default false. */
  skipInvalid?: boolean;
  onProgress?: (p: OptimizeProgress & { phase: string }) => void;
  /**
   * SD of the prior on a new LLM's theta. Default 3: the calibration's thetas carry no prior (the
   * fleet is standardised instead), so a tight N(0, 1) here would pull new LLMs toward the middle
   * of the leaderboard relative to the calibrated ones; a weak prior keeps scores from a handful of
   * items, or all-correct answers, finite. Pass 1 for the paper's N(0, 1) MAP.
   */
  thetaSd?: number;
  /** Engine of the per-LLM fits (an Engine or a registered name; default 'ts'). */
  engine?: Engine | string;
  /**
   * How an LLM's sharpness, positional bias and fallback are scored (LLM-NRM bundles):
   * 'fit' fits them with theta (items fixed); 'fleet' holds all three at the calibrated LLMs' means
   * and fits theta alone; 'sharpness' fits theta and sharpness (log-normal prior centred on the
   * fleet), bias and fallback under the fleet's spread as priors (`scoreThetaAlone`, `minimiseTinyRun`); 'auto' (default) takes
   * 'sharpness' for an LLM that answered fewer than `FLEET_NUISANCE_BELOW` distinct items, else
   * 'fit'. From a handful of items bias and fallback are barely identified (one presentation per
   * item cannot tell position from content) and trade off against theta: on the NAEP fixture at
   * 41 range-selected items a full fit ranked held-out LLMs at Kendall 0.41, 'sharpness' 0.67; on a
   * simulated 100 x 1,000 fleet 0.94 vs 0.92; from 100 items on the full fit is ahead on both
   * (packages/analysis/BENCHMARKS.md, tiny benchmarks).
   */
  nuisance?: 'fit' | 'fleet' | 'sharpness' | 'auto';
}

/** Below this many answered items, 'auto' scoring shrinks bias and fallback to the fleet's (mode 'sharpness'). */
export const FLEET_NUISANCE_BELOW = 100;

export interface LlmScore {
  id: string;
  theta: number;
  /** Standard error of theta from the LLM's own information (items fixed). */
  se: number;
  sharpness: number;
  positionBias: number[];
  fallback: number[];
  /** Observed cells (item presentations) the score rests on. */
  cells: number;
  /** Share of those cells answered correctly (argmax = key). */
  accuracy: number;
  /** Distinct items the score rests on. */
  items: number;
  /** How the nuisance parameters were scored (see `ScoreOptions.nuisance`). */
  nuisance: 'fit' | 'fleet' | 'sharpness';
  /**
   * Every answer scored is hard (a choice, or all mass on one option: `hardOnlyRow`). Fitted ('fit',
   * 'sharpness'), such an LLM's sharpness is held at 1: one-hot answers cannot identify it.
   */
  hardAnswers: boolean;
}

export interface ScoreResult {
  llms: LlmScore[];
  stats: BankStats;
  /**
   * The joint fit's final negative log posterior; when no LLM needed the joint fit (every one
   * scored alone, `nuisance` 'fleet' or 'sharpness'), the sum of their own scoring objectives.
   */
  loss: number;
  /** Whether the joint fit converged (true when none was needed: the 1-D searches always end). */
  converged: boolean;
}

/**
 * Place new LLMs on a calibrated scale (DESIGN.md, use 3): item parameters and globals stay at the
 * bundle's values; each LLM's theta (MAP under a weak N(0, 3^2) prior), sharpness, positional bias and
 * fallback are fitted to its responses, with a standard error of theta from its observed
 * information. The priors on sharpness (log-normal) and on bias and fallback keep a score from a
 * handful of items finite; with few items the SE says how little it knows.
 */
export function scoreResponses(bundle: CalibrationBundle, records: Iterable<ResponseRecord>, options: ScoreOptions = {}): ScoreResult {
  const { bank, stats } = bankFromRecords(records, {
    items: bundleItems(bundle),
    dropEmpty: false,
    ...(options.sources ? { sources: options.sources } : {}),
    ...(options.file !== undefined ? { file: options.file } : {}),
    ...(options.skipInvalid ? { skipInvalid: true } : {}),
  });
  // New LLMs start from the prior, not from a same-named calibrated LLM.
  const start = bundleParameters({ ...bundle, llms: [] }, bank);
  const family = familyOfLayout(start.layout);
  const nC = bank.colItem.length;
  const mode = options.nuisance ?? 'auto';
  const y = correctness(bank);
  const counts = bank.models.map((_, j) => {
    let cells = 0;
    let right = 0;
    const seen = new Set<number>();
    for (let c = 0; c < nC; c++) {
      if (!bank.observed[j * nC + c]) continue;
      cells++;
      seen.add(bank.colItem[c]!);
      right += y[j * nC + c]!;
    }
    return { cells, right, items: seen.size };
  });
  // A family without nuisance parameters (binary) is always fitted.
  const modes = counts.map((n): 'fit' | 'fleet' | 'sharpness' =>
    family.kind !== 'option-level' ? 'fit' : mode === 'auto' ? (n.items < FLEET_NUISANCE_BELOW ? 'sharpness' : 'fit') : mode,
  );
  // The joint fit (items fixed, so each LLM's parameters are its own problem) runs only when some LLM
  // is scored by it: an LLM scored alone gets its theta from `scoreThetaAlone`, which reads nothing
  // the joint fit would have left in its slots, so a tiny benchmark's run (every LLM below
  // FLEET_NUISANCE_BELOW items) costs no fit whose result would be overwritten.
  let L = start.layout;
  let x: Float64Array = start.x;
  let se: Float64Array = new Float64Array(bank.models.length).fill(Infinity);
  let loss = 0;
  let converged = true;
  if (modes.includes('fit')) {
    const res = fit(bank, {
      model: bundle.model,
      parts: bundle.parts,
      ...(bundle.priors ? { priors: bundle.priors } : {}),
      init: start.x,
      fixItems: true,
      identification: 'prior',
      thetaSd: options.thetaSd ?? 3,
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      ...(options.engine !== undefined ? { engine: options.engine } : {}),
    });
    L = res.layout;
    x = res.x;
    se = res.se;
    loss = res.loss;
    converged = res.converged;
  }
  const llms = bank.models.map((id, j): LlmScore => {
    const used = modes[j]!;
    const hardAnswers = hardOnlyRow(bank, j);
    if (used !== 'fit') {
      const t = scoreThetaAlone(bank, L, x, j, bundle, options.thetaSd ?? 3, used === 'sharpness', hardAnswers);
      x[L.theta + j] = t.theta;
      se[j] = t.se;
      if (!modes.includes('fit')) loss += t.loss;
    }
    const n = counts[j]!;
    const base = {
      id,
      theta: x[L.theta + j]!,
      se: se[j]!,
      cells: n.cells,
      accuracy: n.cells > 0 ? n.right / n.cells : 0,
      items: n.items,
      nuisance: used,
      hardAnswers,
    };
    return { ...base, ...family.bundleLlm(L, x, j) };
  });
  return { llms, stats, loss, converged };
}
