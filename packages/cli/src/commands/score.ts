import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import {
  FLEET_NUISANCE_BELOW,
  LlmNrmError,
  argmaxAccuracies,
  duplicateRows,
  getFamily,
  isLlmNrmError,
  place,
  scoreResponses,
  type CalibrationBundle,
  type LlmScore,
  type Placement,
  type RecordSource,
  type ResponseRecord,
} from '@llm-nrm/core';
import { assertOutputIsNotInput, isToolOutput, packageRunRecord, readBundle, readTinyPackage, tinyScoringBundle, writeFileOutput } from '@llm-nrm/adapters';
import { RANK_LEVEL, predictPackageAccuracy, runRankInterval } from '@llm-nrm/analysis';
import { formatTable, info, printJson, printText } from '../output.js';
import { calibrationJson, unconvergedLine } from '../bundleConvergence.js';
import { readResponsesInput, reportReadInput, responsesInputOptions, type ResponsesInputArgs } from '../responsesInput.js';
import { packageTaskRecords } from '../packageTaskRecords.js';
import { duplicateRowsWarning } from '../duplicateRowsWarning.js';
import { commandLine, toolVersion } from '../provenance.js';
import { engineOption, loadEngine } from '../engines.js';
import { fitProgress } from './fit.js';
interface ScoreArgs extends ResponsesInputArgs {
  bundle: string;
  responses: string;
  output?: string;
  'skip-invalid': boolean;
  engine: string;
  nuisance: 'auto' | 'fit' | 'fleet' | 'sharpness';
  json: boolean;
  quiet: boolean;
}

// The ranking rule (`place`) lives in core, the rank interval and the accuracy prediction in analysis: re-exported for this command's callers.
export { place, type Placement };

async function isDir(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory();
  } catch {
    return false;
  }
}

/** bank_sha256 values recorded in lm-eval results files under `path` (task metadata), with their files. */
async function recordedBankShas(path: string): Promise<{ file: string; task: string; sha: string | null }[]> {
  const out: { file: string; task: string; sha: string | null }[] = [];
  const visit = async (p: string, depth: number): Promise<void> => {
    if (await isDir(p)) {
      if (depth > 6) return;
      for (const e of await readdir(p)) await visit(join(p, e), depth + 1);
      return;
    }
    if (!/results[^/]*\.json$/.test(p)) return;
    try {
      const doc = JSON.parse(await readFile(p, 'utf8')) as { configs?: Record<string, { metadata?: { bank_sha256?: string } }> };
      for (const [task, cfg] of Object.entries(doc.configs ?? {})) out.push({ file: p, task, sha: cfg.metadata?.bank_sha256 ?? null });
    } catch {
      // not a results file
    }
  };
  await visit(path, 0);
  return out;
}

/**
 * Refuse responses none of which is an answer (every one missing), naming the file and why: an
 * lm-eval run whose log-likelihoods are all NaN reads as missing answers, and scoring them would
 * give the prior back (theta 0 ± 3) as if it were a score.
 */
export function throwIfNothingAnswered(records: readonly ResponseRecord[], sources: readonly RecordSource[], notes: readonly string[]): void {
  if (records.length === 0) return;
  const answered = (r: ResponseRecord) => r.probs !== undefined || r.logprobs !== undefined || (r.choice !== null && r.choice !== undefined);
  if (records.some(answered)) return;
  const files = [...new Set(sources.map((s) => s.file).filter((f): f is string => f !== undefined))];
  const nan = files
    .map((f) => ({ f, m: notes.find((n) => n.startsWith(`${f}:`))?.match(/(\d+) NaN option scores/) }))
    .filter((x) => x.m !== undefined && x.m !== null);
  const cause =
    nan.length > 0
      ? `its log-likelihoods are NaN (${nan.map((x) => `${x.m![1]} NaN option scores in ${x.f}`).join(', ')}): the model returned no scores; rerun it`
      : 'every response is missing (no answer, or no finite option score)';
  const first = sources[0];
  throw new LlmNrmError('EMPTY', `none of the ${records.length} responses has an answer to score: ${cause}`, {
    ...(first?.file !== undefined ? { file: first.file } : {}),
  });
}

export const scoreCommand: CommandModule<object, ScoreArgs> = {
  command: 'score <bundle> <responses>',
  describe: 'Place new LLMs on a calibrated scale (theta ± SE, rank interval, predicted accuracy) from tidy responses or harness outputs',
  builder: (y: Argv) =>
    responsesInputOptions(engineOption(y), 'Skip (and count) invalid records and responses to items not in the bundle, instead of stopping')
      .positional('bundle', {
        describe: 'Calibration bundle written by `llm-nrm fit`, or a tiny package folder written by `llm-nrm publish`',
        type: 'string',
        demandOption: true,
      })
      .positional('responses', {
        describe: 'Tidy responses (.jsonl, .arrow, .parquet) or harness output (lm-eval, Inspect, OpenAI evals, HELM; file or folder, format detected)',
        type: 'string',
        demandOption: true,
      })
      .option('output', { alias: 'o', describe: 'Write the scores as JSON', type: 'string', requiresArg: true })
      .option('nuisance', {
        describe:
          `How sharpness, position bias and fallback are scored: fit them all with theta; fleet: hold them at the calibrated fleet's means ` +
          `(theta alone); sharpness: fit theta and sharpness, bias and fallback under the fleet's spread as priors; auto: sharpness for an LLM that answered fewer than ` +
          `${FLEET_NUISANCE_BELOW} items (tiny runs), else fit; a tiny package's runs: as the package says (sharpness, what its lm-eval task computes)`,
        choices: ['auto', 'fit', 'fleet', 'sharpness'] as const,
        default: 'auto' as const,
      })
      .option('json', { describe: 'Print the scores as JSON', type: 'boolean', default: false })
      .option('quiet', { alias: 'q', describe: 'No progress or status on stderr', type: 'boolean', default: false })
      .example('$0 score bundle.json new-model.jsonl', 'theta ± SE and the place on the leaderboard')
      .example('$0 score tiny-mmlu/ out/', "a tiny run straight from lm-eval's --output_path folder (or Inspect logs, an OpenAI-evals record)")
      .example('$0 score bundle.json tiny-run.parquet --skip-invalid -o scores.json', 'skip responses to items the bundle lacks')
      .epilogue(
        "Item parameters and the globals stay at the bundle's values. From fewer than " +
          FLEET_NUISANCE_BELOW +
          " items an LLM's " +
          "theta and sharpness are fitted, bias and fallback under the calibrated fleet's spread as priors (the robust score of a tiny run; " +
          'the lm-eval task computes the same number); the SE says how little a score rests on. The rank interval is the central ' +
          `${Math.round(100 * RANK_LEVEL)}% range of its rank among the calibrated LLMs over redraws of every theta within its SE ` +
          "(the leaderboard site's rule); a tiny package also predicts the full-bank accuracy (90% interval).",
      ) as unknown as Argv<ScoreArgs>,
  handler: async (argv) => {
    // Refused before any work: the scores never replace the bundle or the responses.
    // A published folder is read through its bank.json and items.jsonl: those are inputs too.
    const bundleDir = await isDir(argv.bundle);
    const inputs = [argv.bundle, argv.responses, ...(bundleDir ? [join(argv.bundle, 'bank.json'), join(argv.bundle, 'items.jsonl')] : [])];
    if (argv.output !== undefined) await assertOutputIsNotInput(argv.output, inputs);
    const tiny = bundleDir ? await readTinyPackage(argv.bundle) : null;
    let bundle: CalibrationBundle;
    if (tiny) {
      // What the harness ran is what the items are checked against.
      bundle = tinyScoringBundle(tiny);
    } else {
      try {
        bundle = await readBundle(argv.bundle);
      } catch (e) {
        // `score responses.jsonl bundle.json`: say so rather than "not a valid calibration bundle".
        if (e instanceof LlmNrmError && e.code === 'INVALID_BUNDLE' && (await isToolOutput(argv.responses))) {
          throw new LlmNrmError(
            'INVALID_OPTION',
            `${argv.bundle} is not a calibration bundle but ${argv.responses} is: were the arguments swapped? (llm-nrm score <bundle> <responses>)`,
            { cause: e },
          );
        }
        throw e;
      }
    }
    // Tidy files and every harness output, format detected (adapters' one entry point for responses).
    // As `fit` reads them; ids the bundle split into versions (<id>#<hash>) matched by content.
    // Read quietly: what the readers say is reported below, for this package's task only.
    const input = await readResponsesInput(argv.responses, { ...argv, quiet: true }, bundle.items);
    // `lm_eval --tasks tiny_a,tiny_b` leaves both tasks in one folder: a package scores its own.
    const own = tiny
      ? packageTaskRecords(input, tiny.bank.task)
      : { records: input.records, sources: input.sources, notes: input.summary.notes, skipped: input.summary.skipped, otherTasks: new Map<string, number>() };
    let records: ResponseRecord[] = own.records;
    const sources: RecordSource[] = own.sources;
    const report = { skipped: own.skipped };
    reportReadInput(argv.quiet, own);
    const formats = [...new Set(input.summary.inputs.map((i) => i.format))];
    if (!formats.every((f) => f === 'tidy')) info(argv.quiet, `read ${records.length} ${formats.join(' + ')} responses from ${argv.responses}`);
    if (own.otherTasks.size > 0) {
      const tasks = [...own.otherTasks].map(([t, n]) => `${t} (${n})`).join(', ');
      info(argv.quiet, `left out the responses of other tasks in ${argv.responses}: ${tasks}; scored ${tiny!.bank.task}'s`);
    }
    const warnings: string[] = [];
    const repeated = duplicateRowsWarning(duplicateRows(records), { records, sources });
    if (repeated !== null) warnings.push(repeated);
    if (tiny) {
      // lm-eval: the results record which bank each task ran with; this package's task must have run with its bank.
      const shas = (await recordedBankShas(argv.responses)).filter((s) => s.sha !== null && (own.otherTasks.size === 0 || s.task === tiny.bank.task));
      const other = shas.find((s) => s.sha !== tiny.bankSha256);
      if (other) {
        throw new LlmNrmError(
          'CONTENT_CHANGED',
          `${other.file}: task ${other.task} ran with bank sha256 ${other.sha!.slice(0, 12)}..., not ${tiny.dir}'s ${tiny.bankSha256.slice(0, 12)}...: ` +
            'that run is of another package (or an edited one)',
          { file: other.file },
        );
      }
      if (shas.length > 0) info(argv.quiet, `bank sha256 recorded in ${shas.length} lm-eval results file(s) matches ${tiny.dir}`);
      // OpenAI evals name a sample by its line index only: the manifest maps it back.
      const evalName = tiny.bank.task.replace(/_/g, '-');
      const manifest = tiny.manifest;
      records = records.map((r) => {
        const rest = manifest && r.item.startsWith(`${evalName}/`) ? r.item.slice(evalName.length + 1).replace(/^test\./, '') : '';
        const m = /^\d+$/.test(rest) ? [rest, rest] : null;
        return packageRunRecord(m && manifest![Number(m[1])] !== undefined ? { ...r, item: manifest![Number(m[1])]! } : r);
      });
    }
    const known = new Set(bundle.items.map((it) => it.id));
    const unknown = records.filter((r) => !known.has(r.item)).length;
    if (records.length > 0 && unknown === records.length) {
      const tasks = [...new Set(records.map((r) => r.benchmark ?? r.item.split('/')[0]))].slice(0, 5);
      throw new LlmNrmError(
        'UNKNOWN_ITEM',
        `none of the ${records.length} responses in ${argv.responses} is to an item of ${argv.bundle} (tasks in the responses: ${tasks.join(', ')}` +
          `${tiny ? `; the package's task is ${tiny.bank.task}` : ''}): the output of another task?`,
      );
    }
    if (unknown > 0 && !argv['skip-invalid']) {
      const i = records.findIndex((r) => !known.has(r.item));
      const src = sources[i];
      const where = src ? `${src.file}${src.line !== undefined ? `:${src.line}` : ''}: ` : `${argv.responses}: `;
      throw new LlmNrmError(
        'UNKNOWN_ITEM',
        `${where}item not in the bundle ${argv.bundle}: ${JSON.stringify(records[i]!.item)} (${unknown} of ${records.length} responses are to items ` +
          `the bundle lacks; --skip-invalid scores the rest)`,
      );
    }
    throwIfNothingAnswered(records, sources, own.notes);
    // A tiny package says how its runs are scored (what its lm-eval aggregation does too).
    const nuisance = tiny && argv.nuisance === 'auto' ? tiny.bank.scoring.nuisance : argv.nuisance;
    const engine = await loadEngine(argv.engine);
    let res: ReturnType<typeof scoreResponses>;
    try {
      res = scoreResponses(bundle, records, { sources, skipInvalid: argv['skip-invalid'], nuisance, engine, onProgress: fitProgress(argv.quiet, 'score') });
    } catch (e) {
      // Advice in terms of score's own options (it has no optimizer or learning rate to change).
      if (isLlmNrmError(e, 'NON_FINITE'))
        throw new LlmNrmError(
          'NON_FINITE',
          `${e.message}; ${nuisance === 'fleet' ? 'check the responses' : 'try --nuisance fleet (theta alone), or check the responses'}`,
          { cause: e },
        );
      throw e;
    }
    const skippedInvalid = report.skipped.length + res.stats.skipped - unknown;
    info(
      argv.quiet,
      `scored ${res.llms.length} LLMs on ${res.stats.cells} cells against ${bundle.items.length} calibrated items (${bundle.model}, ${bundle.llms.length} calibrated LLMs)`,
    );
    if (unknown > 0) info(argv.quiet, `skipped ${unknown} responses to items not in the bundle`);
    if (skippedInvalid > 0) info(argv.quiet, `skipped ${skippedInvalid} invalid records`);
    const lo = Math.min(...bundle.llms.map((l) => l.theta));
    const hi = Math.max(...bundle.llms.map((l) => l.theta));
    // Each run's accuracy on the package's items (core's rule), the input of the accuracy prediction.
    const runAcc = tiny ? argmaxAccuracies(records, bundle.items) : new Map<string, Map<string, number>>();
    const scored = res.llms
      .map((l) => {
        // The rank interval and the accuracy prediction of analysis, as the site's score page shows them.
        const ri = runRankInterval(bundle.llms, l);
        const extra: Record<string, unknown> = { rankInterval: [ri.lo, ri.hi], rankLevel: ri.level };
        if (tiny) extra['predictedAccuracy'] = predictPackageAccuracy(tiny.bank.accuracy, l, runAcc.get(l.id) ?? new Map());
        if (l.items < bundle.items.length)
          warnings.push(`${l.id}: answered ${l.items} of the ${bundle.items.length} items; the SE (${l.se.toFixed(3)}) reflects the items answered`);
        if (l.theta < lo || l.theta > hi)
          warnings.push(
            `${l.id}: theta ${l.theta.toFixed(3)} lies outside the calibrated range [${lo.toFixed(3)}, ${hi.toFixed(3)}]: rank and accuracy are extrapolated`,
          );
        return { ...l, ...place(bundle, l.theta), ...extra } as LlmScore &
          Placement & {
            rankInterval: [number, number];
            rankLevel: number;
            predictedAccuracy?: Record<string, { accuracy: number; low: number; high: number }>;
          };
      })
      .sort((a, b) => b.theta - a.theta || a.id.localeCompare(b.id));
    for (const w of warnings) info(argv.quiet, `warning: ${w}`);
    // A bundle from an unconverged fit is said first (stdout's first line, JSON's first key).
    const unsettled = unconvergedLine(bundle, argv.bundle);
    const summary = {
      calibration: calibrationJson(bundle),
      bundle: argv.bundle,
      responses: argv.responses,
      ...(tiny ? { package: { task: tiny.bank.task, bankSha256: tiny.bankSha256, items: bundle.items.length } } : {}),
      model: bundle.model,
      calibratedLlms: bundle.llms.length,
      llms: scored,
      warnings,
      stats: { records: res.stats.records, cells: res.stats.cells, unknownItems: unknown, skippedInvalid, missingAnswers: res.stats.missingAnswers },
      converged: res.converged,
      loss: res.loss,
      provenance: { tool: 'llm-nrm', version: toolVersion(), createdAt: new Date().toISOString(), command: commandLine() },
    };
    if (argv.output !== undefined) {
      await writeFileOutput(argv.output, JSON.stringify(summary, null, 2) + '\n', { inputs });
      info(argv.quiet, `wrote ${argv.output}`);
    }
    if (argv.json) {
      if (unsettled !== null) info(argv.quiet, unsettled.trimEnd());
      printJson(summary);
      return;
    }
    printText((unsettled ?? '') + formatScores(bundle, scored));
    if (tiny) {
      for (const l of scored) {
        const pa = l.predictedAccuracy!;
        const parts = Object.entries(pa).map(([b, v]) => `${b} ${(100 * v.accuracy).toFixed(1)}% [${(100 * v.low).toFixed(1)}, ${(100 * v.high).toFixed(1)}]`);
        printText(
          `${l.id}: rank ${l.rankInterval[0]}-${l.rankInterval[1]} of ${bundle.llms.length + 1} (${Math.round(100 * l.rankLevel)}%); predicted full-bank accuracy ${parts.join('; ')}\n`,
        );
      }
    }
    if (!res.converged) info(argv.quiet, 'warning: scoring did not converge; the estimates may be rough');
  },
};

/** The scores table, then where each LLM sits between two calibrated ones (for a handful of LLMs). */
export function formatScores(bundle: CalibrationBundle, scored: (LlmScore & Placement)[]): string {
  // Only a family that fits sharpness (LLM-NRM with it on) has one to show.
  const hasSharpness = getFamily(bundle.model, bundle.parts).parts.sharpness;
  const rows = scored.map((l) => [
    l.id,
    l.theta,
    Number.isFinite(l.se) ? `±${l.se.toFixed(4)}` : '-',
    hasSharpness ? l.sharpness : '-',
    l.cells,
    l.accuracy,
    `${l.rank} of ${l.of}`,
    Number.isFinite(l.percentile) ? `${l.percentile.toFixed(1)}%` : '-',
  ]);
  const lines = [formatTable(['model', 'theta', 'se', 'sharpness', 'cells', 'accuracy', 'rank', 'percentile'], rows).trimEnd()];
  // Said, not left to be read off a sharpness of exactly 1 (issue 31: nothing said so).
  const held = hasSharpness ? scored.filter((l) => l.hardAnswers && l.nuisance !== 'fleet') : [];
  if (held.length > 0)
    lines.push(
      `${held.length === scored.length ? 'every model' : held.map((l) => l.id).join(', ')}: only hard answers (choices or one-hot), so sharpness is held at 1 (one-hot answers cannot identify it)`,
    );
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
