import { checkFileOutput } from '../checkFileOutput.js';
import type { Argv, CommandModule } from 'yargs';
import {
  ALL_PARTS,
  LlmNrmError,
  MODEL_NAMES,
  SE_MODES,
  checkDesign,
  describeItemVersions,
  fit,
  fitConvergence,
  getFamily,
  isLlmNrmError,
  toBundle,
  type BundleLlm,
  type BundleWarning,
  type CalibrationBundle,
  type FitOptions,
  type FitResult,
  type ItemVersionPolicy,
  type ModelName,
  type OptimizeProgress,
  type SeMode,
} from '@llm-nrm/core';
import { reclaimMemory, writeFileAtomic, type ReplicatePolicy } from '@llm-nrm/adapters';
import { fmt, formatTable, info, infoLines, printJson, printText, progress } from '../output.js';
import { fitProgressLines } from '../progressLines.js';
import { engineOption, loadEngine } from '../engines.js';
import { commandLine, startHashInputs, toolVersion } from '../provenance.js';
import { readBankInput, responsesInputOptions } from '../responsesInput.js';
import { unconvergedWarning } from '../bundleConvergence.js';
import { duplicateRowsWarning } from '../duplicateRowsWarning.js';

/**
 * `fit`'s L-BFGS iteration cap. Core's 1,000 stopped real soft fleets of 25 LLMs short of the
 * distance rule (issue 31); a fit that converges stops by its own rule long before.
 */
export const FIT_MAX_ITERATIONS = 3000;

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
  se: SeMode;
  'skip-invalid': boolean;
  'drop-empty': boolean;
  'ignore-key': boolean;
  'item-versions': ItemVersionPolicy;
  'allow-unconverged': boolean;
  replicates: ReplicatePolicy;
  output: string;
  json: boolean;
  quiet: boolean;
}

/** Warning codes whose LLMs a leaderboard must not rank (their thetas compare with no other). */
const UNRANKED_CODES = new Set(['SINGLE_LLM', 'NO_SHARED_ITEMS', 'DISCONNECTED']);

/**
 * LLMs of a bundle, best first, with their 1-based rank; LLMs the design checks found not
 * comparable (no shared items with the ranked ones) come last with rank null.
 */
export function ranked(llms: BundleLlm[], warnings: readonly BundleWarning[] = []): (BundleLlm & { rank: number | null })[] {
  const unranked = new Set(warnings.filter((w) => UNRANKED_CODES.has(w.code)).flatMap((w) => w.llms ?? []));
  const order = (a: BundleLlm, b: BundleLlm) => b.theta - a.theta || a.id.localeCompare(b.id);
  const kept = llms
    .filter((l) => !unranked.has(l.id))
    .sort(order)
    .map((l, i) => ({ ...l, rank: (i + 1) as number | null }));
  return [
    ...kept,
    ...llms
      .filter((l) => unranked.has(l.id))
      .sort(order)
      .map((l) => ({ ...l, rank: null })),
  ];
}

/** Leaderboard rows (rank, model, theta, se, sharpness, accuracy, cells); sharpness '-' when the model has none. */
export function leaderboardRows(bundle: CalibrationBundle, llms: (BundleLlm & { rank: number | null })[]): (string | number)[][] {
  const hasSharpness = getFamily(bundle.model, bundle.parts).parts.sharpness;
  return llms.map((l) => [
    l.rank ?? '-',
    l.id,
    l.theta,
    l.identified === false ? 'unidentified' : l.se === null ? '-' : l.se,
    hasSharpness ? l.sharpness : '-',
    l.accuracy ?? '-',
    l.cells ?? '-',
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
    ...(f.distance !== undefined && f.distance !== null
      ? [['distance', `${f.distance.toPrecision(2)} SE (estimated, to the optimum)`] as [string, string]]
      : []),
    ['optimizer', f.optimizer],
    ['engine', f.engine],
    ...(f.keyFree !== undefined ? [['key-free', `${f.keyFree} items (no key: fitted on the options alone)`] as [string, string]] : []),
  ];
  const w = Math.max(...rows.map((r) => r[0].length));
  return rows.map(([k, v]) => `  ${k.padEnd(w)}  ${v}`).join('\n') + '\n';
}

/** A fit progress line, about once a second on stderr: the distance to the optimum and the time left (progressLines.ts). */
export function fitProgress(quiet: boolean, label = 'fit'): (p: OptimizeProgress & { phase?: string }) => void {
  const tick = progress(quiet);
  const line = fitProgressLines(label);
  return (p) => tick(line(p));
}

function positiveInteger(flag: string, v: number | undefined): void {
  if (v !== undefined && !(Number.isInteger(v) && v > 0)) throw new LlmNrmError('INVALID_OPTION', `invalid --${flag}: ${v} (a positive integer)`);
}

export const fitCommand: CommandModule<object, FitArgs> = {
  command: 'fit <responses>',
  describe: 'Calibrate a bank: fit LLM-NRM (or NRM, 1PL-4PL) to a responses file, write the calibration bundle, print the leaderboard',
  builder: (y: Argv) =>
    responsesInputOptions(engineOption(y))
      .positional('responses', {
        describe:
          'Responses: a tidy file or folder (.jsonl, .jsonl.gz, .arrow, .parquet), or harness output read as `convert` reads it; - reads standard input',
        type: 'string',
        demandOption: true,
      })
      .option('output', {
        alias: 'o',
        describe: 'Calibration bundle to write (JSON); - writes it to stdout (the leaderboard then goes to stderr)',
        type: 'string',
        demandOption: true,
        requiresArg: true,
      })
      .option('model', { alias: 'm', describe: 'Model family', choices: MODEL_NAMES as ModelName[], default: 'llm-nrm' as ModelName })
      .option('sharpness', { describe: 'LLM-NRM per-LLM sharpness (--no-sharpness: s = 1)', type: 'boolean', default: true })
      .option('position', { describe: 'LLM-NRM per-LLM positional bias (--no-position: none)', type: 'boolean', default: true })
      .option('fallback', { describe: 'LLM-NRM difficulty-gated guessing fallback (--no-fallback: none)', type: 'boolean', default: true })
      .option('optimizer', {
        describe: "lbfgs: preconditioned L-BFGS, few passes; adam: the paper's recipe",
        choices: ['lbfgs', 'adam'] as const,
        default: 'lbfgs' as const,
      })
      .option('steps', { describe: 'Adam steps (default 2500)', type: 'number', requiresArg: true })
      .option('lr', { describe: 'Adam learning rate (default 0.05)', type: 'number', requiresArg: true })
      .option('max-iterations', { describe: `L-BFGS iteration cap (default ${FIT_MAX_ITERATIONS})`, type: 'number', requiresArg: true })
      .option('allow-unconverged', {
        describe:
          'Write the bundle even when the fit ends farther than 1 SE from its optimum (it then records the distance and an UNCONVERGED warning, which score, report, publish and the site print first); without it such a fit writes nothing and exits 1',
        type: 'boolean',
        default: false,
      })
      .option('tolerance', {
        describe:
          'L-BFGS: also stop when the loss falls by less than this fraction over 5 iterations (default: off; the fit stops once every parameter is estimated within 0.01 SE of the optimum)',
        type: 'number',
        requiresArg: true,
      })
      .option('se', {
        describe:
          "Standard errors of theta: 'twin' (the priors' bias and the responses' measured dispersion, and the bias the fleet shares through its items, from a refit of the fit's noise-free twin from the converged point; LLM-NRM and NRM, other models get 'quasi') or 'quasi' (without the twin). In simulation 'twin' intervals cover 93-97% of true thetas from 6 to 200 items, where 'quasi' covers 88-90% at 200 items and up to 98% at 20; the twin adds about 10% CPU on a 189 x 2,000 fleet and about 25% at 189 x 31,554 (there, on 2 cores of an Intel Xeon: about 69 s with 'twin', 51 s with 'quasi'; packages/core/BENCHMARKS.md, packages/engine-wasm/BENCHMARKS.md)",
        choices: SE_MODES as readonly SeMode[],
        default: 'twin' as SeMode,
      })
      .option('threaded-vectors', {
        describe:
          "Run part of L-BFGS's vector sweeps on a second thread (engine wasm or auto, Node; --no-threaded-vectors: all on the main thread): the same fit to the bit, 5-8% faster at 189 x 31,554 (packages/engine-wasm/BENCHMARKS.md)",
        type: 'boolean',
        default: true,
      })
      .option('seed', { describe: "Recorded in the bundle's provenance (the fit itself is deterministic)", type: 'number', requiresArg: true })
      .option('drop-empty', { describe: 'Drop LLMs and items with no observed cell instead of stopping', type: 'boolean', default: false })
      .option('ignore-key', {
        describe:
          "Fit without the records' keys, as for records that give none (a missing or doubted key): option-level models (llm-nrm, nrm, nrm-hard) need none; theta points toward the option the fleet's stronger half favours; binary models and keyed outputs (accuracy, information split, wrong-answers ability) refuse. `llm-nrm audit` then checks the keys",
        type: 'boolean',
        default: false,
      })
      .option('json', { describe: 'Print a JSON summary instead of the leaderboard', type: 'boolean', default: false })
      .option('quiet', { alias: 'q', describe: 'No progress or status on stderr', type: 'boolean', default: false })
      .example('$0 fit responses.jsonl.gz -o bundle.json', 'LLM-NRM with every part, L-BFGS')
      .example('$0 fit responses.parquet --model 2pl -o bundle-2pl.json', 'a binary 2PL on correctness')
      .example('$0 fit responses.jsonl --engine tfjs -o b.json', 'loss and gradient on TensorFlow.js (the GPU with @tensorflow/tfjs-node-gpu)')
      .example('$0 fit responses.jsonl --ignore-key -o b.json', 'a key-free fit (records may also simply omit `key`); then `llm-nrm audit b.json`')
      .example('$0 fit lm-eval-out/ -o bundle.json --skip-invalid', 'harness output directly, going past damaged records (listed on stderr)')
      .example(
        '$0 fit responses.jsonl --se quasi -o b.json',
        "SEs without the twin's refit (its bias term: about 10% of the CPU at 189 x 2,000, 25% at 189 x 31,554)",
      )
      .example('$0 fit responses.jsonl --no-position --optimizer adam --steps 2500 -o b.json --json', "an ablation, the paper's Adam recipe, JSON summary")
      .epilogue(
        "The bundle holds every item's option slopes and intercepts (a, c) and difficulty, every LLM's theta with its " +
          'standard error, sharpness, positional bias and fallback, the globals (w0, kappa), the fit diagnostics and the ' +
          'provenance (tool version, input SHA-256, command line). `llm-nrm score` places new LLMs on it.',
      ) as unknown as Argv<FitArgs>,
  handler: async (argv) => {
    positiveInteger('steps', argv.steps);
    positiveInteger('max-iterations', argv['max-iterations']);
    if (argv.lr !== undefined && !(argv.lr > 0)) throw new LlmNrmError('INVALID_OPTION', `invalid --lr: ${argv.lr} (a positive number)`);
    const toStdout = argv.output === '-';
    if (argv['ignore-key'] && getFamily(argv.model, ALL_PARTS).kind === 'binary')
      throw new LlmNrmError('NO_KEY', `--model ${argv.model} fits correctness, which needs a key: with --ignore-key use --model llm-nrm, nrm or nrm-hard`);
    // A missing output folder should not cost a long fit.
    await checkFileOutput(argv.output, [argv.responses]);
    const started = Date.now();
    // The engine (the wasm module's compile, its worker threads) starts while the file is read.
    const engine = loadEngine(argv.engine, argv.threadedVectors ? {} : { threadedVectors: false });
    engine.catch(() => undefined); // awaited below; a read error must not leave it unhandled
    // Records flow into the bank as they are read (not kept): memory follows the bank.
    const input = await readBankInput(argv.responses, argv);
    const { bank, stats } = input;
    // The input is hashed (provenance) on another thread while the bank is built and fitted.
    const tidyOnly = input.summary.inputs.every((i) => i.format === 'tidy');
    // Standard input leaves no file to hash.
    const stdin = argv.responses === '-' || argv.responses === '/dev/stdin';
    const hashing = stdin ? undefined : await startHashInputs(argv.responses, { tidyOnly });
    hashing?.done.catch(() => undefined); // awaited below; a failed fit must not leave it unhandled
    const warnings: BundleWarning[] = [];
    if (input.itemVersions.length > 0) {
      const how = argv['item-versions'] === 'split' ? 'split into one item per version' : `kept the majority version, dropped ${input.droppedVersions} records`;
      const message = `${input.itemVersions.length} item ids name different content in different records (${how})`;
      warnings.push({ code: 'ITEM_VERSIONS', message, items: input.itemVersions.map((c) => c.item) });
      infoLines(argv.quiet, [`warning: ${message}:`, ...describeItemVersions(input.itemVersions).map((l) => `  ${l}`)]);
    }
    const repeated = duplicateRowsWarning(input.duplicates);
    if (repeated !== null) {
      warnings.push({ code: 'DUPLICATE_ROWS', message: repeated });
      info(argv.quiet, `warning: ${repeated}`);
    }
    info(
      argv.quiet,
      `loaded ${bank.models.length} LLMs x ${bank.items.length} items (${bank.colItem.length} presentations, ${stats.cells} cells) from ${argv.responses}`,
    );
    const skipped = input.summary.skipped.length + stats.skipped;
    if (stats.skipped > 0)
      infoLines(argv.quiet, [
        `skipped ${stats.skipped} invalid records when building the bank; the first:`,
        ...stats.skippedReasons.slice(0, 5).map((r) => `  ${r}`),
      ]);
    if (stats.droppedModels.length + stats.droppedItems.length > 0) {
      info(argv.quiet, `dropped ${stats.droppedModels.length} LLMs and ${stats.droppedItems.length} items with no observed cell (--drop-empty)`);
    }
    const keyFree = bank.items.filter((it) => it.keyFree === true).length;
    if (keyFree > 0)
      info(
        argv.quiet,
        `note: ${keyFree} of ${bank.items.length} items have no key${argv['ignore-key'] ? ' (--ignore-key)' : ''}: theta points toward the option the stronger half of the fleet favours (consensusKeys); accuracy counts keyed items only`,
      );
    // Before fitting: does the design support the ranking that will be printed?
    const design = checkDesign(bank);
    warnings.push(...design.warnings);
    for (const w of design.warnings) info(argv.quiet, `warning: ${w.message}`);
    // The bank builder's chunks, dead now, go before the fit takes its working set (adapters' reclaimMemory).
    reclaimMemory();
    const options: FitOptions = {
      model: argv.model,
      parts: { sharpness: argv.sharpness, position: argv.position, fallback: argv.fallback },
      optimizer: argv.optimizer,
      engine: await engine,
      onProgress: fitProgress(argv.quiet),
      seMode: argv.se,
    };
    if (argv.steps !== undefined) options.steps = argv.steps;
    if (argv.lr !== undefined) options.lr = argv.lr;
    options.maxIterations = argv['max-iterations'] ?? FIT_MAX_ITERATIONS; // L-BFGS only: Adam runs --steps
    if (argv.tolerance !== undefined) options.tolerance = argv.tolerance;
    let result: FitResult;
    try {
      result = fit(bank, options);
    } catch (e) {
      // Advice in terms of fit's own options (core's message names none).
      if (isLlmNrmError(e, 'NON_FINITE'))
        throw new LlmNrmError(
          'NON_FINITE',
          `${e.message}; ${options.optimizer === 'adam' ? 'try a smaller --lr or --optimizer lbfgs' : 'try --optimizer adam with a small --lr'}`,
          {
            cause: e,
          },
        );
      throw e;
    }
    // Sharpness held at 1 where no answer could identify it (core's hardOnlyModels): said here and in the bundle.
    const fixedSharpness = result.layout.kind === 'llm-nrm' ? (result.layout.fixedSharpness ?? []) : [];
    if (fixedSharpness.length > 0) {
      const message =
        `sharpness held at 1 for ${fixedSharpness.length} of ${bank.models.length} LLMs whose answers are all hard (parsed choices): ` +
        'one-hot answers do not identify an inverse temperature (the likelihood rises without bound as it grows), so each choice is read as one draw from the option curves';
      warnings.push({ code: 'SHARPNESS_FIXED', message, llms: fixedSharpness.map((j) => bank.models[j]!) });
      info(argv.quiet, `note: ${message}`);
    }
    // The gate left out where no answer could identify it (core's identifiedParts): said here and in the bundle.
    if (getFamily(argv.model, options.parts).parts.fallback && !result.parts.fallback) {
      const message =
        'guessing fallback left out: every answer in this bank is hard (parsed choices), and from one-hot answers the ' +
        'difficulty gate runs away to a step instead of converging; the fit is LLM-NRM without fallback (banks with soft answers keep it)';
      warnings.push({ code: 'FALLBACK_OFF', message });
      info(argv.quiet, `note: ${message}`);
    }
    // The item prior core tightened for an all-hard bank (core's identifiedPriors): said here and in the bundle.
    if (options.priors?.itemSd === undefined && result.priors.itemSd !== undefined) {
      const message =
        `item prior SD ${result.priors.itemSd} instead of 10: every answer in this bank is hard, and from one-hot answers of ${bank.models.length} LLMs ` +
        "an item's option logits meet separation (an option chosen by exactly the stronger LLMs has no finite slope); the tighter prior keeps items from fitting the fleet's draws";
      warnings.push({ code: 'ITEM_PRIOR_HARD', message });
      info(argv.quiet, `note: ${message}`);
    }
    const bundle = toBundle(result, {
      version: toolVersion(),
      inputs: hashing === undefined ? [] : await hashing.done,
      command: commandLine(),
      ...(argv.seed !== undefined ? { seed: argv.seed } : {}),
    });
    // An unconverged fit writes no bundle (user files hold only finished work) unless asked to;
    // then the bundle says so in a warning every reader prints first.
    const convergence = fitConvergence(result);
    if (convergence.message !== null && !argv['allow-unconverged']) {
      throw new LlmNrmError(
        'UNCONVERGED',
        `${convergence.message}; nothing was written to ${argv.output}. Raise --max-iterations${
          bundle.model === 'llm-nrm' && bundle.parts.sharpness ? ', try --no-sharpness (hard answers do not identify sharpness)' : ''
        }, or pass --allow-unconverged to write the bundle with a warning (${result.iterations} iterations, loss ${fmt(result.loss)})`,
      );
    }
    const unconverged = unconvergedWarning(convergence);
    if (unconverged !== null) warnings.unshift(unconverged);
    if (warnings.length > 0) bundle.warnings = warnings;
    await writeFileAtomic(argv.output, JSON.stringify(bundle, null, 2) + '\n');
    info(argv.quiet, `wrote ${toStdout ? 'the bundle to stdout' : argv.output} (${((Date.now() - started) / 1000).toFixed(1)} s in all)`);
    const board = ranked(bundle.llms, warnings);
    if (argv.json) {
      const summary = {
        output: argv.output,
        model: bundle.model,
        parts: bundle.parts,
        llms: board.map((l) => ({ rank: l.rank, id: l.id, theta: l.theta, se: l.se, sharpness: l.sharpness, accuracy: l.accuracy, cells: l.cells })),
        items: bundle.items.length,
        fit: bundle.fit,
        stats: {
          records: stats.records,
          cells: stats.cells,
          soft: stats.soft,
          hard: stats.hard,
          missingAnswers: stats.missingAnswers,
          skipped,
          droppedModels: stats.droppedModels,
          droppedItems: stats.droppedItems,
        },
        warnings,
        provenance: bundle.provenance,
      };
      // stdout carries one result: the bundle when it goes there, else the summary.
      if (toStdout) info(argv.quiet, JSON.stringify(summary, null, 2));
      else printJson(summary);
      return;
    }
    const name = getFamily(bundle.model, bundle.parts).label;
    const unranked = board.filter((l) => l.rank === null).length;
    const text =
      `${name} leaderboard: ${board.length} LLMs on ${bundle.items.length} items` +
      (unranked > 0 ? ` (${unranked} not ranked: no items shared with the ranked ones, see warnings)` : '') +
      '\n' +
      formatTable(LEADERBOARD_HEADER, leaderboardRows(bundle, board)) +
      (warnings.length > 0 ? `\nwarnings\n${warnings.map((w) => `  ${w.message}`).join('\n')}\n` : '') +
      `\nfit\n${formatDiagnostics(bundle.fit)}`;
    if (toStdout) info(argv.quiet, text.trimEnd());
    else printText(text);
    if (unconverged !== null) info(argv.quiet, `warning: ${convergence.message} (written under --allow-unconverged)`);
    else if (!bundle.fit.converged)
      info(argv.quiet, `note: the fit stopped (${bundle.fit.reason}) within ${fmt(convergence.distance ?? NaN)} SE of its optimum`);
    const unidentified = bundle.llms.filter((l) => l.identified === false).map((l) => l.id);
    if (unidentified.length > 0)
      info(argv.quiet, `warning: theta is not identified for ${unidentified.join(', ')} (its cells and the priors do not pin it; SE infinite)`);
  },
};
