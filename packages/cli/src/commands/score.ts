import { readFile } from 'node:fs/promises';
import type { Argv, CommandModule } from 'yargs';
import {
  FLEET_NUISANCE_BELOW, LlmNrmError, parseBundle, scoreResponses,
  type CalibrationBundle, type LlmScore, type RecordSource, type ResponseRecord,
} from '@llm-nrm/core';
import { isToolOutput, newReport, readResponsesWithSources, writeFileAtomic } from '@llm-nrm/adapters';
import { formatTable, info, printJson } from '../output.js';
import { commandLine, toolVersion } from '../provenance.js';
import { fitProgress } from './fit.js';

interface ScoreArgs {
  bundle: string;
  responses: string;
  output?: string;
  'skip-invalid': boolean;
  nuisance: 'auto' | 'fit' | 'fleet';
  json: boolean;
  quiet: boolean;
}

/** A scored LLM placed among the bundle's calibrated LLMs. */
export interface Placement {
  /** 1-based rank of the new LLM among the calibrated ones plus itself. */
  rank: number;
  /** Out of: the calibrated LLMs plus this one. */
  of: number;
  /** Share (0-100) of calibrated LLMs with a lower theta (ties count half). */
  percentile: number;
  /** The calibrated LLMs just above and just below it. */
  above: { id: string; theta: number } | null;
  below: { id: string; theta: number } | null;
}

/** Where `theta` falls among the bundle's calibrated LLMs. */
export function place(bundle: CalibrationBundle, theta: number): Placement {
  const sorted = bundle.llms.slice().sort((a, b) => b.theta - a.theta);
  let higher = 0;
  let ties = 0;
  for (const l of sorted) {
    if (l.theta > theta) higher++;
    else if (l.theta === theta) ties++;
  }
  const n = sorted.length;
  const lower = n - higher - ties;
  const pick = (i: number) => (i >= 0 && i < n ? { id: sorted[i]!.id, theta: sorted[i]!.theta } : null);
  return {
    rank: higher + 1,
    of: n + 1,
    percentile: n > 0 ? (100 * (lower + ties / 2)) / n : NaN,
    above: pick(higher - 1),
    below: pick(higher + ties),
  };
}

export const scoreCommand: CommandModule<object, ScoreArgs> = {
  command: 'score <bundle> <responses>',
  describe: 'Place new LLMs on a calibrated scale: fit each one\'s theta (± SE), sharpness, bias and fallback with the bundle\'s items held fixed',
  builder: (y: Argv) =>
    y
      .positional('bundle', { describe: 'Calibration bundle written by `llm-nrm fit`', type: 'string', demandOption: true })
      .positional('responses', { describe: 'Tidy responses of the new LLMs (.jsonl, .jsonl.gz, .arrow, .parquet, or a folder)', type: 'string', demandOption: true })
      .option('output', { alias: 'o', describe: 'Write the scores as JSON', type: 'string', requiresArg: true })
      .option('skip-invalid', { describe: 'Skip (and count) invalid records and responses to items not in the bundle, instead of stopping', type: 'boolean', default: false })
      .option('nuisance', {
        describe: `How sharpness, position bias and fallback are scored: fit them with theta, hold them at the calibrated fleet's means ` +
          `(theta alone), or auto: fleet for an LLM that answered fewer than ${FLEET_NUISANCE_BELOW} items (tiny runs), else fit`,
        choices: ['auto', 'fit', 'fleet'] as const, default: 'auto' as const,
      })
      .option('json', { describe: 'Print the scores as JSON', type: 'boolean', default: false })
      .option('quiet', { alias: 'q', describe: 'No progress or status on stderr', type: 'boolean', default: false })
      .example('$0 score bundle.json new-model.jsonl', 'theta ± SE and the place on the leaderboard')
      .example('$0 score bundle.json tiny-run.parquet --skip-invalid -o scores.json', 'skip responses to items the bundle lacks')
      .epilogue(
        'Item parameters and the globals stay at the bundle\'s values; an LLM already in the bundle is scored afresh from ' +
          'its new responses. A score from few items is finite (priors on theta, sharpness, bias and fallback) and its SE ' +
          'says how little it rests on. Rank and percentile are among the bundle\'s calibrated LLMs.',
      ) as unknown as Argv<ScoreArgs>,
  handler: async (argv) => {
    let text: string;
    try {
      text = await readFile(argv.bundle, 'utf8');
    } catch (e) {
      throw new LlmNrmError('IO', `cannot read ${argv.bundle}: ${(e as Error).message}`, { cause: e, file: argv.bundle });
    }
    let bundle: CalibrationBundle;
    try {
      bundle = parseBundle(text, argv.bundle);
    } catch (e) {
      // `score responses.jsonl bundle.json`: say so rather than "not a valid calibration bundle".
      if (e instanceof LlmNrmError && e.code === 'INVALID_BUNDLE' && (await isToolOutput(argv.responses))) {
        throw new LlmNrmError('INVALID_OPTION', `${argv.bundle} is not a calibration bundle but ${argv.responses} is: were the arguments swapped? (llm-nrm score <bundle> <responses>)`, { cause: e });
      }
      throw e;
    }
    const report = newReport();
    const records: ResponseRecord[] = [];
    const sources: RecordSource[] = [];
    for await (const { record, source } of readResponsesWithSources(argv.responses, { skipInvalid: argv['skip-invalid'], report })) {
      records.push(record);
      sources.push(source);
    }
    const known = new Set(bundle.items.map((it) => it.id));
    const unknown = records.filter((r) => !known.has(r.item)).length;
    if (unknown > 0 && !argv['skip-invalid']) {
      const i = records.findIndex((r) => !known.has(r.item));
      const where = `${sources[i]!.file}${sources[i]!.line !== undefined ? `:${sources[i]!.line}` : ''}`;
      throw new LlmNrmError(
        'UNKNOWN_ITEM',
        `${where}: item not in the bundle ${argv.bundle}: ${JSON.stringify(records[i]!.item)} (${unknown} of ${records.length} responses are to items ` +
          `the bundle lacks; --skip-invalid scores the rest)`,
      );
    }
    const res = scoreResponses(bundle, records, { sources, skipInvalid: argv['skip-invalid'], nuisance: argv.nuisance, onProgress: fitProgress(argv.quiet, 'score') });
    const skippedInvalid = report.skipped.length + res.stats.skipped - unknown;
    info(argv.quiet, `scored ${res.llms.length} LLMs on ${res.stats.cells} cells against ${bundle.items.length} calibrated items (${bundle.model}, ${bundle.llms.length} calibrated LLMs)`);
    if (unknown > 0) info(argv.quiet, `skipped ${unknown} responses to items not in the bundle`);
    if (skippedInvalid > 0) info(argv.quiet, `skipped ${skippedInvalid} invalid records`);
    const scored = res.llms
      .map((l) => ({ ...l, ...place(bundle, l.theta) }))
      .sort((a, b) => b.theta - a.theta || a.id.localeCompare(b.id));
    const summary = {
      bundle: argv.bundle,
      responses: argv.responses,
      model: bundle.model,
      calibratedLlms: bundle.llms.length,
      llms: scored,
      stats: { records: res.stats.records, cells: res.stats.cells, unknownItems: unknown, skippedInvalid, missingAnswers: res.stats.missingAnswers },
      converged: res.converged,
      loss: res.loss,
      provenance: { tool: 'llm-nrm', version: toolVersion(), createdAt: new Date().toISOString(), command: commandLine() },
    };
    if (argv.output !== undefined) {
      await writeFileAtomic(argv.output, JSON.stringify(summary, null, 2) + '\n');
      info(argv.quiet, `wrote ${argv.output}`);
    }
    if (argv.json) {
      printJson(summary);
      return;
    }
    process.stdout.write(formatScores(bundle, scored));
    if (!res.converged) info(argv.quiet, 'warning: scoring did not converge; the estimates may be rough');
  },
};

/** The scores table, then where each LLM sits between two calibrated ones (for a handful of LLMs). */
export function formatScores(bundle: CalibrationBundle, scored: (LlmScore & Placement)[]): string {
  const hasSharpness = bundle.model === 'llm-nrm' && bundle.parts.sharpness;
  const rows = scored.map((l) => [
    l.id, l.theta, Number.isFinite(l.se) ? `±${l.se.toFixed(4)}` : '-', hasSharpness ? l.sharpness : '-', l.cells, l.accuracy,
    `${l.rank} of ${l.of}`, Number.isFinite(l.percentile) ? `${l.percentile.toFixed(1)}%` : '-',
  ]);
  const lines = [formatTable(['model', 'theta', 'se', 'sharpness', 'cells', 'accuracy', 'rank', 'percentile'], rows).trimEnd()];
  if (scored.length <= 10) {
    lines.push('');
    for (const l of scored) {
      const a = l.above ? `${l.above.id} (theta ${l.above.theta.toFixed(3)})` : '';
      const b = l.below ? `${l.below.id} (theta ${l.below.theta.toFixed(3)})` : '';
      if (l.above && l.below) lines.push(`${l.id}: between ${a} and ${b}`);
      else if (l.below) lines.push(`${l.id}: top of the leaderboard, above ${b}`);
      else if (l.above) lines.push(`${l.id}: bottom of the leaderboard, below ${a}`);
    }
  }
  return lines.join('\n') + '\n';
}
