import type { Argv, CommandModule } from 'yargs';
import { LlmNrmError } from '@llm-nrm/core';
import {
  FORMAT_NAMES, convertPaths, tidyFormatFromExtension, writeResponses,
  type ConvertOptions, type ConvertSummary, type FormatName, type OptionScoring,
} from '@llm-nrm/adapters';
import { formatTable, info, printJson, progress } from '../output.js';

interface ConvertArgs {
  inputs: string[];
  from?: FormatName;
  score?: OptionScoring;
  filter?: string;
  model?: string;
  output: string;
  json: boolean;
  'skip-invalid': boolean;
  quiet: boolean;
}

/** Skipped units printed in full; the rest are counted by reason. */
const SKIPPED_SHOWN = 20;

export const convertCommand: CommandModule<object, ConvertArgs> = {
  command: 'convert <inputs..>',
  describe: 'Convert harness outputs (lm-eval-harness, HELM, Inspect, OpenAI evals, NAEP rotations) to one tidy responses file',
  builder: (y: Argv) =>
    y
      .positional('inputs', {
        describe: 'Files or folders of harness output; the format of each is detected (a folder mixing formats is split)',
        type: 'string',
        array: true,
        demandOption: true,
      })
      .option('output', {
        alias: 'o',
        describe: 'Tidy responses file to write; the extension picks the container: .jsonl, .jsonl.gz, .arrow, .parquet',
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
      .option('skip-invalid', { describe: 'Skip (and list) invalid records instead of stopping at the first', type: 'boolean', default: false })
      .option('json', { describe: 'Print the summary as JSON', type: 'boolean', default: false })
      .option('quiet', { alias: 'q', describe: 'No progress or status on stderr', type: 'boolean', default: false })
      .example('$0 convert results/ -o responses.parquet', 'every harness output under results/, detected per folder')
      .example('$0 convert out/samples_mmlu_*.jsonl --score chars -o mmlu.jsonl.gz', 'lm-eval samples, length-normalised like acc_norm')
      .example('$0 convert benchmark_output/runs/v1.0/ --from helm -o helm.arrow --json', 'HELM runs, summary as JSON')
      .epilogue(
        'The tidy file has one record per model x item presentation: model, item, benchmark, key, options, and exactly one ' +
          'of probs, logprobs (-Infinity written as "-Infinity" in JSON Lines) or choice (null = unparsable, counted as missing). ' +
          'The summary lists items, hard and soft answers, missing answers and mean leakage per model and benchmark, and ' +
          'everything a reader skipped with the reason.',
      ) as unknown as Argv<ConvertArgs>,
  handler: async (argv) => {
    // Check the output name before reading anything: a typo should not cost a long conversion.
    if (tidyFormatFromExtension(argv.output) === undefined) {
      throw new LlmNrmError('INVALID_OPTION', `unknown output extension: ${argv.output} (use .jsonl, .jsonl.gz, .arrow or .parquet)`);
    }
    const options: ConvertOptions = { skipInvalid: argv['skip-invalid'] };
    if (argv.from !== undefined) options.from = argv.from;
    if (argv.score !== undefined) options.score = argv.score;
    if (argv.filter !== undefined) options.filter = argv.filter;
    if (argv.model !== undefined) options.model = argv.model;
    const { records, summary } = convertPaths(argv.inputs, options);
    const tick = progress(argv.quiet);
    const started = Date.now();
    const { records: n } = await writeResponses(records, argv.output, {
      // Quiet for the first second: short runs print only the final line.
      onRecord: (count) => {
        const s = (Date.now() - started) / 1000;
        if (s >= 1) tick(`convert: ${count} records (${s.toFixed(0)} s)`);
      },
    });
    info(argv.quiet, `wrote ${n} records to ${argv.output}`);
    if (n === 0) info(argv.quiet, 'warning: no records: nothing in the inputs was a usable multiple-choice response (see skipped)');
    if (argv.json) printJson({ output: argv.output, ...summary });
    else process.stdout.write(formatSummary(summary));
  },
};

/** The summary as text: inputs, a models x benchmarks table, and what was skipped and why. */
export function formatSummary(summary: ConvertSummary): string {
  const lines: string[] = [];
  for (const input of summary.inputs) lines.push(`input ${input.path} (${input.format})`);
  lines.push('');
  const rows = summary.byModelBenchmark.map((r) => [
    r.model, r.benchmark || '-', r.items, r.hard, r.soft, r.missing, r.meanLeakage === null ? '-' : r.meanLeakage,
  ]);
  lines.push(formatTable(['model', 'benchmark', 'items', 'hard', 'soft', 'missing', 'leakage'], rows).trimEnd());
  lines.push('');
  lines.push(`${summary.records} records; ${summary.byModelBenchmark.length} model x benchmark pairs`);
  for (const note of summary.notes) lines.push(`note: ${note}`);
  if (summary.skipped.length > 0) {
    lines.push(`skipped ${summary.skipped.length}:`);
    for (const s of summary.skipped.slice(0, SKIPPED_SHOWN)) lines.push(`  ${s.file}${s.line !== undefined ? `:${s.line}` : ''}: ${s.reason}`);
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
