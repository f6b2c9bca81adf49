import { stat } from 'node:fs/promises';
import type { Argv, CommandModule } from 'yargs';
import {
  LlmNrmError,
  describeItemVersions,
  duplicateRows,
  resolveItemVersions,
  type DuplicateRows,
  type ItemVersionConflict,
  type ItemVersionPolicy,
  type ResponseRecord,
} from '@llm-nrm/core';
import { duplicateRowCounter, singleContentCheck } from '@llm-nrm/core/record';
import {
  FORMAT_NAMES,
  assertOutputIsNotInput,
  convertPaths,
  convertSourcedBatches,
  excludeFromWalks,
  spoolInputs,
  tidyFormatFromExtension,
  writeResponses,
  type ConvertOptions,
  type ConvertSummary,
  type FormatName,
  type OptionScoring,
  type ReplicatePolicy,
} from '@llm-nrm/adapters';
import { formatSkipped, formatTable, info, infoLines, printJson, progress } from '../output.js';
import { identityOptions } from '../identityOptions.js';
import { duplicateRowsWarning } from '../duplicateRowsWarning.js';

interface ConvertArgs {
  inputs: string[];
  from?: FormatName;
  score?: OptionScoring;
  filter?: string;
  model?: string;
  output: string;
  json: boolean;
  'skip-invalid': boolean;
  'item-versions': ItemVersionPolicy;
  replicates: ReplicatePolicy;
  'include-baselines': boolean;
  quiet: boolean;
}

/** Skipped units printed in full; the rest are counted by reason. */
const SKIPPED_SHOWN = 20;

export const convertCommand: CommandModule<object, ConvertArgs> = {
  command: 'convert <inputs..>',
  describe: 'Convert harness outputs (lm-eval-harness, HELM, Inspect, OpenAI evals, NAEP rotations) to one tidy responses file',
  builder: (y: Argv) =>
    identityOptions(y)
      .positional('inputs', {
        describe: 'Files or folders of harness output; the format of each is detected (a folder mixing formats is split)',
        type: 'string',
        array: true,
        demandOption: true,
      })
      .option('output', {
        alias: 'o',
        describe: 'Tidy responses file to write; the extension picks the container: .jsonl, .jsonl.gz, .arrow, .parquet; - writes JSON Lines to stdout',
        type: 'string',
        demandOption: true,
        requiresArg: true,
      })
      .option('from', { describe: 'Input format, instead of detecting it', choices: FORMAT_NAMES as FormatName[] })
      .option('score', {
        describe: 'lm-eval per-option loglikelihoods: raw sum, per character (acc_norm), per UTF-8 byte',
        choices: ['raw', 'chars', 'bytes'] as OptionScoring[],
        default: 'raw' as OptionScoring,
      })
      .option('filter', { describe: 'lm-eval filter to keep when a document has several (default: the first seen)', type: 'string', requiresArg: true })
      .option('model', { describe: 'Model id for every record, instead of the one each reader infers', type: 'string', requiresArg: true })
      .option('skip-invalid', {
        describe: 'Go past damaged files and invalid records (listed on stderr: counts per file, the first reasons) instead of stopping at the first',
        type: 'boolean',
        default: false,
      })
      .option('include-baselines', { describe: 'NAEP rotations: keep the uniform and oracle baseline pseudo-models', type: 'boolean', default: false })
      .option('json', { describe: 'Print the summary as JSON on stdout (stderr when the records go to stdout)', type: 'boolean', default: false })
      .option('quiet', { alias: 'q', describe: 'No progress or status on stderr', type: 'boolean', default: false })
      .example('$0 convert results/ -o responses.parquet', 'every harness output under results/, detected per folder')
      .example('$0 convert out/samples_mmlu_*.jsonl --score chars -o mmlu.jsonl.gz', 'lm-eval samples, length-normalised like acc_norm')
      .example('$0 convert benchmark_output/runs/v1.0/ --from helm -o helm.arrow --json', 'HELM runs, summary as JSON')
      .example('$0 convert logs/ --skip-invalid -o - | head', 'JSON Lines to stdout, going past damaged logs')
      .epilogue(
        'The tidy file has one record per model x item presentation: model, item, benchmark, key, options, and exactly one ' +
          'of probs, logprobs (-Infinity written as "-Infinity" in JSON Lines) or choice (null = unparsable, counted as missing). ' +
          'The summary (on stderr) lists items, hard and soft answers, missing answers and mean leakage per model and benchmark, and ' +
          'everything a reader skipped with the reason. Damaged input (a cut file, a broken record) stops the conversion unless ' +
          '--skip-invalid; input with nothing usable is always an error. The output is never read back from an input folder.',
      ) as unknown as Argv<ConvertArgs>,
  handler: async (argv) => {
    const toStdout = argv.output === '-';
    // A stream target (/dev/stdout, a FIFO) has no extension to go by: JSON Lines.
    const stream = !toStdout && tidyFormatFromExtension(argv.output) === undefined && (await isStreamTarget(argv.output));
    // Check the output name before reading anything: a typo should not cost a long conversion.
    if (!toStdout && !stream && tidyFormatFromExtension(argv.output) === undefined) {
      throw new LlmNrmError('INVALID_OPTION', `unknown output extension: ${argv.output} (use .jsonl, .jsonl.gz, .arrow or .parquet, or - for stdout)`);
    }
    if (!toStdout) {
      await assertOutputIsNotInput(argv.output, argv.inputs);
      excludeFromWalks(argv.output);
    }
    const options: ConvertOptions = { skipInvalid: argv['skip-invalid'], replicates: argv.replicates, includeBaselines: argv['include-baselines'] };
    if (argv.from !== undefined) options.from = argv.from;
    if (argv.score !== undefined) options.score = argv.score;
    if (argv.filter !== undefined) options.filter = argv.filter;
    if (argv.model !== undefined) options.model = argv.model;
    const tick = progress(argv.quiet);
    const started = Date.now();
    // A clock read every 4,096 records, not every record (a second of a 6M-record conversion).
    const say = (n: number) => {
      if ((n & 4095) !== 0) return;
      const s = (Date.now() - started) / 1000;
      if (s >= 1) tick(`convert: ${n} records read (${s.toFixed(0)} s)`);
    };
    // Records go to the file as they are read, none kept, while every item id names one content
    // (singleContentCheck): no version to tell apart, so resolveItemVersions would return them as
    // they are. An id found naming a second content stops that write (its temporary file is
    // removed, nothing is written) and the read starts again whole: item identity needs every
    // record of an id. Standard output cannot be taken back: read whole. Standard input and pipes
    // are copied once (`spoolInputs`), so that a restart reads the copies again.
    let summary: ConvertSummary;
    let n: number;
    let versions: { conflicts: ItemVersionConflict[]; dropped: number };
    let duplicates: DuplicateRows;
    const copies = await spoolInputs(argv.inputs);
    try {
      const inputs = copies.paths;
      options.names = copies.names;
      const streamed = !toStdout && !stream ? await writeStreamed(convertSourcedBatches(inputs, options)) : null;
      if (streamed !== null) {
        ({ n, duplicates, summary } = streamed);
        versions = { conflicts: [], dropped: 0 };
      } else {
        const read = convertPaths(inputs, options);
        summary = read.summary;
        const all: ResponseRecord[] = [];
        for await (const r of read.records) {
          all.push(r);
          say(all.length);
        }
        const resolved = resolveItemVersions(all, argv['item-versions']);
        versions = resolved;
        duplicates = duplicateRows(resolved.records);
        n = (await writeResponses(resolved.records, argv.output, stream ? { format: 'jsonl' } : {})).records;
      }
    } finally {
      copies.cleanup();
    }
    /** The records written as they come; null (nothing written) when an id names a second content. */
    async function writeStreamed(
      input: ReturnType<typeof convertSourcedBatches>,
    ): Promise<{ n: number; duplicates: DuplicateRows; summary: ConvertSummary } | null> {
      const oneContent = singleContentCheck();
      const counter = duplicateRowCounter();
      let taken = 0;
      const second = new Error('an item id names a second content');
      // Straight from the readers' batches: one generator between them and the writer.
      async function* checked(): AsyncGenerator<ResponseRecord> {
        for await (const batch of input.batches) {
          for (const { record } of batch) {
            if (!oneContent(record)) throw second;
            counter.add(record);
            say(++taken);
            yield record;
          }
        }
      }
      try {
        // The readers' records are parseResponseRecord's own: not validated again.
        const { records: written } = await writeResponses(checked(), argv.output, { checked: true });
        return { n: written, duplicates: counter.result(), summary: input.summary };
      } catch (e) {
        // The writers may wrap what the records' generator threw (an IO error with it as its cause).
        for (let c: unknown = e; c instanceof Error; c = c.cause) if (c === second) return null;
        throw e;
      }
    }
    const text = formatSummary(summary).trimEnd().split('\n');
    if (argv.json) {
      const json = { output: argv.output, ...summary, records: n, itemVersions: versions.conflicts, droppedVersions: versions.dropped, duplicates };
      if (toStdout) info(argv.quiet, JSON.stringify(json, null, 2));
      else printJson(json);
    } else {
      infoLines(argv.quiet, text);
    }
    if (versions.conflicts.length > 0) {
      const how =
        argv['item-versions'] === 'split' ? 'each version written under its own id' : `the majority version kept, ${versions.dropped} records dropped`;
      infoLines(argv.quiet, [
        `warning: ${versions.conflicts.length} item ids name different content in different records (${how}):`,
        ...describeItemVersions(versions.conflicts).map((l) => `  ${l}`),
      ]);
    }
    const repeated = duplicateRowsWarning(duplicates);
    if (repeated !== null) info(argv.quiet, `warning: ${repeated}`);
    info(argv.quiet, `wrote ${n} records to ${toStdout ? 'stdout' : argv.output}`);
  },
};

/** True for outputs that are streams, not files: /dev and /proc paths, FIFOs, devices, sockets. */
async function isStreamTarget(path: string): Promise<boolean> {
  if (/^\/(dev|proc)\//.test(path)) return true;
  const st = await stat(path).catch(() => undefined);
  return st !== undefined && !st.isFile() && !st.isDirectory();
}

/** The summary as text: inputs, a models x benchmarks table, and what was skipped and why. */
export function formatSummary(summary: ConvertSummary): string {
  const lines: string[] = [];
  for (const input of summary.inputs) lines.push(`input ${input.path} (${input.format})`);
  lines.push('');
  const rows = summary.byModelBenchmark.map((r) => [
    r.model,
    r.benchmark || '-',
    r.items,
    r.hard,
    r.soft,
    r.missing,
    r.meanLeakage === null ? '-' : r.meanLeakage,
  ]);
  lines.push(formatTable(['model', 'benchmark', 'items', 'hard', 'soft', 'missing', 'leakage'], rows).trimEnd());
  lines.push('');
  lines.push(`${summary.records} records; ${summary.byModelBenchmark.length} model x benchmark pairs`);
  for (const note of summary.notes) lines.push(`note: ${note}`);
  if (summary.skipped.length > 0) {
    // Counts per file, then the first reasons in full, then the rest counted by reason.
    lines.push(...formatSkipped(summary.skipped, SKIPPED_SHOWN));
    if (summary.skipped.length > SKIPPED_SHOWN) {
      const byReason = new Map<string, number>();
      for (const s of summary.skipped.slice(SKIPPED_SHOWN)) byReason.set(s.reason, (byReason.get(s.reason) ?? 0) + 1);
      const groups = [...byReason].sort((a, b) => b[1] - a[1]);
      for (const [reason, count] of groups.slice(0, SKIPPED_SHOWN)) lines.push(`  ... ${count} more: ${reason}`);
      if (groups.length > SKIPPED_SHOWN) lines.push(`  ... and ${groups.length - SKIPPED_SHOWN} other reasons (--json lists every one)`);
    }
  }
  return lines.join('\n') + '\n';
}
