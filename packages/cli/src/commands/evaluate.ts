import type { Argv, CommandModule } from 'yargs';
import { LlmNrmError, MODEL_NAMES, fitConvergence, requireKeys, type FitOptions, type ModelName } from '@llm-nrm/core';
import { readBankInput, responsesInputOptions, type ResponsesInputArgs } from '../responsesInput.js';
import {
  ADAPTIVE_DEFAULTS,
  calibrationCurve,
  llmCrossValidate,
  type AdaptiveStudy,
  type CalibrationCurve,
  type Compression,
  type CrossValidation,
  type LlmCrossValidation,
  type MeanSd,
} from '@llm-nrm/analysis';
import { engineOption, loadEngine } from '../engines.js';
import { adaptiveStudyParallel, compressionParallel, crossValidateParallel, type FoldWorkerOptions } from './evaluateWorkers.js';
import { formatTable, info, printJson, printText, progress } from '../output.js';

interface EvaluateArgs extends ResponsesInputArgs {
  responses: string;
  cv?: number;
  'by-llm'?: number;
  compression?: string;
  adaptive?: string;
  se: number;
  'min-items': number;
  'max-items': number;
  batch: number;
  randomesque: number;
  scoring: 'tiny-run' | 'fixed-items' | 'theta-only';
  calibration?: string;
  models: string;
  ablations: boolean;
  seed: number;
  engine: string;
  'max-iterations'?: number;
  workers?: number;
  json: boolean;
  quiet: boolean;
}

const DEFAULT_MODELS = 'llm-nrm,nrm,nrm-hard,1pl,2pl,3pl,4pl';

function parseModels(text: string): ModelName[] {
  const out = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const m of out) {
    if (!(MODEL_NAMES as readonly string[]).includes(m)) {
      throw new LlmNrmError('INVALID_OPTION', `unknown model: ${JSON.stringify(m)} (one of ${MODEL_NAMES.join(', ')})`);
    }
  }
  if (out.length === 0) throw new LlmNrmError('INVALID_OPTION', 'no model given to --models');
  return out as ModelName[];
}

function parseInts(flag: string, text: string): number[] {
  const out = text.split(',').map((s) => Number(s.trim()));
  for (const n of out)
    if (!Number.isInteger(n) || n < 1)
      throw new LlmNrmError('INVALID_OPTION', `invalid ${flag} value: ${JSON.stringify(text)} (comma-separated positive integers)`);
  return out;
}

const ms = (v: MeanSd) => `${v.mean.toFixed(4)} ±${(Number.isNaN(v.sd) ? 0 : v.sd).toFixed(4)}`;

/** Table 1 as the paper prints it, mean ±SD over folds. */
export function cvTable(res: CrossValidation): string {
  const rows = res.rows.map((r) => [
    r.name,
    ms(r.option.accuracy),
    ms(r.option.logLoss),
    ms(r.correctness.accuracy),
    ms(r.correctness.logLoss),
    ms(r.correctness.brier),
    r.seconds.toFixed(1),
  ]);
  // Folds on worker threads overlap: a row's seconds are its fits' times added up.
  return (
    unconvergedNote(res) +
    `Held-out prediction, ${res.folds}-fold CV over ${res.cells} cells (seed ${res.seed}); mean ±SD over folds\n` +
    formatTable(['model', 'option acc', 'option log-loss', 'correct acc', 'correct log-loss', 'correct Brier', 'seconds'], rows)
  );
}

/** The folds whose fit ended farther than 1 SE from its optimum (core's fitConvergence), as `name fold n (d SE ...)`. */
export function unconvergedFolds(res: CrossValidation): { model: string; fold: number; reason: string | null; distance: number | null }[] {
  return res.rows.flatMap((r) =>
    r.folds.flatMap((m, f) => {
      const c = fitConvergence(m);
      return c.settled ? [] : [{ model: r.name, fold: f + 1, reason: c.reason, distance: c.distance }];
    }),
  );
}

/**
 * The first line of Table 1's output when fits ended farther than 1 SE from their optimum (their
 * held-out figures are those of the stopped fit, not the model's), with how far each was.
 */
function unconvergedNote(res: CrossValidation): string {
  const fits = res.rows.reduce((n, r) => n + r.folds.length, 0);
  const short = unconvergedFolds(res).map((u) => `${u.model} fold ${u.fold}${u.distance !== null ? ` (${u.distance.toFixed(3)} SE from its optimum)` : ''}`);
  if (short.length === 0) return '';
  return (
    `warning: ${short.length} of ${fits} fits did not converge (ended more than ${fitConvergence({ converged: false }).limit} SE from their optimum): ${short.join(', ')}; ` +
    'their figures are those of the stopped fit, not the model (raise --max-iterations to finish them)\n'
  );
}

export function llmCvTable(res: LlmCrossValidation): string {
  const label = { correctness: 'correctness only', 'incorrect-only': 'incorrect options only', options: 'all options (theta only)' } as const;
  return (
    `Ability from errors, ${res.folds}-fold CV over ${res.models.length} LLMs (${res.model}, seed ${res.seed}); ` +
    'correlation with the full-information theta\n' +
    formatTable(
      ['estimator', 'pearson', 'spearman', 'LLMs'],
      res.rows.map((r) => [label[r.estimator], r.pearson, r.spearman, r.n]),
    )
  );
}

export function compressionTable(res: Compression): string {
  return (
    `Compression, ${res.folds}-fold over LLMs (${res.model}, ${res.scoring} scoring): Kendall tau of held-out thetas from n items vs from all items (fixed-item fit)\n` +
    formatTable(
      ['items', 'kendall (selected)', `kendall (random, mean of ${res.randomDraws})`, 'per-fold mean'],
      res.points.map((p) => [p.budget, p.kendall, p.kendallRandom, p.kendallFoldMean]),
    )
  );
}

export function adaptiveTable(res: AdaptiveStudy): string {
  const s = res.seStop;
  const pct = (v: number) => `${(100 * v).toFixed(1)}%`;
  return (
    `Adaptive tests, ${res.folds}-fold over LLMs (llm-nrm, rounds of ${res.batch} items): Kendall tau and RMSE of held-out thetas against their full-bank thetas, ` +
    `beside the static tiny benchmark of the same length and random items\n` +
    formatTable(
      ['items', 'kendall (adaptive)', 'kendall (static tiny)', 'kendall (random)', 'theta RMSE (adaptive)', 'RMSE (static)', 'RMSE (random)', '95% coverage'],
      res.points.map((p) => [p.budget, p.kendall, p.kendallStatic, p.kendallRandom, p.thetaRmse, p.thetaRmseStatic, p.thetaRmseRandom, pct(p.coverage95)]),
    ) +
    `\nStopping at SE <= ${s.se} (at least ${s.minItems}, at most ${s.maxItems} items): ${s.meanItems.toFixed(1)} items on average (${s.items[0]}-${s.items[1]}), ` +
    `${pct(s.stoppedBySe)} stopped by the SE; kendall ${s.kendall.toFixed(4)}, theta RMSE ${s.thetaRmse.toFixed(4)}, 95% coverage ${pct(s.coverage95)}\n`
  );
}

export function calibrationTable(res: CalibrationCurve): string {
  return (
    `Calibration with fewer LLMs: held-out correctness log-loss (${res.heldOut} held-out LLMs, ${res.repeats} repeats)\n` +
    formatTable(
      ['model', 'calibration LLMs', 'log-loss'],
      res.points.map((p) => [p.name, p.n, ms(p.logLoss)]),
    )
  );
}

export const evaluateCommand: CommandModule<object, EvaluateArgs> = {
  command: 'evaluate <responses>',
  describe: 'Cross-validate models on a responses file: held-out prediction (Table 1), ability from errors (Table 3), compression, calibration size',
  builder: (y: Argv) =>
    responsesInputOptions(engineOption(y))
      .positional('responses', {
        describe: 'Responses, as `fit` reads them: a tidy file or folder (.jsonl, .jsonl.gz, .arrow, .parquet), or harness output; - reads standard input',
        type: 'string',
        demandOption: true,
      })
      .option('cv', { describe: 'Cell-level k-fold CV (Table 1); the default experiment when none is named', type: 'number', requiresArg: true })
      .option('by-llm', { describe: 'LLM-level k-fold CV: ability from correctness or from distractors only (Table 3)', type: 'number', requiresArg: true })
      .option('compression', {
        describe:
          'Item budgets, e.g. 10,41,100: Kendall tau of held-out LLMs (5 LLM folds) scored from the n items `publish` would select (possible-wrong-key items left out), beside random items (the mean of 5 draws) (Fig. 3a)',
        type: 'string',
        requiresArg: true,
      })
      .option('adaptive', {
        describe:
          'Lengths of adaptive tests, e.g. 10,20,41: each held-out LLM (5 LLM folds) answers, from its recorded responses, the items an adaptive run asks (option-level information at its current estimate, rounds of --batch items), scored as a tiny run; Kendall tau, theta RMSE and 95% coverage against its full-bank theta, beside the static tiny benchmark and random items of the same length; and runs stopped at --se',
        type: 'string',
        requiresArg: true,
      })
      .option('se', { describe: 'With --adaptive: the SE at which a run stops', type: 'number', default: ADAPTIVE_DEFAULTS.se })
      .option('min-items', { describe: 'With --adaptive: fewest items before the SE may stop a run', type: 'number', default: ADAPTIVE_DEFAULTS.minItems })
      .option('max-items', { describe: 'With --adaptive: most items of an SE-stopped run', type: 'number', default: ADAPTIVE_DEFAULTS.maxItems })
      .option('batch', {
        describe: 'With --adaptive: items per round (a harness scores a round in one batch)',
        type: 'number',
        default: ADAPTIVE_DEFAULTS.batch,
      })
      .option('randomesque', {
        describe: 'With --adaptive: each item drawn at random from the n most informative (exposure control; 1: always the most informative)',
        type: 'number',
        default: ADAPTIVE_DEFAULTS.randomesque,
      })
      .option('scoring', {
        describe:
          'How --compression scores held-out LLMs from the selected items: tiny-run (default: as `llm-nrm score` scores a tiny package run: one presentation per item, theta and sharpness fitted, bias and fallback under the training fleet spread as priors); study options: fixed-items (every per-LLM parameter fitted; collapses on selected items) and theta-only (every nuisance at the fleet means; loses on hard answers)',
        choices: ['tiny-run', 'fixed-items', 'theta-only'] as const,
        default: 'tiny-run' as const,
      })
      .option('calibration', {
        describe: 'Calibration-set sizes, e.g. 5,10,20,40: held-out log-loss with item parameters from n LLMs (Fig. 3b)',
        type: 'string',
        requiresArg: true,
      })
      .option('models', { describe: 'Models for --cv and --calibration, comma-separated', type: 'string', default: DEFAULT_MODELS })
      .option('ablations', { describe: 'Add LLM-NRM without sharpness / position / fallback, and soft NRM, to --cv', type: 'boolean', default: false })
      .option('seed', { describe: 'Seed of folds and draws', type: 'number', default: 1 })
      .option('workers', {
        describe:
          'Worker threads for the --cv fits and the --compression and --adaptive folds (default: one per core; 1: this thread). The result does not depend on it',
        type: 'number',
        requiresArg: true,
      })
      .option('max-iterations', { describe: "Cap on optimizer iterations per fit (default: core's)", type: 'number', requiresArg: true })
      .option('json', { describe: 'Print results as JSON', type: 'boolean', default: false })
      .option('quiet', { alias: 'q', describe: 'No progress on stderr', type: 'boolean', default: false })
      .example('$0 evaluate responses.jsonl --cv 5 --ablations', 'Table 1 with every model and the ablation rows')
      .example('$0 evaluate responses.jsonl --cv 5 --workers 1', 'the same table, every fit in one thread')
      .example('$0 evaluate responses.jsonl --by-llm 5', 'Table 3: ability from errors alone')
      .example('$0 evaluate responses.jsonl --compression 10,41,100 --calibration 5,10', 'Fig. 3a and 3b')
      .example('$0 evaluate responses.jsonl --adaptive 10,20,41 --se 0.3 --json', 'adaptive tests replayed on held-out LLMs'),
  handler: async (argv) => {
    const tick = progress(argv.quiet);
    if (argv.workers !== undefined && !(Number.isInteger(argv.workers) && argv.workers >= 1)) {
      throw new LlmNrmError('INVALID_OPTION', `invalid --workers value: ${JSON.stringify(argv.workers)} (a positive integer)`);
    }
    const models = parseModels(argv.models);
    const seed = argv.seed;
    const fitOptions: FitOptions = { engine: await loadEngine(argv.engine) };
    if (argv['max-iterations'] !== undefined) fitOptions.maxIterations = argv['max-iterations'];
    // Straight into the bank, records not kept (as `fit` reads them).
    const { bank, stats } = await readBankInput(argv.responses, argv);
    if (stats.skipped > 0) info(argv.quiet, `skipped ${stats.skipped} invalid records when building the bank; the first: ${stats.skippedReasons[0]}`);
    // Every study here scores correctness against the key (Table 1's correct columns, the binary
    // models, ability from correctness): a key-free record's key would be only the fleet's anchor.
    requireKeys(
      bank.items,
      `evaluate (${argv.responses})`,
      'give every record its key (the studies compare option-level prediction with correctness), or audit doubtful keys with `llm-nrm audit`',
    );
    info(argv.quiet, `loaded ${bank.models.length} LLMs x ${bank.items.length} items (${bank.colItem.length} presentations, ${stats.cells} cells)`);
    const none =
      argv.cv === undefined && argv['by-llm'] === undefined && argv.compression === undefined && argv.adaptive === undefined && argv.calibration === undefined;
    const out: Record<string, unknown> = {};
    const text: string[] = [];
    // The compression and adaptive studies' LLM folds: on worker threads (--workers), each loading --engine.
    const onFolds: FoldWorkerOptions = {
      engine: argv.engine,
      fitOptions,
      onProgress: tick,
      ...(argv['max-iterations'] !== undefined ? { maxIterations: argv['max-iterations'] } : {}),
      ...(argv.workers !== undefined ? { workers: argv.workers } : {}),
    };
    const cvK = argv.cv ?? (none ? 5 : undefined);
    if (cvK !== undefined) {
      const res = await crossValidateParallel(bank, {
        models,
        ablations: argv.ablations,
        folds: cvK,
        seed,
        engine: argv.engine,
        onProgress: tick,
        ...(argv['max-iterations'] !== undefined ? { maxIterations: argv['max-iterations'] } : {}),
        ...(argv.workers !== undefined ? { workers: argv.workers } : {}),
      });
      const unconverged = unconvergedFolds(res);
      // Named before the table (JSON: before `cv`): held-out figures of unconverged fits are not the model's.
      if (unconverged.length > 0) out['unconverged'] = unconverged;
      out['cv'] = res;
      text.push(cvTable(res));
    }
    if (argv['by-llm'] !== undefined) {
      const res = llmCrossValidate(bank, { folds: argv['by-llm'], seed, fitOptions, onProgress: tick });
      out['byLlm'] = {
        ...res,
        fold: Array.from(res.fold),
        full: Array.from(res.full),
        correctness: Array.from(res.correctness),
        incorrectOnly: Array.from(res.incorrectOnly),
        options: Array.from(res.options),
        wrongCells: Array.from(res.wrongCells),
      };
      text.push(llmCvTable(res));
    }
    if (argv.compression !== undefined) {
      const res = await compressionParallel(bank, { budgets: parseInts('--compression', argv.compression), scoring: argv.scoring, seed, folds: 5 }, onFolds);
      out['compression'] = { ...res, full: Array.from(res.full), thetas: res.thetas.map((t) => Array.from(t)) };
      text.push(compressionTable(res));
    }
    if (argv.adaptive !== undefined) {
      for (const flag of ['min-items', 'max-items', 'batch', 'randomesque'] as const) {
        const v = argv[flag];
        if (!Number.isInteger(v) || v < 1) throw new LlmNrmError('INVALID_OPTION', `invalid --${flag} value: ${JSON.stringify(v)} (a positive integer)`);
      }
      if (!(argv.se > 0)) throw new LlmNrmError('INVALID_OPTION', `invalid --se value: ${JSON.stringify(argv.se)} (a positive number)`);
      const res = await adaptiveStudyParallel(
        bank,
        {
          budgets: parseInts('--adaptive', argv.adaptive),
          se: argv.se,
          minItems: argv['min-items'],
          maxItems: argv['max-items'],
          batch: argv.batch,
          randomesque: argv.randomesque,
          seed,
          folds: 5,
        },
        onFolds,
      );
      out['adaptive'] = {
        folds: res.folds,
        seed: res.seed,
        batch: res.batch,
        points: res.points.map(({ thetas: _t, ses: _s, ...p }) => p),
        seStop: res.seStop,
      };
      text.push(adaptiveTable(res));
    }
    if (argv.calibration !== undefined) {
      const res = calibrationCurve(bank, { sizes: parseInts('--calibration', argv.calibration), models, seed, fitOptions, onProgress: tick });
      out['calibration'] = res;
      text.push(calibrationTable(res));
    }
    if (argv.json) printJson(out);
    else printText(text.join('\n'));
  },
};
