import { checkFileOutput } from '../checkFileOutput.js';
import type { Argv, CommandModule } from 'yargs';
import { LlmNrmError, bankFromRecords, fitConvergence, isLlmNrmError, type RecordSource, type ResponseRecord } from '@llm-nrm/core';
import { readBundle, writeFileAtomic } from '@llm-nrm/adapters';
import { extendBundle, type ExtendedBundle, type ItemQuality } from '@llm-nrm/analysis';
import { unconvergedLine } from '../bundleConvergence.js';
import { engineOption, loadEngine } from '../engines.js';
import { fewNames, fmt, formatTable, info, jsonText, printJson, printText } from '../output.js';
import { commandLine, hashInputs, sha256File, toolVersion } from '../provenance.js';
import { readResponsesInput, responsesInputOptions, type ResponsesInputArgs } from '../responsesInput.js';
import { FIT_MAX_ITERATIONS, fitProgress } from './fit.js';

interface ExtendArgs extends ResponsesInputArgs {
  bundle: string;
  responses: string;
  output: string;
  engine: string;
  'skip-unknown-llms': boolean;
  'max-iterations'?: number;
  json: boolean;
  quiet: boolean;
}

/** The flagged new items as a table (the flags `report` prints). */
function flaggedTable(ext: ExtendedBundle, flagged: ItemQuality[]): string {
  const difficulty = new Map(ext.items.map((it) => [it.id, it.difficulty]));
  return formatTable(
    ['item', 'flags', 'difficulty', 'modal at theta 2', 'key slope', 'slope spread'],
    flagged.map((q) => [q.id, q.flags.join(' '), difficulty.get(q.id) ?? NaN, q.topAtHigh, q.keySlope, q.spread]),
  );
}

export const extendCommand: CommandModule<object, ExtendArgs> = {
  command: 'extend <bundle> <responses>',
  describe: "Calibrate new items into a calibrated bank: fit them with the bundle's LLMs and globals held fixed, flag bad items, write the extended bundle",
  builder: (y: Argv) =>
    responsesInputOptions(engineOption(y))
      .positional('bundle', { describe: 'Calibration bundle written by `llm-nrm fit` (read, never changed)', type: 'string', demandOption: true })
      .positional('responses', {
        describe: "The bundle's LLMs' responses to the new items: tidy files or harness output, read as `fit` reads them",
        type: 'string',
        demandOption: true,
      })
      .option('output', {
        alias: 'o',
        describe: 'The extended bundle to write (never one of the inputs); - writes it to stdout',
        type: 'string',
        demandOption: true,
        requiresArg: true,
      })
      .option('skip-unknown-llms', {
        describe: 'Skip (and count) responses of LLMs the bundle does not hold, instead of stopping (their parameters are not calibrated)',
        type: 'boolean',
        default: false,
      })
      .option('max-iterations', { describe: `L-BFGS iteration cap (default ${FIT_MAX_ITERATIONS})`, type: 'number', requiresArg: true })
      .option('json', { describe: 'Print a JSON summary (new items, flags, the fit) instead of the table', type: 'boolean', default: false })
      .option('quiet', { alias: 'q', describe: 'No progress or status on stderr', type: 'boolean', default: false })
      .example('$0 extend bundle.json new-items.jsonl -o bundle-2.json', "100 new items answered by the bundle's LLMs: a bundle with them added")
      .example('$0 extend bundle.json lm-eval-out/ -o b2.json --skip-unknown-llms --json', 'harness output, LLMs the bundle lacks skipped, a JSON summary')
      .epilogue(
        "Every LLM's theta, sharpness, position bias and fallback and the globals (w0, kappa) stay at the bundle's values; given them each " +
          "new item is fitted on its own responses, with the calibration's priors. The new bundle holds the old one unchanged (LLMs, items, " +
          'globals, fit diagnostics) with the new items appended, an ITEMS_EXTENDED warning naming them, and provenance with both commands and ' +
          "every input's SHA-256. New items flagged as report flags them (possible-wrong-key, falling-key, low-discrimination, " +
          'dominant-distractor) are listed; they are written all the same.',
      ) as unknown as Argv<ExtendArgs>,
  handler: async (argv) => {
    const maxIt = argv['max-iterations'];
    if (maxIt !== undefined && !(Number.isInteger(maxIt) && maxIt > 0))
      throw new LlmNrmError('INVALID_OPTION', `invalid --max-iterations: ${maxIt} (a positive integer)`);
    const toStdout = argv.output === '-';
    const inputs = [argv.bundle, argv.responses];
    // Refused before any work: the extended bundle never replaces the bundle or the responses.
    await checkFileOutput(argv.output, inputs);
    const started = Date.now();
    const engine = loadEngine(argv.engine);
    engine.catch(() => undefined); // awaited below; a read error must not leave it unhandled
    const bundle = await readBundle(argv.bundle);
    const input = await readResponsesInput(argv.responses, argv);
    // LLMs the bundle lacks have no calibrated parameters to hold fixed.
    const llms = new Set(bundle.llms.map((l) => l.id));
    const strangers = [...new Set(input.records.filter((r) => !llms.has(r.model)).map((r) => r.model))];
    let records: ResponseRecord[] = input.records;
    let sources: RecordSource[] = input.sources;
    let skippedLlmRecords = 0;
    if (strangers.length > 0) {
      if (!argv['skip-unknown-llms']) {
        throw new LlmNrmError(
          'INVALID_OPTION',
          `${strangers.length} LLMs in ${argv.responses} are not in the bundle ${argv.bundle}: ${fewNames(strangers)} ` +
            '(their parameters are not calibrated: score them with llm-nrm score, or pass --skip-unknown-llms to leave their responses out)',
        );
      }
      const keep = records.map((r) => llms.has(r.model));
      skippedLlmRecords = keep.filter((k) => !k).length;
      records = records.filter((_, i) => keep[i]);
      sources = sources.filter((_, i) => keep[i]);
      info(argv.quiet, `skipped ${skippedLlmRecords} responses of ${strangers.length} LLMs not in the bundle (--skip-unknown-llms): ${fewNames(strangers)}`);
    }
    const oldIds = new Set(bundle.items.map((it) => it.id));
    const taken = [...new Set(records.filter((r) => oldIds.has(r.item)).map((r) => r.item))];
    if (taken.length > 0) {
      throw new LlmNrmError(
        'DUPLICATE',
        `${taken.length} items in ${argv.responses} are already in the bundle ${argv.bundle}: ${fewNames(taken)} (extend adds new items only; give them new ids)`,
      );
    }
    const { bank, stats } = bankFromRecords(records, { skipInvalid: argv['skip-invalid'], sources, checked: true });
    if (stats.skipped > 0) info(argv.quiet, `skipped ${stats.skipped} invalid records when building the bank`);
    info(
      argv.quiet,
      `loaded ${bank.items.length} new items answered by ${bank.models.length} of the bundle's ${bundle.llms.length} LLMs (${stats.cells} cells) from ${argv.responses}`,
    );
    // Standard input leaves no file to hash.
    const stdin = argv.responses === '-' || argv.responses === '/dev/stdin';
    const inputHashes = stdin ? [] : await hashInputs(argv.responses, { tidyOnly: input.summary.inputs.every((i) => i.format === 'tidy') });
    const provenance = {
      version: toolVersion(),
      inputs: [{ path: argv.bundle, sha256: await sha256File(argv.bundle) }, ...inputHashes],
      command: commandLine(),
    };
    let ext: ExtendedBundle;
    try {
      ext = extendBundle(bundle, bank, {
        engine: await engine,
        maxIterations: maxIt ?? FIT_MAX_ITERATIONS,
        onProgress: fitProgress(argv.quiet, 'extend'),
        provenance,
      });
    } catch (e) {
      if (isLlmNrmError(e, 'NON_FINITE')) throw new LlmNrmError('NON_FINITE', `${e.message}; check the new items' responses`, { cause: e });
      throw e;
    }
    const r = ext.result;
    const convergence = fitConvergence(r);
    if (convergence.message !== null) {
      throw new LlmNrmError(
        'UNCONVERGED',
        `${convergence.message.replace('the calibration fit', "the new items' fit")}; nothing was written to ${argv.output}. Raise --max-iterations (${r.iterations} iterations, loss ${fmt(r.loss)})`,
      );
    }
    await writeFileAtomic(argv.output, JSON.stringify(ext.bundle, null, 2) + '\n');
    const seconds = (Date.now() - started) / 1000;
    info(
      argv.quiet,
      `wrote ${toStdout ? 'the extended bundle to stdout' : argv.output}: ${bundle.items.length} + ${ext.items.length} items (${seconds.toFixed(1)} s in all)`,
    );
    const flagged = ext.quality.filter((q) => q.flags.length > 0);
    const flagCounts: Record<string, number> = {};
    for (const q of flagged) for (const f of q.flags) flagCounts[f] = (flagCounts[f] ?? 0) + 1;
    const unsettled = unconvergedLine(bundle, argv.bundle);
    if (argv.json) {
      const quality = new Map(ext.quality.map((q) => [q.id, q]));
      const summary = {
        output: argv.output,
        bundle: argv.bundle,
        responses: argv.responses,
        model: bundle.model,
        items: { calibrated: bundle.items.length, added: ext.items.length, total: ext.bundle.items.length },
        llms: { calibrated: bundle.llms.length, answered: bank.models.length, skipped: strangers },
        newItems: ext.items.map((it) => ({ id: it.id, difficulty: it.difficulty, flags: quality.get(it.id)?.flags ?? [] })),
        flags: flagCounts,
        flagged,
        fit: { loss: r.loss, iterations: r.iterations, passes: r.passes, seconds: r.seconds, converged: r.converged, reason: r.reason, distance: r.distance },
        stats: {
          records: stats.records,
          cells: stats.cells,
          skippedInvalid: input.summary.skipped.length + stats.skipped,
          skippedUnknownLlms: skippedLlmRecords,
        },
        seconds,
        provenance: ext.bundle.provenance,
      };
      if (unsettled !== null) info(argv.quiet, unsettled.trimEnd());
      if (toStdout) info(argv.quiet, jsonText(summary));
      else printJson(summary);
      return;
    }
    const text =
      (unsettled ?? '') +
      `added ${ext.items.length} items to ${bundle.items.length} (${bundle.model}, ${bundle.llms.length} LLMs held fixed; ` +
      `${r.iterations} iterations, ${r.seconds.toFixed(2)} s)\n` +
      (flagged.length === 0
        ? 'no new item flagged\n'
        : `${flagged.length} new items flagged: ${Object.entries(flagCounts)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')}\n${flaggedTable(ext, flagged)}`);
    if (toStdout) info(argv.quiet, text.trimEnd());
    else printText(text);
  },
};
