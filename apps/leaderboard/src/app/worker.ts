// Scoring worker: parses the dropped file and composes what `llm-nrm score` composes (core's
// scoreResponses, analysis' runRankInterval and, for a tiny package's run, predictPackageAccuracy),
// off the main thread so the page stays responsive. Nothing is sent anywhere: the only fetches are
// the site's own data/bundle.json and, where the site carries a tiny package, data/tiny.json.
import { LlmNrmError, argmaxAccuracies, scoreResponses, type CalibrationBundle, type LlmScore, type ResponseRecord } from '@llm-nrm/core';
import { predictPackageAccuracy, runRankInterval, type RunRank } from '@llm-nrm/analysis';
import { packageRunRecord, parseLmEvalSamplesText, parseTidyJsonlText, sniffResponsesText, type OptionScoring } from '@llm-nrm/adapters/browser';
import type { TinyScoringShard } from '@llm-nrm/site/types';

export interface ScoreRequest {
  type: 'score';
  bundleUrl: string;
  /** data/tiny.json where the manifest says the site carries a tiny package's scoring, else null. */
  tinyUrl: string | null;
  text: string;
  fileName: string;
  /** Model id for lm-eval samples (a dropped file carries none). */
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
      /** 'package': scored as a run of the site's tiny package (its task and bundle); 'bank': against the full bank. */
      scoredAs: { kind: 'package'; task: string; items: number; nuisance: string } | { kind: 'bank'; items: number };
      llms: ScoredRun[];
      records: number;
      cells: number;
      unknown: number;
      skipped: number;
      converged: boolean;
      notes: string[];
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
  const format = sniffResponsesText(req.text);
  if (format === null)
    throw new LlmNrmError('FORMAT', 'neither tidy JSON Lines (model, item, key, ...) nor lm-eval samples (doc_id, arguments, resps, ...)', {
      file: req.fileName,
      line: 1,
    });
  post({ type: 'progress', message: `reading ${format === 'tidy' ? 'tidy records' : 'lm-eval samples'}…` });
  const parsed =
    format === 'tidy'
      ? parseTidyJsonlText(req.text, { file: req.fileName, skipInvalid: req.skipInvalid })
      : parseLmEvalSamplesText(req.text, { file: req.fileName, model: req.model, score: req.score });
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
    message: `scoring ${records.length.toLocaleString('en')} responses against ${b.items.length.toLocaleString('en')} ${asPackage ? `items of the tiny package ${pkg!.task}` : 'calibrated items'}…`,
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
  post({
    type: 'result',
    format,
    scoredAs: asPackage ? { kind: 'package', task: pkg!.task, items: b.items.length, nuisance } : { kind: 'bank', items: b.items.length },
    llms,
    records: records.length,
    cells: res.stats.cells,
    unknown,
    skipped: report.skipped.length + res.stats.skipped - unknown,
    converged: res.converged,
    notes: [...report.notes, ...report.skipped.slice(0, 5).map((s) => `skipped ${s.file}:${s.line ?? ''}: ${s.reason}`)],
  });
}

self.addEventListener('message', (ev: MessageEvent<ScoreRequest>) => {
  if (ev.data?.type !== 'score') return;
  run(ev.data).catch((e: unknown) => post({ type: 'error', message: (e as Error).message ?? String(e), code: e instanceof LlmNrmError ? e.code : null }));
});
