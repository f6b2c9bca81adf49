// Scoring worker: parses the dropped file and runs core's scoreResponses with the options
// `llm-nrm score` uses, off the main thread so the page stays responsive. Nothing is sent anywhere:
// the only fetch is the site's own data/bundle.json.
import { LlmNrmError, scoreResponses, type CalibrationBundle, type LlmScore } from '@llm-nrm/core';
import { parseLmEvalSamplesText, parseTidyJsonlText, sniffResponsesText, type OptionScoring } from '@llm-nrm/adapters/browser';

export interface ScoreRequest {
  type: 'score';
  bundleUrl: string;
  text: string;
  fileName: string;
  /** Model id for lm-eval samples (a dropped file carries none). */
  model: string;
  score: OptionScoring;
  skipInvalid: boolean;
}

export type ScoreReply =
  | { type: 'progress'; message: string }
  | {
      type: 'result';
      format: 'tidy' | 'lm-eval';
      llms: LlmScore[];
      records: number;
      cells: number;
      unknown: number;
      skipped: number;
      converged: boolean;
      notes: string[];
    }
  | { type: 'error'; message: string; code: string | null };

let bundle: Promise<CalibrationBundle> | null = null;

function post(m: ScoreReply): void {
  (self as unknown as { postMessage(m: ScoreReply): void }).postMessage(m);
}

async function run(req: ScoreRequest): Promise<void> {
  bundle ??= fetch(req.bundleUrl).then(async (r) => {
    if (!r.ok) throw new Error(`cannot load the calibration bundle: HTTP ${r.status}`);
    return (await r.json()) as CalibrationBundle;
  });
  let b: CalibrationBundle;
  try {
    b = await bundle;
  } catch (e) {
    bundle = null;
    throw e;
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
  const { records, sources, report } = parsed;
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
    message: `scoring ${records.length.toLocaleString('en')} responses against ${b.items.length.toLocaleString('en')} calibrated items…`,
  });
  let last = 0;
  // The options `llm-nrm score` passes (its defaults: --nuisance auto).
  const res = scoreResponses(b, records, {
    sources,
    skipInvalid: req.skipInvalid,
    nuisance: 'auto',
    onProgress: (p) => {
      const now = Date.now();
      if (now - last > 200) {
        last = now;
        post({ type: 'progress', message: `scoring: iteration ${p.iteration}, loss ${p.loss.toFixed(2)}` });
      }
    },
  });
  post({
    type: 'result',
    format,
    llms: res.llms,
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
