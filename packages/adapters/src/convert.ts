import { stat } from 'node:fs/promises';
import { describeValue, LlmNrmError, parseResponseRecord, type RecordSource, type ResponseRecord } from '@llm-nrm/core';
import { IdNumbers } from '@llm-nrm/core/record';
import { detectInputs, type DetectedInput } from './detect.js';
import { spoolInputs } from './internal/stdin.js';
import {
  issueKind,
  newReport,
  type FormatName,
  type ReplicatePolicy,
  type OptionScoring,
  type ReadIssue,
  type ReadOptions,
  type ReadReport,
  type Reader,
} from './reader.js';

/**
 * The reader of each format, loaded on first use so that converting one harness's output does not
 * load every other reader (the Inspect reader's zip code, the lm-eval streaming parser...).
 */
const loadTidy = (): Promise<Reader> => import('./tidy/readResponses.js').then((m) => m.readResponses);

export const READERS: Record<FormatName, () => Promise<Reader>> = {
  tidy: loadTidy,
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
  /** Several runs of one model and task (lm-eval timestamps): keep the latest (default) or all. */
  replicates?: ReplicatePolicy;
  /** NAEP: keep the uniform and oracle baseline pseudo-models. Default false. */
  includeBaselines?: boolean;
  /**
   * Threads that parse a large plain JSON Lines tidy file (the tidy reader's `threads`): 1 reads on
   * this thread alone. Default: up to 4 for files of 8 MiB or more; the records are the same.
   */
  threads?: number;
  /**
   * Inputs copied to temporary files before (`spoolInputs`: standard input, pipes): each copy's path
   * and the name given for it, which messages, sources and the summary show instead. Default none.
   */
  names?: ReadonlyMap<string, string>;
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
  /** Bit i set: item i (Tallies' item numbers) seen; `items` of them. */
  seen: Uint32Array;
  items: number;
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
  const { records, summary } = convertSourced(paths, options);
  async function* plain(): AsyncGenerator<ResponseRecord> {
    for await (const { record } of records) yield record;
  }
  return { records: plain(), summary };
}

/** A converted record and where it came from (the line only for tidy inputs). */
export interface ConvertedRecord {
  record: ResponseRecord;
  source: RecordSource & { file: string };
}

/**
 * `convertPaths` with the source of each record, and the one damage rule of every reader: a unit
 * a reader had to skip as damaged (cut file, broken record, bad value, a filter that matches
 * nothing) stops the conversion with its file, line and reason, unless `skipInvalid`, where it is
 * listed in `summary.skipped` and the rest goes on. Units that are valid but not multiple choice
 * are listed, never an error. Inputs that yield no usable record at all are always an error.
 */
export function convertSourced(paths: readonly string[], options: ConvertOptions = {}): { records: AsyncGenerator<ConvertedRecord>; summary: ConvertSummary } {
  const { batches, summary } = convertSourcedBatches(paths, options);
  async function* records(): AsyncGenerator<ConvertedRecord> {
    for await (const batch of batches) yield* batch;
  }
  return { records: records(), summary };
}

/**
 * `convertSourced` a batch of records at a time (in order): one await per batch instead of one per
 * record through the chain of generators, for callers that collect every record (`readAnyResponses`:
 * at 378,000 tidy records the per-record awaits cost about 1 s of CPU).
 */
export function convertSourcedBatches(
  paths: readonly string[],
  options: ConvertOptions = {},
): { batches: AsyncGenerator<ConvertedRecord[]>; summary: ConvertSummary } {
  const report = options.report ?? newReport();
  const summary: ConvertSummary = { inputs: [], records: 0, byModelBenchmark: [], skipped: report.skipped, notes: report.notes };
  if (paths.length === 0) throw new LlmNrmError('INVALID_OPTION', 'no input paths given');
  const tallies = new Tallies();
  const skipInvalid = options.skipInvalid ?? false;
  let checked = 0;
  let shownFile = (file: string): string => file;
  // Damage found since the last look: an error unless skipping was asked for.
  const checkDamage = (): void => {
    for (; checked < report.skipped.length; checked++) {
      const issue = report.skipped[checked]!;
      if (skipInvalid || issueKind(issue) !== 'damage') continue;
      throw new LlmNrmError('FORMAT', `${issue.reason} (--skip-invalid goes on without it and lists what was lost)`, {
        file: shownFile(issue.file),
        ...(issue.line !== undefined ? { line: issue.line } : {}),
      });
    }
  };

  async function* records(): AsyncGenerator<ConvertedRecord[]> {
    // Standard input and pipes are copied to temporary files first, so that they are detected and
    // read like any file; messages name them as given (`-` for standard input).
    const copies = await spoolInputs(paths);
    const names = new Map([...(options.names ?? []), ...copies.names]);
    const shown = (file: string): string => names.get(file) ?? file;
    try {
      shownFile = shown;
      yield* readAll(copies.paths);
    } catch (e) {
      // Errors name the input as given, not its temporary copy.
      if (e instanceof LlmNrmError && e.file !== undefined && names.has(e.file)) {
        const where = `${e.file}${e.line !== undefined ? `:${e.line}` : ''}: `;
        const bare = e.message.startsWith(where) ? e.message.slice(where.length) : e.message;
        throw new LlmNrmError(e.code, bare, { cause: e, file: shown(e.file), ...(e.line !== undefined ? { line: e.line } : {}) });
      }
      throw e;
    } finally {
      if (names.size > 0) {
        for (const s of report.skipped) s.file = shown(s.file);
        for (const i of summary.inputs) i.path = shown(i.path);
      }
      copies.cleanup();
    }
  }

  async function* readAll(paths: readonly string[]): AsyncGenerator<ConvertedRecord[]> {
    const inputs: DetectedInput[] = [];
    for (const p of paths) inputs.push(...(await detectInputs(p, options.from)));
    summary.inputs.push(...inputs);
    for (const input of inputs) {
      if (input.format === 'naep-rotations' && !(await stat(input.path)).isDirectory()) {
        throw new LlmNrmError(
          'FORMAT',
          'NAEP rotation data is read from a folder holding naep-*-items.jsonl and the naep-*-responses-*.jsonl files; pass that folder',
          { file: input.path },
        );
      }
      // skipInvalid reaches the tidy reader (bad lines); the harness readers report their own skips.
      const readOptions: ReadOptions & { skipInvalid?: boolean; includeBaselines?: boolean; threads?: number } = { report, skipInvalid };
      if (options.threads !== undefined) readOptions.threads = options.threads;
      if (options.includeBaselines !== undefined) readOptions.includeBaselines = options.includeBaselines;
      if (options.score !== undefined) readOptions.score = options.score;
      if (options.filter !== undefined) readOptions.filter = options.filter;
      if (options.model !== undefined) readOptions.model = options.model;
      if (options.replicates !== undefined) readOptions.replicates = options.replicates;
      let stream: AsyncGenerator<{ record: ResponseRecord; source: RecordSource & { file: string } }[]>;
      // The tidy reader's records come out of parseResponseRecord, fresh and held by nothing else:
      // checking them again here (one check and copy per record, 378,000 at 189 x 2,000) is skipped.
      const checkedByReader = input.format === 'tidy' && READERS.tidy === loadTidy;
      if (checkedByReader) {
        // Tidy records keep their file and line, for the bank's messages (a reader swapped in
        // through READERS is used as it is).
        const { readResponseBatches } = await import('./tidy/readResponses.js');
        stream = readResponseBatches(input.path, readOptions);
      } else {
        const read = await READERS[input.format]();
        // A reader that knows each record's file and line (lm-eval: the samples file in a run
        // folder) says so just before yielding it; the others' records come from input.path.
        let at: (RecordSource & { file: string }) | undefined;
        readOptions.onSource = (file, line) => (at = { file, line });
        // One record a batch: the damage the reader reports as it goes is checked before each
        // record, as it was found (these readers' own parsing costs far more than the await).
        stream = (async function* () {
          for await (const record of read(input.path, readOptions)) {
            yield [{ record, source: at ?? { file: input.path } }];
            at = undefined;
          }
        })();
      }
      for await (const batch of stream) {
        const out: ConvertedRecord[] = [];
        try {
          for (const { record: raw, source } of batch) {
            checkDamage();
            let r: ResponseRecord;
            try {
              r = checkedByReader ? raw : parseResponseRecord(raw);
            } catch (e) {
              if (!(e instanceof LlmNrmError)) throw e;
              const reason = `invalid record from the ${input.format} reader (item ${describeValue((raw as ResponseRecord)?.item)}): ${e.message}`;
              if (!skipInvalid)
                throw new LlmNrmError(e.code, reason, { cause: e, file: source.file, ...(source.line !== undefined ? { line: source.line } : {}) });
              report.skipped.push({ file: source.file, ...(source.line !== undefined ? { line: source.line } : {}), reason, kind: 'damage' });
              continue;
            }
            if (options.model !== undefined) r.model = options.model;
            tallies.add(r);
            summary.records++;
            // The source is the reader's own fresh object: renamed in place, not copied.
            source.file = shownFile(source.file);
            out.push({ record: r, source });
          }
        } catch (e) {
          // What came before the failing record still comes out first, as one record at a time.
          if (out.length > 0) yield out;
          throw e;
        }
        if (out.length > 0) yield out;
      }
      checkDamage();
    }
    summary.byModelBenchmark = rows(tallies.byModel);
    if (summary.records === 0) throw nothingUsable(paths.map(shownFile), report);
  }

  return { batches: records(), summary };
}

/** The error for inputs with no usable record: what was looked at and what was skipped. */
function nothingUsable(paths: readonly string[], report: ReadReport): LlmNrmError {
  const first = report.skipped[0];
  const why =
    first !== undefined
      ? `; ${report.skipped.length} unit${report.skipped.length === 1 ? '' : 's'} skipped, the first: ${first.file}${first.line !== undefined ? `:${first.line}` : ''}: ${first.reason}`
      : '';
  return new LlmNrmError('EMPTY', `no usable multiple-choice response in ${paths.join(', ')}${why}`);
}

/** The benchmark a record counts under: its own, else the prefix of `<benchmark>/<doc id>` item ids. */
function benchmarkOf(r: ResponseRecord): string {
  if (r.benchmark !== undefined) return r.benchmark;
  const slash = r.item.lastIndexOf('/');
  return slash > 0 ? r.item.slice(0, slash) : '';
}

/**
 * Per (model, benchmark) tallies, by model then benchmark: no key string built per record, and
 * nothing kept per record. Items are numbered once and each tally keeps a bitset of its items: a
 * Set of item ids per tally held every (model, item) pair, one entry and often a string of its own
 * per record (at 189 x 31,554 from Parquet, about 360 MB of heap by the end of the read).
 */
class Tallies {
  readonly byModel = new Map<string, Map<string, Tally>>();
  private readonly itemNumbers = new IdNumbers();
  // The last record's tally: a file's records come in runs of one model and benchmark.
  private lastModel: string | undefined;
  private lastBenchmark = '';
  private last: Tally | undefined;

  add(r: ResponseRecord): void {
    const benchmark = benchmarkOf(r);
    let t = this.last;
    if (t === undefined || r.model !== this.lastModel || benchmark !== this.lastBenchmark) {
      let byBenchmark = this.byModel.get(r.model);
      if (byBenchmark === undefined) this.byModel.set(r.model, (byBenchmark = new Map()));
      t = byBenchmark.get(benchmark);
      if (t === undefined) {
        t = { seen: new Uint32Array(Math.max(4, (this.itemNumbers.size + 31) >>> 5)), items: 0, hard: 0, soft: 0, missing: 0, leakSum: 0, leakN: 0 };
        byBenchmark.set(benchmark, t);
      }
      this.last = t;
      this.lastModel = r.model;
      this.lastBenchmark = benchmark;
    }
    const i = this.itemNumbers.number(r.item);
    const w = i >>> 5;
    if (w >= t.seen.length) {
      const grown = new Uint32Array(Math.max(2 * t.seen.length, w + 1));
      grown.set(t.seen);
      t.seen = grown;
    }
    const bit = 1 << (i & 31);
    if ((t.seen[w]! & bit) === 0) {
      t.seen[w] = t.seen[w]! | bit;
      t.items++;
    }
    if (r.choice === null) t.missing++;
    else if (r.choice !== undefined) t.hard++;
    else t.soft++;
    if (r.leakage !== undefined) {
      t.leakSum += r.leakage;
      t.leakN++;
    }
  }
}

function rows(tallies: Map<string, Map<string, Tally>>): ConvertRow[] {
  const out: ConvertRow[] = [];
  for (const [model, byBenchmark] of tallies)
    for (const [benchmark, t] of byBenchmark) {
      out.push({
        model,
        benchmark,
        items: t.items,
        hard: t.hard,
        soft: t.soft,
        missing: t.missing,
        meanLeakage: t.leakN > 0 ? t.leakSum / t.leakN : null,
      });
    }
  return out.sort((a, b) => (a.model < b.model ? -1 : a.model > b.model ? 1 : a.benchmark < b.benchmark ? -1 : a.benchmark > b.benchmark ? 1 : 0));
}
