import { stat } from 'node:fs/promises';
import { LlmNrmError, parseResponseRecord, type ResponseRecord } from '@llm-nrm/core';
import { detectInputs, type DetectedInput } from './detect.js';
import { newReport, type FormatName, type OptionScoring, type ReadIssue, type ReadOptions, type ReadReport, type Reader } from './reader.js';


/**
 * The reader of each format, loaded on first use so that converting one harness's output does not
 * load every other reader (the Inspect reader's zip code, the lm-eval streaming parser...).
 */
export const READERS: Record<FormatName, () => Promise<Reader>> = {
  tidy: () => import('./tidy/readResponses.js').then((m) => m.readResponses),
  'lm-eval-harness': () => import('./lmeval/readLmEvalHarness.js').then((m) => m.readLmEvalHarness),
  helm: () => import('./helm/readHelm.js').then((m) => m.readHelm),
  inspect: () => import('./inspect/readInspect.js').then((m) => m.readInspect),
  'openai-evals': () => import('./openai/readOpenAIEvals.js').then((m) => m.readOpenAIEvals),
  'naep-rotations': () => import('./naep/readNaepRotations.js').then((m) => m.readNaepRotations),
};

export interface ConvertOptions {
  /** Input format for every path. Default: detected per path (a mixed folder is split, see detectInputs). */
  from?: FormatName;
  /** Option scoring for per-option loglikelihoods (lm-eval). Default: the reader's, 'raw'. */
  score?: OptionScoring;
  /** lm-eval filter to keep when a document has several. Default: the reader's (first seen, noted). */
  filter?: string;
  /** Override every record's model id. Default: what each reader infers. */
  model?: string;
  /** Where readers record skipped units and notes. Default: a fresh report, returned in the summary. */
  report?: ReadReport;
  /**
   * Skip records that fail the tidy record checks (listed in `summary.skipped`) instead of
   * throwing. Default false.
   */
  skipInvalid?: boolean;
}

/** One line of the conversion summary: what one model answered on one benchmark. */
export interface ConvertRow {
  model: string;
  benchmark: string;
  /** Distinct items. */
  items: number;
  /** Hard answers (`choice` given, not null). */
  hard: number;
  /** Soft answers (`probs` or `logprobs`). */
  soft: number;
  /** Unparsable hard answers (`choice: null`). */
  missing: number;
  /** Mean `leakage` over the records that report it; null when none does. */
  meanLeakage: number | null;
}

export interface ConvertSummary {
  /** Each input and the format it was read as. */
  inputs: DetectedInput[];
  /** Records yielded. */
  records: number;
  /** Per (model, benchmark), sorted by model then benchmark; filled when `records` is exhausted. */
  byModelBenchmark: ConvertRow[];
  /** Everything a reader (or the record check under skipInvalid) left out, with file and reason. */
  skipped: ReadIssue[];
  /** Readers' notes (format versions, filters chosen...). */
  notes: string[];
}

interface Tally {
  items: Set<string>;
  hard: number;
  soft: number;
  missing: number;
  leakSum: number;
  leakN: number;
}

/**
 * Convert harness outputs to tidy records: each path (file or folder) is detected (or taken as
 * `options.from`) and read by its format's reader; records are checked (parseResponseRecord) and
 * counted per model and benchmark. `summary` is live: `skipped` and `notes` fill as the readers go,
 * `byModelBenchmark` once `records` has been iterated to the end.
 *
 * @example
 * const { records, summary } = convertPaths(['out/'], { score: 'chars' });
 * await writeResponses(records, 'responses.parquet');
 * console.table(summary.byModelBenchmark);
 */
export function convertPaths(paths: readonly string[], options: ConvertOptions = {}): { records: AsyncGenerator<ResponseRecord>; summary: ConvertSummary } {
  const report = options.report ?? newReport();
  const summary: ConvertSummary = { inputs: [], records: 0, byModelBenchmark: [], skipped: report.skipped, notes: report.notes };
  if (paths.length === 0) throw new LlmNrmError('INVALID_OPTION', 'no input paths given');
  const tallies = new Map<string, Tally>();

  async function* records(): AsyncGenerator<ResponseRecord> {
    const inputs: DetectedInput[] = [];
    for (const p of paths) inputs.push(...(await detectInputs(p, options.from)));
    summary.inputs.push(...inputs);
    for (const input of inputs) {
      if (input.format === 'naep-rotations' && !(await stat(input.path)).isDirectory()) {
        throw new LlmNrmError('FORMAT', 'NAEP rotation data is read from a folder holding naep-*-items.jsonl and the naep-*-responses-*.jsonl files; pass that folder', { file: input.path });
      }
      const read = await READERS[input.format]();
      // skipInvalid reaches the tidy reader (bad lines); the harness readers report their own skips.
      const readOptions: ReadOptions & { skipInvalid?: boolean } = { report, skipInvalid: options.skipInvalid ?? false };
      if (options.score !== undefined) readOptions.score = options.score;
      if (options.filter !== undefined) readOptions.filter = options.filter;
      if (options.model !== undefined) readOptions.model = options.model;
      for await (const raw of read(input.path, readOptions)) {
        let r: ResponseRecord;
        try {
          r = parseResponseRecord(raw);
        } catch (e) {
          if (!(e instanceof LlmNrmError)) throw e;
          const reason = `invalid record from the ${input.format} reader (item ${JSON.stringify((raw as ResponseRecord)?.item)}): ${e.message}`;
          if (!options.skipInvalid) throw new LlmNrmError(e.code, reason, { cause: e, file: input.path });
          report.skipped.push({ file: input.path, reason });
          continue;
        }
        if (options.model !== undefined) r.model = options.model;
        tally(tallies, r);
        summary.records++;
        yield r;
      }
    }
    summary.byModelBenchmark = rows(tallies);
  }

  return { records: records(), summary };
}

/** The benchmark a record counts under: its own, else the prefix of `<benchmark>/<doc id>` item ids. */
function benchmarkOf(r: ResponseRecord): string {
  if (r.benchmark !== undefined) return r.benchmark;
  const slash = r.item.lastIndexOf('/');
  return slash > 0 ? r.item.slice(0, slash) : '';
}

function tally(tallies: Map<string, Tally>, r: ResponseRecord): void {
  const k = `${r.model}\u0000${benchmarkOf(r)}`;
  let t = tallies.get(k);
  if (t === undefined) {
    t = { items: new Set(), hard: 0, soft: 0, missing: 0, leakSum: 0, leakN: 0 };
    tallies.set(k, t);
  }
  t.items.add(r.item);
  if (r.choice === null) t.missing++;
  else if (r.choice !== undefined) t.hard++;
  else t.soft++;
  if (r.leakage !== undefined) {
    t.leakSum += r.leakage;
    t.leakN++;
  }
}

function rows(tallies: Map<string, Tally>): ConvertRow[] {
  const out: ConvertRow[] = [];
  for (const [k, t] of tallies) {
    const [model, benchmark] = k.split('\u0000') as [string, string];
    out.push({ model, benchmark, items: t.items.size, hard: t.hard, soft: t.soft, missing: t.missing, meanLeakage: t.leakN > 0 ? t.leakSum / t.leakN : null });
  }
  return out.sort((a, b) => (a.model < b.model ? -1 : a.model > b.model ? 1 : a.benchmark < b.benchmark ? -1 : a.benchmark > b.benchmark ? 1 : 0));
}
