import type { Argv, CommandModule } from 'yargs';
import { LlmNrmError, bankRecords, familyOfLayout, simulateFleet, type SimulatedFleet } from '@llm-nrm/core';
import { assertOutputIsNotInput, tidyFormatFromExtension, writeFileOutput, writeResponses } from '@llm-nrm/adapters';
import { info, printJson, printText, progress } from '../output.js';
import { commandLine, toolVersion } from '../provenance.js';

interface SimulateArgs {
  models: number;
  items: number;
  seed: number;
  noise: number;
  missing: number;
  hard: number;
  rotations: number;
  options?: number;
  output: string;
  truth?: string;
  json: boolean;
  quiet: boolean;
}

/**
 * The generating parameters of a simulated fleet as plain JSON, on the calibration bundle's scale:
 * the family's own bundle mapping (sharpness s_j = softplus(sbar_j) and kappa = softplus(kbar),
 * paper.md "Models"; position bias, fallback and item a, c sum-to-zero), so a truth file and a
 * bundle fitted to the fleet read alike.
 */
export function fleetTruth(fleet: SimulatedFleet): {
  llms: { id: string; theta: number; sharpness: number; positionBias: number[]; fallback: number[] }[];
  items: { id: string; key: number; nOptions: number; benchmark?: string; a: number[]; c: number[] }[];
  globals: { w0: number; kappa: number };
} {
  const { bank, layout, truth: x } = fleet;
  const family = familyOfLayout(layout);
  return {
    llms: bank.models.map((id, j) => ({ id, theta: x[layout.theta + j]!, ...family.bundleLlm(layout, x, j) })),
    items: bank.items.map((it, i) => {
      const { a, c } = family.bundleItem(bank, layout, x, i);
      return { ...it, a, c };
    }),
    globals: family.bundleGlobals(layout, x),
  };
}

function check(flag: string, v: number, ok: boolean, want: string): void {
  if (!ok) throw new LlmNrmError('INVALID_OPTION', `invalid --${flag}: ${v} (${want})`);
}

export const simulateCommand: CommandModule<object, SimulateArgs> = {
  command: 'simulate',
  describe: 'Simulate a fleet of LLMs answering a bank from known LLM-NRM parameters; write tidy responses (and the truth)',
  builder: (y: Argv) =>
    y
      .option('output', {
        alias: 'o',
        describe: 'Tidy responses file to write: .jsonl, .jsonl.gz, .arrow or .parquet',
        type: 'string',
        demandOption: true,
        requiresArg: true,
      })
      .option('models', { describe: "Number of LLMs (the paper's fleet: 189)", type: 'number', default: 189 })
      .option('items', { describe: "Number of items (2 to 10 options each, mean about 5.8, like the paper's bank)", type: 'number', default: 2000 })
      .option('seed', { describe: 'Seed of every random draw', type: 'number', default: 1 })
      .option('noise', { describe: 'SD of Gaussian noise on the true logits before the softmax', type: 'number', default: 0.3 })
      .option('missing', { describe: 'Fraction of cells left unobserved, in [0, 1)', type: 'number', default: 0 })
      .option('hard', { describe: 'Fraction of cells answered hard (one option drawn) instead of as a distribution', type: 'number', default: 0 })
      .option('options', {
        describe: "Every item with this many options, 2 to 20 (default: 2 to 10, mean about 5.8, like the paper's bank; MMLU-Pro: 10)",
        type: 'number',
        requiresArg: true,
      })
      .option('rotations', {
        describe: 'Show each item under this many cyclic rotations of its options (records carry `position`)',
        type: 'number',
        default: 1,
      })
      .option('truth', {
        describe: 'Also write the generating parameters as JSON (theta, sharpness, positionBias, fallback per LLM; a, c per item; w0, kappa)',
        type: 'string',
        requiresArg: true,
      })
      .option('json', { describe: 'Print the summary as JSON', type: 'boolean', default: false })
      .option('quiet', { alias: 'q', describe: 'No progress or status on stderr', type: 'boolean', default: false })
      .example('$0 simulate -o fleet.jsonl.gz --truth truth.json', 'the paper-sized fleet: 189 LLMs x 2000 items')
      .example('$0 simulate --models 40 --items 400 --missing 0.2 --hard 0.1 -o small.parquet', 'a small, sparse, partly hard-answered fleet')
      .example('$0 simulate --models 29 --items 12000 --options 10 --hard 1 -o mmlu-pro-like.jsonl.gz', 'an all-hard fleet shaped like MMLU-Pro')
      .example(
        '$0 simulate --rotations 4 -o rotated.arrow',
        'every item shown under 4 option orders (positional bias identifiable)',
      ) as unknown as Argv<SimulateArgs>,
  handler: async (argv) => {
    if (tidyFormatFromExtension(argv.output) === undefined) {
      throw new LlmNrmError('INVALID_OPTION', `unknown output extension: ${argv.output} (use .jsonl, .jsonl.gz, .arrow or .parquet)`);
    }
    // The two outputs are refused before any work when they are one file (the truth would replace the responses).
    if (argv.truth !== undefined) await assertOutputIsNotInput(argv.truth, [argv.output], '--truth');
    check('models', argv.models, Number.isInteger(argv.models) && argv.models >= 1, 'a positive integer');
    check('items', argv.items, Number.isInteger(argv.items) && argv.items >= 1, 'a positive integer');
    check('rotations', argv.rotations, Number.isInteger(argv.rotations) && argv.rotations >= 1 && argv.rotations <= 20, 'an integer from 1 to 20');
    check('noise', argv.noise, argv.noise >= 0, 'non-negative');
    check('hard', argv.hard, argv.hard >= 0 && argv.hard <= 1, 'in [0, 1]');
    check('seed', argv.seed, Number.isInteger(argv.seed), 'an integer');
    if (argv.options !== undefined)
      check('options', argv.options, Number.isInteger(argv.options) && argv.options >= 2 && argv.options <= 20, 'an integer from 2 to 20');
    const fleet = simulateFleet({
      models: argv.models,
      items: argv.items,
      seed: argv.seed,
      noise: argv.noise,
      missing: argv.missing,
      hard: argv.hard,
      rotations: argv.rotations,
      ...(argv.options !== undefined ? { optionWeights: { [argv.options]: 1 } } : {}),
    });
    const tick = progress(argv.quiet);
    const started = Date.now();
    const { records } = await writeResponses(bankRecords(fleet.bank), argv.output, {
      onRecord: (n) => {
        const s = (Date.now() - started) / 1000;
        if (s >= 1) tick(`simulate: ${n} records (${s.toFixed(0)} s)`);
      },
    });
    info(
      argv.quiet,
      `wrote ${records} records (${argv.models} LLMs x ${argv.items} items${argv.rotations > 1 ? ` x ${argv.rotations} rotations` : ''}) to ${argv.output}`,
    );
    if (argv.truth !== undefined) {
      const truth = {
        ...fleetTruth(fleet),
        options: fleet.options,
        provenance: { tool: 'llm-nrm', version: toolVersion(), createdAt: new Date().toISOString(), command: commandLine() },
      };
      await writeFileOutput(argv.truth, JSON.stringify(truth, null, 2) + '\n', { inputs: [argv.output], flag: '--truth' });
      info(argv.quiet, `wrote the true parameters to ${argv.truth}`);
    }
    let options = 0;
    for (const it of fleet.bank.items) options += it.nOptions;
    const summary = {
      output: argv.output,
      truth: argv.truth ?? null,
      records,
      models: argv.models,
      items: argv.items,
      meanOptions: options / argv.items,
      options: fleet.options,
    };
    if (argv.json) printJson(summary);
    else {
      printText(
        `${records} records: ${argv.models} LLMs x ${argv.items} items (mean ${summary.meanOptions.toFixed(2)} options), seed ${argv.seed}, ` +
          `noise ${argv.noise}, missing ${argv.missing}, hard ${argv.hard}, rotations ${argv.rotations}\n`,
      );
    }
  },
};
