// Scoring worker: parses the dropped file and composes what `llm-nrm score` composes (core's
// scoreResponses, analysis' runRankInterval and, for a tiny package's run, predictPackageAccuracy),
// off the main thread so the page stays responsive. Beside a run's samples the visitor may drop its
// lm-eval results file: an adaptive run's (a package's lm-eval/nrm_adaptive.py) carries the items it
// asked in order and its SE after each round, which the result shows (adaptiveRun.ts). Nothing is sent anywhere: the only fetches are
// the site's own data/bundle.json and, where the site carries a tiny package, data/tiny.json.
import { LlmNrmError, argmaxAccuracies, scoreResponses, type CalibrationBundle, type LlmScore, type ResponseRecord } from '@llm-nrm/core';
import { predictPackageAccuracy, runRankInterval, type RunRank } from '@llm-nrm/analysis';
import {
  isLmEvalResultsText,
  packageRunRecord,
  parseLmEvalResultsText,
  parseLmEvalSamplesText,
  parseSamplesName,
  parseTidyJsonlText,
  sniffResponsesText,
  type LmEvalResultsText,
  type OptionScoring,
} from '@llm-nrm/adapters/browser';
import type { TinyScoringShard } from '@llm-nrm/site/types';
import { adaptiveRunView, type AdaptiveRunView } from './adaptiveRun.js';

export interface ScoreRequest {
  type: 'score';
  bundleUrl: string;
  /** data/tiny.json where the manifest says the site carries a tiny package's scoring, else null. */
  tinyUrl: string | null;
  /**
   * The dropped files: one responses file (tidy records or lm-eval samples) and, for an lm-eval run,
   * at most one results_<date>.json of the same run (its model name, and an adaptive run's log).
   */
  files: { name: string; text: string }[];
  /** Model id for lm-eval samples (a samples file carries none; a results file's model_name wins). */
  model: string;
  score: OptionScoring;
  skipInvalid: boolean;
}

/** A full-bank accuracy prediction with its 90% interval (analysis' `predictPackageAccuracy`). */
export interface PredictedAccuracy {
  accuracy: number;
  low: number;
  high: number;
}

/** One scored model, with what `llm-nrm score` prints beside its theta. */
export interface ScoredRun extends LlmScore {
  /** analysis' `runRankInterval` among the calibrated LLMs (`llm-nrm score`'s "rank lo-hi of n"). */
  rankInterval: RunRank;
  /**
   * A tiny package's run: its predicted full-bank accuracy, overall ('overall') and per benchmark,
   * as `llm-nrm score <package>` prints it; null for a run scored against the full bank (its own
   * accuracy is then an accuracy on the bank's items).
   */
  predicted: Record<string, PredictedAccuracy> | null;
}

export type ScoreReply =
  | { type: 'progress'; message: string }
  | {
      type: 'result';
      format: 'tidy' | 'lm-eval';
      /** The responses file scored (the other dropped file, if any, was its results file). */
      file: string;
      /** 'package': scored as a run of the site's tiny package (its task and bundle); 'bank': against the full bank. */
      scoredAs: { kind: 'package'; task: string; items: number; nuisance: string } | { kind: 'bank'; items: number };
      llms: ScoredRun[];
      records: number;
      cells: number;
      unknown: number;
      skipped: number;
      converged: boolean;
      notes: string[];
      /** An adaptive run (its results file has nrm_adaptive's log): the items asked and the SE after each round. */
      adaptive: AdaptiveRunView | null;
    }
  | { type: 'error'; message: string; code: string | null };

let bundle: Promise<CalibrationBundle> | null = null;
let tiny: Promise<TinyScoringShard> | null = null;

function post(m: ScoreReply): void {
  (self as unknown as { postMessage(m: ScoreReply): void }).postMessage(m);
}

async function load<T>(url: string, what: string): Promise<T> {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`cannot load ${what}: HTTP ${r.status}`);
  return (await r.json()) as T;
}

/**
 * A run of the site's tiny package: every response is to one of the package's items (an lm-eval
 * samples file of its task carries the item ids). Such a run is scored as `llm-nrm score <package>`
 * scores it; anything else against the full bank, as `llm-nrm score bundle.json`.
 */
function isPackageRun(records: readonly ResponseRecord[], pkg: TinyScoringShard): boolean {
  const ids = new Set(pkg.bundle.items.map((it) => it.id));
  return records.length > 0 && records.every((r) => ids.has(r.item));
}

/** The responses file and the results file among the dropped ones; an error names what is one too many or missing. */
function pickFiles(files: ScoreRequest['files']): { responses: ScoreRequest['files'][number]; results: ScoreRequest['files'][number] | null } {
  const results = files.filter((f) => isLmEvalResultsText(f.text));
  const responses = files.filter((f) => !results.includes(f));
  if (results.length > 1)
    throw new LlmNrmError('FORMAT', `one results file at a time (dropped ${results.map((f) => f.name).join(', ')}): drop the one written with the samples`, {
      file: results[1]!.name,
    });
  if (responses.length > 1)
    throw new LlmNrmError(
      'FORMAT',
      `one responses file at a time (dropped ${responses.map((f) => f.name).join(', ')}), with its results file for an lm-eval run`,
      {
        file: responses[1]!.name,
      },
    );
  if (responses.length === 0)
    throw new LlmNrmError(
      'FORMAT',
      "an lm-eval results file holds no answers to score: drop the run's samples_<task>_<date>.jsonl with it (both files at once)",
      { file: results[0]?.name ?? '(no file)' },
    );
  return { responses: responses[0]!, results: results[0] ?? null };
}

async function run(req: ScoreRequest): Promise<void> {
  bundle ??= load<CalibrationBundle>(req.bundleUrl, 'the calibration bundle');
  let full: CalibrationBundle;
  try {
    full = await bundle;
  } catch (e) {
    bundle = null;
    throw e;
  }
  let pkg: TinyScoringShard | null = null;
  if (req.tinyUrl !== null) {
    tiny ??= load<TinyScoringShard>(req.tinyUrl, "the tiny package's scoring");
    try {
      pkg = await tiny;
    } catch (e) {
      tiny = null;
      throw e;
    }
  }
  const { responses, results } = pickFiles(req.files);
  const format = sniffResponsesText(responses.text);
  if (format === null)
    throw new LlmNrmError('FORMAT', 'neither tidy JSON Lines (model, item, key, ...) nor lm-eval samples (doc_id, arguments, resps, ...)', {
      file: responses.name,
      line: 1,
    });
  if (results !== null && format !== 'lm-eval')
    throw new LlmNrmError('FORMAT', `an lm-eval results file goes with lm-eval samples, and ${responses.name} is tidy records: drop it alone`, {
      file: results.name,
    });
  // The results file's model_name is the run's model (as llm-nrm score reads a run's folder); its tasks must include the samples'.
  const resultsDoc: LmEvalResultsText | null = results === null ? null : parseLmEvalResultsText(results.text, { file: results.name });
  const task = parseSamplesName(responses.name)?.task;
  if (resultsDoc !== null && task !== undefined && !resultsDoc.tasks.includes(task))
    throw new LlmNrmError(
      'FORMAT',
      `the results of tasks ${resultsDoc.tasks.join(', ')}, not of ${responses.name}'s task ${task}: drop the results file written with it`,
      {
        file: results!.name,
      },
    );
  post({ type: 'progress', message: `reading ${format === 'tidy' ? 'tidy records' : 'lm-eval samples'}…` });
  const parsed =
    format === 'tidy'
      ? parseTidyJsonlText(responses.text, { file: responses.name, skipInvalid: req.skipInvalid })
      : parseLmEvalSamplesText(responses.text, { file: responses.name, model: resultsDoc?.model ?? req.model, score: req.score });
  const { sources, report } = parsed;
  let records = parsed.records;
  const asPackage = pkg !== null && isPackageRun(records, pkg);
  const b = asPackage ? pkg!.bundle : full;
  if (asPackage) {
    // As `llm-nrm score <package>`: only lm-eval records keep the prompt checked against the package's text.
    records = records.map(packageRunRecord);
  }
  // As `llm-nrm score`: responses to items the bundle lacks stop the scoring unless skipped.
  const known = new Set(b.items.map((it) => it.id));
  const unknown = records.filter((r) => !known.has(r.item)).length;
  if (unknown > 0 && !req.skipInvalid) {
    const i = records.findIndex((r) => !known.has(r.item));
    throw new LlmNrmError(
      'UNKNOWN_ITEM',
      `item not in the calibrated bank: ${JSON.stringify(records[i]!.item)} (${unknown} of ${records.length} responses are to items the bank lacks; tick "skip" to score the rest)`,
      { file: sources[i]!.file, line: sources[i]!.line },
    );
  }
  post({
    type: 'progress',
    message: `scoring ${records.length.toLocaleString('en')} responses against ${b.items.length.toLocaleString('en')} ${asPackage ? `items of the package ${pkg!.task}` : 'calibrated items'}…`,
  });
  let last = 0;
  // The options `llm-nrm score` passes: its default --nuisance auto, which for a package's run is the package's own scoring.
  const nuisance = asPackage ? pkg!.scoring.nuisance : 'auto';
  const res = scoreResponses(b, records, {
    sources,
    skipInvalid: req.skipInvalid,
    nuisance,
    onProgress: (p) => {
      const now = Date.now();
      if (now - last > 200) {
        last = now;
        post({ type: 'progress', message: `scoring: iteration ${p.iteration}, loss ${p.loss.toFixed(2)}` });
      }
    },
  });
  // What `llm-nrm score` prints beside theta: the rank interval, and for a package's run the predicted
  // full-bank accuracy from its accuracy on the package's items (core's rule).
  const runAcc = asPackage ? argmaxAccuracies(records, b.items) : null;
  const llms: ScoredRun[] = res.llms.map((l) => ({
    ...l,
    rankInterval: runRankInterval(b.llms, l),
    predicted: asPackage ? predictPackageAccuracy(pkg!.accuracy, l, runAcc!.get(l.id) ?? new Map()) : null,
  }));
  // An adaptive run: its log beside the samples it wrote (the same items, or the error names both files).
  const adaptive =
    resultsDoc?.adaptive != null ? adaptiveRunView(resultsDoc.adaptive, { results: results!.name, samples: responses.name }, records, b.items) : null;
  post({
    type: 'result',
    format,
    file: responses.name,
    scoredAs: asPackage ? { kind: 'package', task: pkg!.task, items: b.items.length, nuisance } : { kind: 'bank', items: b.items.length },
    llms,
    records: records.length,
    cells: res.stats.cells,
    unknown,
    skipped: report.skipped.length + res.stats.skipped - unknown,
    converged: res.converged,
    notes: [
      ...(resultsDoc?.model != null ? [`model id ${resultsDoc.model} from ${results!.name} (model_name)`] : []),
      ...report.notes,
      ...report.skipped.slice(0, 5).map((s) => `skipped ${s.file}:${s.line ?? ''}: ${s.reason}`),
    ],
    adaptive,
  });
}

self.addEventListener('message', (ev: MessageEvent<ScoreRequest>) => {
  if (ev.data?.type !== 'score') return;
  run(ev.data).catch((e: unknown) => post({ type: 'error', message: (e as Error).message ?? String(e), code: e instanceof LlmNrmError ? e.code : null }));
});
