// @llm-nrm/adapters/browser: the readers a web page can run on a dropped file's text. No `node:`
// imports (eslint.config.js checks this entry and every file it imports): the record building is
// the Node readers' own (lmeval/sampleRecord.ts, core's parseResponseRecord), only the byte
// source differs (a string instead of a file stream).
import { LlmNrmError, parseResponseRecord, type RecordSource, type ResponseRecord } from '@llm-nrm/core';
import { newReport, type OptionScoring, type ReadReport } from './reader.js';
import { parseJsonLenient } from './lmeval/parseJsonLenient.js';
import { newCounts, sampleRecord, type SampleContext } from './lmeval/sampleRecord.js';
import { parseSamplesName } from './lmeval/samplesName.js';
import { parseJsonLine } from './tidy/parseJsonLine.js';

export { newReport, parseSamplesName, type OptionScoring, type ReadReport };
export { packageRunRecord } from './export/packageRunRecord.js';
export {
  isLmEvalResultsText,
  parseLmEvalResultsText,
  type AdaptiveRound,
  type AdaptiveRunLog,
  type AdaptiveStop,
  type LmEvalResultsText,
} from './lmeval/adaptiveResults.js';

/** Records parsed from a text, each with its file name and 1-based line. */
export interface ParsedText {
  records: ResponseRecord[];
  sources: (RecordSource & { file: string; line: number })[];
  report: ReadReport;
}

export interface LmEvalTextOptions {
  /** File name (for messages, and the task when `task` is not given: `samples_<task>_<date>.jsonl`). */
  file: string;
  /** The model id (lm-eval keeps it in the folder name or results file, which a dropped file lacks). */
  model: string;
  /** Task name; default from the file name. */
  task?: string;
  /** Option scoring: 'raw' (default), 'chars' (acc_norm), 'bytes'. */
  score?: OptionScoring;
  /** Filter to keep when a document has several; default the first seen. */
  filter?: string;
  report?: ReadReport;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * The tidy records of one lm-eval-harness samples file given as text (JSON Lines, v0.4.3+ and
 * mid-2024 `.json`; or a JSON array, v0.4.0-0.4.2 and `--write_out`). Each sample goes through the
 * Node reader's `sampleRecord`, so a file gives the same records here as with `readLmEvalHarness`
 * (given the same model and task). Unusable lines go to `report.skipped` with their line; a file
 * with no sample at all throws FORMAT naming the first reason.
 */
export function parseLmEvalSamplesText(text: string, options: LmEvalTextOptions): ParsedText {
  const file = options.file;
  const report = options.report ?? newReport();
  const task = options.task ?? parseSamplesName(file.replace(/^.*[\\/]/, ''))?.task ?? file.replace(/^.*[\\/]/, '').replace(/\.jsonl?(\.gz)?$/i, '');
  const counts = newCounts();
  const ctx: SampleContext = { task, model: options.model, score: options.score ?? 'raw', counts };
  const values: { value: unknown; line: number }[] = [];
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const first = /\S/.exec(body)?.[0];
  if (first === '[') {
    let arr: unknown;
    try {
      arr = parseJsonLenient(body);
    } catch (e) {
      throw new LlmNrmError('FORMAT', `not a JSON array of lm-eval samples: ${(e as Error).message.slice(0, 120)}`, { file, line: 1 });
    }
    if (!Array.isArray(arr)) throw new LlmNrmError('FORMAT', 'not a JSON array of lm-eval samples', { file, line: 1 });
    arr.forEach((v, i) => values.push({ value: v, line: i + 1 }));
  } else {
    const lines = body.split('\n');
    for (let n = 0; n < lines.length; n++) {
      const line = lines[n]!.replace(/\r$/, '');
      if (line.trim() === '') continue;
      try {
        const v = parseJsonLenient(line);
        if (isObj(v)) values.push({ value: v, line: n + 1 });
        else report.skipped.push({ file, line: n + 1, reason: 'not a JSON object' });
      } catch (e) {
        report.skipped.push({ file, line: n + 1, reason: `invalid JSON (a pretty-printed record? use the CLI reader): ${(e as Error).message.slice(0, 120)}` });
      }
    }
  }
  const out: ParsedText = { records: [], sources: [], report };
  let picked = options.filter;
  let others = 0;
  for (const { value, line } of values) {
    const r = sampleRecord(value, ctx);
    if ('skip' in r) {
      report.skipped.push({ file, line, reason: r.skip });
      continue;
    }
    // Several filters = one sample per doc per filter: keep one, as readLmEvalStream does.
    picked ??= r.filter;
    if (r.filter !== picked) {
      others++;
      continue;
    }
    out.records.push(r.record);
    out.sources.push({ file, line });
    report.records++;
  }
  if (others > 0) report.notes.push(`${file}: kept filter '${picked}', left out ${others} samples of other filters`);
  if (out.records.length === 0) {
    const why = report.skipped.reduce<ReadReport['skipped'][number] | undefined>(
      (a, b) => (a === undefined || (b.line ?? 0) < (a.line ?? 0) ? b : a),
      undefined,
    );
    throw new LlmNrmError('FORMAT', `no multiple-choice lm-eval samples${why ? `: ${why.reason}` : ''}`, {
      file,
      ...(why?.line !== undefined ? { line: why.line } : {}),
    });
  }
  return out;
}

export interface TidyTextOptions {
  file: string;
  /** Skip (and list in `report.skipped`) invalid lines instead of throwing. Default false. */
  skipInvalid?: boolean;
  report?: ReadReport;
}

/**
 * The records of a tidy JSON Lines text, validated by the tidy reader's `parseResponseRecord`. A bad
 * line throws `LlmNrmError` naming file and line (or, with `skipInvalid`, is listed in the report).
 */
export function parseTidyJsonlText(text: string, options: TidyTextOptions): ParsedText {
  const file = options.file;
  const report = options.report ?? newReport();
  const out: ParsedText = { records: [], sources: [], report };
  const lines = text.split('\n');
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!.replace(/\r$/, '');
    if (line.trim() === '') continue;
    let record: ResponseRecord;
    try {
      let value: unknown;
      try {
        value = parseJsonLine(n === 0 && line.charCodeAt(0) === 0xfeff ? line.slice(1) : line);
      } catch (e) {
        throw new LlmNrmError('INVALID_RECORD', `malformed JSON (${(e as Error).message}): ${line.length > 80 ? `${line.slice(0, 77)}...` : line}`, {
          cause: e,
        });
      }
      record = parseResponseRecord(value);
    } catch (e) {
      if (!(e instanceof LlmNrmError)) throw e;
      if (!options.skipInvalid) throw new LlmNrmError(e.code, e.message, { cause: e, file, line: n + 1 });
      report.skipped.push({ file, line: n + 1, reason: e.message });
      continue;
    }
    out.records.push(record);
    out.sources.push({ file, line: n + 1 });
    report.records++;
  }
  return out;
}

/**
 * Which of the two a text is: tidy records have `model`, `item` and `key`; lm-eval samples have
 * `doc_id` (or `logit_0`, write_out). Looks at the first value only.
 */
export function sniffResponsesText(text: string): 'tidy' | 'lm-eval' | null {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const start = body.search(/\S/);
  if (start < 0) return null;
  let v: unknown;
  if (body[start] === '[') return 'lm-eval';
  const nl = body.indexOf('\n', start);
  try {
    v = parseJsonLenient(body.slice(start, nl < 0 ? undefined : nl));
  } catch {
    return null;
  }
  if (!isObj(v)) return null;
  if ('doc_id' in v || 'logit_0' in v) return 'lm-eval';
  if ('model' in v && 'item' in v && ('key' in v || 'probs' in v || 'logprobs' in v || 'choice' in v)) return 'tidy';
  return null;
}
