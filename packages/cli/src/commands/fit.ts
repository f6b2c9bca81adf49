import { access } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import {
  LlmNrmError, MODEL_NAMES, fit, toBundle,
  type BundleLlm, type CalibrationBundle, type FitOptions, type FitResult, type ModelName, type OptimizeProgress,
} from '@llm-nrm/core';
import { loadBank, writeFileAtomic } from '@llm-nrm/adapters';
import { fmt, formatTable, info, printJson, progress } from '../output.js';
import { engineOption, loadEngine } from '../engines.js';
import { commandLine, hashInputs, toolVersion } from '../provenance.js';

interface FitArgs {
  responses: string;
  model: ModelName;
  sharpness: boolean;
  position: boolean;
  fallback: boolean;
  optimizer: 'lbfgs' | 'adam';
  engine: string;
  steps?: number;
  lr?: number;
  'max-iterations'?: number;
  tolerance?: number;
  seed?: number;
  'skip-invalid': boolean;
  'drop-empty': boolean;
  output: string;
  json: boolean;
  quiet: boolean;
}

/** LLMs of a bundle, best first, with their 1-based rank. */
export function ranked(llms: BundleLlm[]): (BundleLlm & { rank: number })[] {
  return llms
    .slice()
    .sort((a, b) => b.theta - a.theta || a.id.localeCompare(b.id))
    .map((l, i) => ({ ...l, rank: i + 1 }));
}

/** Leaderboard rows (rank, model, theta, se, sharpness, accuracy, cells); sharpness '-' when the model has none. */
export function leaderboardRows(bundle: CalibrationBundle, llms: (BundleLlm & { rank: number })[]): (string | number)[][] {
  const hasSharpness = bundle.model === 'llm-nrm' && bundle.parts.sharpness;
  return llms.map((l) => [
    l.rank, l.id, l.theta, l.identified === false ? 'unidentified' : l.se === null ? '-' : l.se, hasSharpness ? l.sharpness : '-', l.accuracy ?? '-', l.cells ?? '-',
  ]);
}

export const LEADERBOARD_HEADER = ['rank', 'model', 'theta', 'se', 'sharpness', 'accuracy', 'cells'];

/** Fit diagnostics as `key value` lines. */
export function formatDiagnostics(f: CalibrationBundle['fit']): string {
  const rows: [string, string][] = [
    ['loss', fmt(f.loss)],
    ['iterations', String(f.iterations)],
    ['passes', String(f.passes)],
    ['seconds', f.seconds.toFixed(2)],
    ['converged', `${f.converged ? 'yes' : 'no'}${f.reason !== undefined ? ` (${f.reason})` : ''}`],
    ...(f.distance !== undefined && f.distance !== null ? [['distance', `${f.distance.toPrecision(2)} SE (estimated, to the optimum)`] as [string, string]] : []),
    ['optimizer', f.optimizer],
    ['engine', f.engine],
  ];
  const w = Math.max(...rows.map((r) => r[0].length));
  return rows.map(([k, v]) => `  ${k.padEnd(w)}  ${v}`).join('\n') + '\n';
}

/** A fit progress line, about once a second on stderr. */
export function fitProgress(quiet: boolean, label = 'fit'): (p: OptimizeProgress) => void {
  const tick = progress(quiet);
  return (p) => tick(`${label}: iteration ${p.iteration}, ${p.passes} passes, loss ${fmt(p.loss)}, ${p.seconds.toFixed(0)} s`);
}

function positiveInteger(flag: string, v: number | undefined): void {
  if (v !== undefined && !(Number.isInteger(v) && v > 0)) throw new LlmNrmError('INVALID_OPTION', `invalid --${flag}: ${v} (a positive integer)`);
}

export const fitCommand: CommandModule<object, FitArgs> = {
  command: 'fit <responses>',
  describe: 'Calibrate a bank: fit LLM-NRM (or NRM, 1PL-4PL) to a responses file, write the calibration bundle, print the leaderboard',
  builder: (y: Argv) =>
    engineOption(y)
      .positional('responses', { describe: 'Tidy responses file or folder (.jsonl, .jsonl.gz, .arrow, .parquet)', type: 'string', demandOption: true })
      .option('output', { alias: 'o', describe: 'Calibration bundle to write (JSON)', type: 'string', demandOption: true, requiresArg: true })
      .option('model', { alias: 'm', describe: 'Model family', choices: MODEL_NAMES as ModelName[], default: 'llm-nrm' as ModelName })
      .option('sharpness', { describe: 'LLM-NRM per-LLM sharpness (--no-sharpness: s = 1)', type: 'boolean', default: true })
      .option('position', { describe: 'LLM-NRM per-LLM positional bias (--no-position: none)', type: 'boolean', default: true })
      .option('fallback', { describe: 'LLM-NRM difficulty-gated guessing fallback (--no-fallback: none)', type: 'boolean', default: true })
      .option('optimizer', { describe: 'lbfgs: preconditioned L-BFGS, few passes; adam: the paper\'s recipe', choices: ['lbfgs', 'adam'] as const, default: 'lbfgs' as const })
      .option('steps', { describe: 'Adam steps (default 2500)', type: 'number', requiresArg: true })
      .option('lr', { describe: 'Adam learning rate (default 0.05)', type: 'number', requiresArg: true })
      .option('max-iterations', { describe: 'L-BFGS iteration cap (default 1000)', type: 'number', requiresArg: true })
      .option('tolerance', { describe: 'L-BFGS: also stop when the loss falls by less than this fraction over 5 iterations (default: off; the fit stops once every parameter is estimated within 0.01 SE of the optimum)', type: 'number', requiresArg: true })
      .option('seed', { describe: 'Recorded in the bundle\'s provenance (the fit itself is deterministic)', type: 'number', requiresArg: true })
      .option('skip-invalid', { describe: 'Skip (and count) invalid records instead of stopping at the first', type: 'boolean', default: false })
      .option('drop-empty', { describe: 'Drop LLMs and items with no observed cell instead of stopping', type: 'boolean', default: false })
      .option('json', { describe: 'Print a JSON summary instead of the leaderboard', type: 'boolean', default: false })
      .option('quiet', { alias: 'q', describe: 'No progress or status on stderr', type: 'boolean', default: false })
      .example('$0 fit responses.jsonl.gz -o bundle.json', 'LLM-NRM with every part, L-BFGS')
      .example('$0 fit responses.parquet --model 2pl -o bundle-2pl.json', 'a binary 2PL on correctness')
      .example('$0 fit responses.jsonl --engine tfjs -o b.json', 'loss and gradient on TensorFlow.js (the GPU with @tensorflow/tfjs-node-gpu)')
      .example('$0 fit responses.jsonl --no-position --optimizer adam --steps 2500 -o b.json --json', 'an ablation, the paper\'s Adam recipe, JSON summary')
      .epilogue(
        'The bundle holds every item\'s option slopes and intercepts (a, c) and difficulty, every LLM\'s theta with its ' +
          'standard error, sharpness, positional bias and fallback, the globals (w0, kappa), the fit diagnostics and the ' +
          'provenance (tool version, input SHA-256, command line). `llm-nrm score` places new LLMs on it.',
      ) as unknown as Argv<FitArgs>,
  handler: async (argv) => {
    positiveInteger('steps', argv.steps);
    positiveInteger('max-iterations', argv['max-iterations']);
    if (argv.lr !== undefined && !(argv.lr > 0)) throw new LlmNrmError('INVALID_OPTION', `invalid --lr: ${argv.lr} (a positive number)`);
    // A missing output folder should not cost a long fit.
    try {
      await access(dirname(argv.output));
    } catch {
      throw new LlmNrmError('IO', `output folder does not exist: ${dirname(argv.output)}`, { file: argv.output });
    }
    const started = Date.now();
    const { bank, stats, report } = await loadBank(argv.responses, { skipInvalid: argv['skip-invalid'], dropEmpty: argv['drop-empty'] });
    info(argv.quiet, `loaded ${bank.models.length} LLMs x ${bank.items.length} items (${bank.colItem.length} presentations, ${stats.cells} cells) from ${argv.responses}`);
    const skipped = report.skipped.length + stats.skipped;
    if (skipped > 0) {
      const r = report.skipped[0];
      const first = r !== undefined ? `${r.file}${r.line !== undefined ? `:${r.line}` : ''}: ${r.reason}` : stats.skippedReasons[0];
      info(argv.quiet, `skipped ${skipped} invalid records; the first: ${first}`);
    }
    if (stats.droppedModels.length + stats.droppedItems.length > 0) {
      info(argv.quiet, `dropped ${stats.droppedModels.length} LLMs and ${stats.droppedItems.length} items with no observed cell`);
    }
    const options: FitOptions = {
      model: argv.model,
      parts: { sharpness: argv.sharpness, position: argv.position, fallback: argv.fallback },
      optimizer: argv.optimizer,
      engine: await loadEngine(argv.engine),
      onProgress: fitProgress(argv.quiet),
    };
    if (argv.steps !== undefined) options.steps = argv.steps;
    if (argv.lr !== undefined) options.lr = argv.lr;
    if (argv['max-iterations'] !== undefined) options.maxIterations = argv['max-iterations'];
    if (argv.tolerance !== undefined) options.tolerance = argv.tolerance;
    const result: FitResult = fit(bank, options);
    const bundle = toBundle(result, {
      version: toolVersion(),
      inputs: await hashInputs(argv.responses),
      command: commandLine(),
      ...(argv.seed !== undefined ? { seed: argv.seed } : {}),
    });
    await writeFileAtomic(argv.output, JSON.stringify(bundle, null, 2) + '\n');
    info(argv.quiet, `wrote ${argv.output} (${((Date.now() - started) / 1000).toFixed(1)} s in all)`);
    const board = ranked(bundle.llms);
    if (argv.json) {
      printJson({
        output: argv.output,
        model: bundle.model,
        parts: bundle.parts,
        llms: board.map((l) => ({ rank: l.rank, id: l.id, theta: l.theta, se: l.se, sharpness: l.sharpness, accuracy: l.accuracy, cells: l.cells })),
        items: bundle.items.length,
        fit: bundle.fit,
        stats: { records: stats.records, cells: stats.cells, soft: stats.soft, hard: stats.hard, missingAnswers: stats.missingAnswers, skipped, droppedModels: stats.droppedModels, droppedItems: stats.droppedItems },
        provenance: bundle.provenance,
      });
      return;
    }
    const name = bundle.model === 'llm-nrm' ? `LLM-NRM${ablationNote(bundle.parts)}` : bundle.model.toUpperCase();
    process.stdout.write(
      `${name} leaderboard: ${board.length} LLMs on ${bundle.items.length} items\n` +
        formatTable(LEADERBOARD_HEADER, leaderboardRows(bundle, board)) +
        `\nfit\n${formatDiagnostics(bundle.fit)}`,
    );
    if (!bundle.fit.converged) info(argv.quiet, `warning: the fit did not converge (${bundle.fit.reason}); raise --max-iterations or --steps`);
    const unidentified = bundle.llms.filter((l) => l.identified === false).map((l) => l.id);
    if (unidentified.length > 0) info(argv.quiet, `warning: theta is not identified for ${unidentified.join(', ')} (its cells and the priors do not pin it; SE infinite)`);
  },
};

function ablationNote(parts: CalibrationBundle['parts']): string {
  const off = (['sharpness', 'position', 'fallback'] as const).filter((p) => !parts[p]);
  return off.length > 0 ? ` (without ${off.join(', ')})` : '';
}
