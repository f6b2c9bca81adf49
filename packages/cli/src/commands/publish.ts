import { readFile, readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import {
  LlmNrmError,
  OVERALL,
  argmaxAccuracies,
  getFamily,
  itemContentSha256,
  requireKeys,
  restrictBundle,
  type BundleItem,
  type CalibrationBundle,
  type ResponseRecord,
} from '@llm-nrm/core';
import { SCORE_P_FLOOR, fleetNuisance } from '@llm-nrm/core/engine';
import { argmaxTally } from '@llm-nrm/core/record';
import {
  HARNESS_EXPORTERS,
  checkFolderOutput,
  readBundle,
  readsOnce,
  tinyPackage,
  writeTinyPackage,
  type AdaptiveSettings,
  type TinyAccuracy,
  type TinyBank,
  type TinyItem,
  type RecordSink,
} from '@llm-nrm/adapters';
import {
  ADAPTIVE_DEFAULTS,
  TINY_NUISANCE,
  accuracyCurve,
  fitRunAccuracy,
  selectForRange,
  tinyRunRecords,
  unflaggedItems,
  type TinyRunScore,
} from '@llm-nrm/analysis';
import { bundleBank } from '../bundle-bank.js';
import { tinyRunScoresParallel } from './evaluateWorkers.js';
import { fewNames, formatTable, info, printJson, printText } from '../output.js';
import { calibrationJson, unconvergedLine } from '../bundleConvergence.js';
import { readResponsesInto, responsesInputOptions, type ResponsesInputArgs } from '../responsesInput.js';
import { commandLine, sha256File, toolVersion } from '../provenance.js';
import { bundleWithFileNames, commandWithFileNames } from '../fileNamesOnly.js';

interface PublishArgs extends ResponsesInputArgs {
  bundle: string;
  responses: string;
  items: number;
  'per-benchmark': boolean;
  forms: number;
  workers?: number;
  harness: string;
  name?: string;
  'render-prompt': boolean;
  'allow-placeholder-prompts': boolean;
  'include-flagged': boolean;
  'item-list'?: string;
  adaptive: boolean;
  se?: number;
  'min-items'?: number;
  'max-items'?: number;
  batch?: number;
  randomesque?: number;
  seed?: number;
  output: string;
  force: boolean;
  json: boolean;
  quiet: boolean;
}

const letters = (k: number) => Array.from({ length: k }, (_, i) => String.fromCharCode(65 + i));

/**
 * What the responses say about each item's text: the first record with a prompt (or, for a
 * multiple-input item, per-option contexts) and continuations.
 */
interface Content {
  prompt?: string;
  continuations?: string[];
  contexts?: string[];
  options?: string[];
  source?: ResponseRecord['source'];
}

/** Each item's first recorded texts, record by record (a stream's sink: records are not kept). */
function contentCollector(): { add(r: ResponseRecord): void; result: Map<string, Content> } {
  const out = new Map<string, Content>();
  const add = (r: ResponseRecord): void => {
    let c = out.get(r.item);
    if (c === undefined) out.set(r.item, (c = {}));
    if (c.options === undefined && r.options !== undefined) c.options = r.options;
    if (c.source === undefined && r.source !== undefined) c.source = r.source;
    if (c.continuations !== undefined || !Array.isArray(r.continuations)) {
      if (c.prompt === undefined && typeof r.prompt === 'string') c.prompt = r.prompt;
    } else if (Array.isArray(r.contexts)) {
      // lm-eval's multiple-input form asks one continuation after each option's context: only that is exportable as is.
      if (r.continuations.every((t) => t === r.continuations![0])) {
        c.contexts = r.contexts;
        c.continuations = r.continuations;
      }
    } else if (typeof r.prompt === 'string') {
      c.prompt = r.prompt;
      c.continuations = r.continuations;
    }
  };
  return { add, result: out };
}

/**
 * What `publish` takes from the responses in one read (`readResponsesInto`): the items' texts, the
 * calibrated LLMs' accuracies and the count; `keep`: the records too, for an input that cannot be
 * read again (standard input), else a second read takes the selected items' records.
 */
function publishSink(
  bundle: CalibrationBundle,
  keep: boolean,
): RecordSink<{ content: Map<string, Content>; acc: Map<string, Map<string, number>>; n: number; kept: ResponseRecord[] | null }> {
  const content = contentCollector();
  const tally = argmaxTally(bundle.items);
  const kept: ResponseRecord[] | null = keep ? [] : null;
  let n = 0;
  return {
    add: (r) => {
      content.add(r);
      tally.add(r);
      kept?.push(r);
      n++;
    },
    finish: () => ({ content: content.result, acc: tally.result(), n, kept }),
  };
}

/**
 * The question of a multiple-input item (winogrande: option k fills the blank, contexts[k] is
 * the text up to and with the filled blank, then the shared continuation) as one text with the
 * blank shown: the contexts' common prefix (cut back to a word start), `_`, the continuation.
 * Undefined when the contexts do not have that shape.
 */
function blankQuestion(c: Content): string | undefined {
  const { contexts, continuations } = c;
  if (contexts === undefined || contexts.length < 2 || continuations === undefined || continuations[0] === undefined) return undefined;
  let n = 0;
  while (n < contexts[0]!.length && contexts.every((ctx) => ctx[n] === contexts[0]![n])) n++;
  const prefix = contexts[0]!.slice(0, n).replace(/\S+$/, '');
  const fills = contexts.map((ctx) => ctx.slice(prefix.length));
  if (fills.some((f) => f.trim() === '' || f.includes('\n'))) return undefined;
  return `${prefix}_${continuations[0]}`;
}

/** A standard prompt from question and options (`--render-prompt`): scored by the letter after "Answer:". */
function renderPrompt(question: string, options: string[]): { prompt: string; continuations: string[] } {
  const L = letters(options.length);
  return { prompt: `${question}\n${options.map((o, k) => `${L[k]}. ${o}`).join('\n')}\nAnswer:`, continuations: L.map((l) => ` ${l}`) };
}

/**
 * Per-LLM argmax accuracy per benchmark and overall (core's `argmaxAccuracies`), as the curves
 * want them: overall by LLM, and by benchmark then LLM.
 */
function accuracies(byModel: Map<string, Map<string, number>>): { overall: Map<string, number>; byBench: Map<string, Map<string, number>> } {
  const overall = new Map<string, number>();
  const byBench = new Map<string, Map<string, number>>();
  for (const [model, m] of byModel) {
    for (const [b, a] of m) {
      if (b === OVERALL) overall.set(model, a);
      else {
        if (!byBench.has(b)) byBench.set(b, new Map());
        byBench.get(b)!.set(model, a);
      }
    }
  }
  return { overall, byBench };
}

// The tiny package's bundle is core's (`restrictBundle`): re-exported for this command's callers.
export { restrictBundle };

/** `--item-list`: item ids one a line (blank lines and # comments skipped), each in the bundle once, with a recorded prompt unless rendering. */
async function readItemList(file: string, bundle: CalibrationBundle, forms: number, exact: Uint8Array | undefined): Promise<string[]> {
  if (forms !== 1) throw new LlmNrmError('INVALID_OPTION', '--item-list gives one form: leave out --forms');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new LlmNrmError('IO', `cannot read --item-list ${file}: ${(e as Error).message}`, { cause: e, file });
  }
  const index = new Map(bundle.items.map((it, i) => [it.id, i]));
  const ids: string[] = [];
  const seen = new Set<string>();
  text.split('\n').forEach((raw, n) => {
    const id = raw.trim();
    if (id === '' || id.startsWith('#')) return;
    const i = index.get(id);
    if (i === undefined) throw new LlmNrmError('UNKNOWN_ITEM', `item ${JSON.stringify(id)} is not in the bundle`, { file, line: n + 1 });
    if (seen.has(id)) throw new LlmNrmError('INVALID_OPTION', `item ${JSON.stringify(id)} is listed twice`, { file, line: n + 1 });
    if (exact && !exact[i])
      throw new LlmNrmError('INVALID_OPTION', `item ${JSON.stringify(id)} has no recorded prompt and continuations (--render-prompt builds one)`, {
        file,
        line: n + 1,
      });
    seen.add(id);
    ids.push(id);
  });
  if (ids.length === 0) throw new LlmNrmError('INVALID_OPTION', `--item-list ${file} lists no item`, { file });
  return ids;
}

/**
 * With --forms the output holds one package folder per form (A/, B/, ...), each under the output
 * policy; the folder above them must be absent, empty or hold form folders only, so that forms are
 * never scattered among a user's own files.
 */
async function checkFormsFolder(dir: string): Promise<void> {
  const st = await stat(dir).catch(() => undefined);
  if (st !== undefined && !st.isDirectory()) {
    throw new LlmNrmError('OUTPUT_REFUSED', `refused -o ${dir}: it is a file, not a folder; choose an absent or empty folder`);
  }
  const names = st === undefined ? [] : await readdir(dir);
  const other = names.filter((n) => !/^[A-Z]$/.test(n)).sort();
  if (other.length > 0) {
    throw new LlmNrmError(
      'OUTPUT_REFUSED',
      `refused -o ${dir}: --forms writes form folders A/, B/, ... into it, and it holds other entries (first ${JSON.stringify(other[0])}); ` +
        'nothing was changed; choose an absent or empty folder, or one publish --forms wrote',
    );
  }
}

/**
 * `--adaptive` and its settings (analysis' ADAPTIVE_DEFAULTS where not given), checked; null without
 * --adaptive, where the settings are refused (they would do nothing).
 */
function adaptiveSettings(argv: PublishArgs): AdaptiveSettings | null {
  const given = (['se', 'min-items', 'max-items', 'batch', 'randomesque', 'seed'] as const).filter((k) => argv[k] !== undefined);
  if (!argv.adaptive) {
    if (given.length > 0) throw new LlmNrmError('INVALID_OPTION', `--${given[0]} sets the adaptive runner: add --adaptive`);
    return null;
  }
  if (argv.forms !== 1) throw new LlmNrmError('INVALID_OPTION', '--adaptive publishes one pool: leave out --forms');
  const int = (k: 'min-items' | 'max-items' | 'batch' | 'randomesque', min: number, fallback: number): number => {
    const v = argv[k] ?? fallback;
    if (!Number.isInteger(v) || v < min) throw new LlmNrmError('INVALID_OPTION', `invalid --${k}: ${v} (an integer, at least ${min})`);
    return v;
  };
  const se = argv.se ?? ADAPTIVE_DEFAULTS.se;
  if (!(Number.isFinite(se) && se > 0)) throw new LlmNrmError('INVALID_OPTION', `invalid --se: ${se} (a positive number)`);
  const seed = argv.seed ?? ADAPTIVE_DEFAULTS.seed;
  // The Python runner repeats the 32-bit generator: an integer seed in its range.
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
    throw new LlmNrmError('INVALID_OPTION', `invalid --seed: ${seed} (an integer, 0 to 4294967295)`);
  const out: AdaptiveSettings = {
    batch: int('batch', 1, ADAPTIVE_DEFAULTS.batch),
    se,
    minItems: int('min-items', 0, ADAPTIVE_DEFAULTS.minItems),
    maxItems: int('max-items', 1, ADAPTIVE_DEFAULTS.maxItems),
    randomesque: int('randomesque', 1, ADAPTIVE_DEFAULTS.randomesque),
    seed,
    balance: true,
  };
  if (out.minItems > out.maxItems) throw new LlmNrmError('INVALID_OPTION', `--min-items ${out.minItems} exceeds --max-items ${out.maxItems}`);
  return out;
}

export const publishCommand: CommandModule<object, PublishArgs> = {
  command: 'publish <bundle>',
  describe: 'Publish a tiny benchmark: select items that measure the whole ability range and export them as tasks your harness runs',
  builder: (y: Argv) =>
    responsesInputOptions(y)
      .positional('bundle', { describe: 'Calibration bundle (JSON, from `llm-nrm fit`)', type: 'string', demandOption: true })
      .option('responses', {
        describe: 'The calibration responses (tidy file or harness outputs): prompts, continuations and accuracies',
        type: 'string',
        demandOption: true,
        requiresArg: true,
      })
      .option('items', { alias: 'n', describe: 'Items per form', type: 'number', default: 41 })
      .option('per-benchmark', { describe: "Keep each benchmark's share of the bank in the selection", type: 'boolean', default: false })
      .option('forms', { describe: 'Parallel forms with no shared item (written to <output>/A, <output>/B, ...)', type: 'number', default: 1 })
      .option('workers', {
        describe:
          'Worker threads scoring the calibrated LLMs as tiny runs of the package (default: one per core; 1: this thread). The package does not depend on it',
        type: 'number',
        requiresArg: true,
      })
      .option('harness', {
        describe: `Harnesses to export, comma-separated (${[...HARNESS_EXPORTERS.keys()].join(', ')})`,
        type: 'string',
        default: [...HARNESS_EXPORTERS.keys()].join(','),
      })
      .option('name', { describe: 'Benchmark name: the tasks are tiny_<name> (default: the output folder name)', type: 'string', requiresArg: true })
      .option('render-prompt', {
        describe: 'Items without a recorded prompt get a standard one from question and options (flagged in the README)',
        type: 'boolean',
        default: false,
      })
      .option('allow-placeholder-prompts', {
        describe:
          'With --render-prompt, publish items that have no question text (their prompts are placeholders: "Question <id>", letters as options); ' +
          'the README says so in its first lines',
        type: 'boolean',
        default: false,
      })
      .option('include-flagged', {
        describe: 'Also select items `report` flags as possible-wrong-key (left out by default and listed in the README)',
        type: 'boolean',
        default: false,
      })
      .option('item-list', {
        describe: 'Publish these items (a file of item ids, one a line) instead of selecting them: a subset chosen elsewhere, or a random baseline',
        type: 'string',
        requiresArg: true,
      })
      .option('adaptive', {
        describe:
          'Publish an adaptive test: the whole calibrated pool (every item with a prompt, flagged items left out) and lm-eval/nrm_adaptive.py, ' +
          'which asks each model the items most informative at its estimate, round by round, until the SE target (--items, --forms, --per-benchmark do not apply)',
        type: 'boolean',
        default: false,
      })
      .option('se', { describe: `With --adaptive: stop once theta's SE is at most this (default ${ADAPTIVE_DEFAULTS.se})`, type: 'number', requiresArg: true })
      .option('min-items', {
        describe: `With --adaptive: ... and at least this many items were answered (default ${ADAPTIVE_DEFAULTS.minItems})`,
        type: 'number',
        requiresArg: true,
      })
      .option('max-items', {
        describe: `With --adaptive: stop at this many items whatever the SE (default ${ADAPTIVE_DEFAULTS.maxItems})`,
        type: 'number',
        requiresArg: true,
      })
      .option('batch', {
        describe: `With --adaptive: items per round, one batched harness call (default ${ADAPTIVE_DEFAULTS.batch})`,
        type: 'number',
        requiresArg: true,
      })
      .option('randomesque', {
        describe: `With --adaptive: exposure control, each slot takes one of this many most informative items at random (default ${ADAPTIVE_DEFAULTS.randomesque})`,
        type: 'number',
        requiresArg: true,
      })
      .option('seed', { describe: `With --adaptive: seed of the randomesque draws (default ${ADAPTIVE_DEFAULTS.seed})`, type: 'number', requiresArg: true })
      .option('output', {
        alias: 'o',
        describe: 'Package folder to write (atomically): absent, empty, or one llm-nrm wrote with --force',
        type: 'string',
        demandOption: true,
        requiresArg: true,
      })
      .option('force', {
        describe: 'Replace a package folder llm-nrm wrote (never one holding an input, the working directory or files llm-nrm did not write)',
        type: 'boolean',
        default: false,
      })
      .option('json', { describe: 'Print the summary as JSON', type: 'boolean', default: false })
      .option('quiet', { alias: 'q', describe: 'No status on stderr', type: 'boolean', default: false })
      .example('$0 publish bundle.json --responses calib.jsonl --items 41 --name mmlu -o tiny-mmlu/', '41 items as lm-eval, Inspect and OpenAI-evals tasks')
      .example(
        '$0 publish bundle.json --responses calib.jsonl --item-list my-items.txt -o tiny-mine/',
        'publish the items listed (one id a line) instead of selecting',
      )
      .example(
        '$0 publish bundle.json --responses calib.jsonl --items 100 --per-benchmark --forms 2 --harness lm-eval -o tiny/',
        'two parallel 100-item forms, benchmark shares kept',
      )
      .example(
        '$0 publish bundle.json --responses calib.jsonl --adaptive --se 0.3 --max-items 60 -o adaptive-mmlu/',
        'an adaptive test: python adaptive-mmlu/lm-eval/nrm_adaptive.py --model hf --model_args pretrained=<model> --output_path out/',
      )
      .epilogue(
        "Items are chosen greedily to maximise the expected log test information over the calibrated LLMs' abilities, so the " +
          'tiny test measures the whole range (the top-information items pile up at one ability level). Run the package in your ' +
          'harness, then `llm-nrm score <package> <harness output>` places the model on the full leaderboard.',
      ) as unknown as Argv<PublishArgs>,
  handler: async (argv) => {
    if (!Number.isInteger(argv.items) || argv.items < 1) throw new LlmNrmError('INVALID_OPTION', `invalid --items: ${argv.items}`);
    const adaptive = adaptiveSettings(argv);
    if (!Number.isInteger(argv.forms) || argv.forms < 1 || argv.forms > 26) throw new LlmNrmError('INVALID_OPTION', `invalid --forms: ${argv.forms} (1 to 26)`);
    if (argv.workers !== undefined && !(Number.isInteger(argv.workers) && argv.workers >= 1)) {
      throw new LlmNrmError('INVALID_OPTION', `invalid --workers value: ${JSON.stringify(argv.workers)} (a positive integer)`);
    }
    const harnesses = argv.harness
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    for (const h of harnesses)
      if (!HARNESS_EXPORTERS.has(h))
        throw new LlmNrmError('INVALID_OPTION', `unknown --harness ${JSON.stringify(h)} (known: ${[...HARNESS_EXPORTERS.keys()].join(', ')})`);
    // The output policy is checked before any work: a package folder never holds or replaces an input.
    const inputs = [argv.bundle, argv.responses, ...(argv['item-list'] !== undefined ? [argv['item-list']] : [])];
    const formDirs = argv.forms > 1 ? Array.from({ length: argv.forms }, (_, f) => join(argv.output, String.fromCharCode(65 + f))) : [argv.output];
    if (argv.forms > 1) await checkFormsFolder(argv.output);
    for (const d of formDirs) await checkFolderOutput(d, { command: 'publish', inputs, replace: argv.force, forceFlag: '--force' });
    const bundle = await readBundle(argv.bundle);
    if (getFamily(bundle.model).kind !== 'option-level') {
      throw new LlmNrmError(
        'INVALID_OPTION',
        `${argv.bundle}: a ${bundle.model} bundle; tiny benchmarks score option-level models (llm-nrm, nrm): fit one with --model llm-nrm`,
      );
    }
    // Every harness file carries each item's gold answer, and the package predicts accuracy: a key-free
    // bundle's keys are only its anchors (consensusKeys), never to be published as answers.
    requireKeys(
      bundle.items,
      `${argv.bundle}: a tiny package (each harness's gold answer, the accuracy prediction)`,
      'fit the bank with its keys (`llm-nrm audit <bundle> <responses>` checks doubtful ones) and publish that bundle',
    );
    const name = (
      argv.name ??
      argv.output
        .replace(/\/+$/, '')
        .split('/')
        .pop()!
        .replace(/^tiny[-_]/, '')
    ).replace(/[^A-Za-z0-9_]+/g, '_');
    // As `fit` reads them; ids the bundle split into versions (<id>#<hash>) matched by content.
    // Records are not kept (a leaderboard's millions would not fit): this read takes the items' texts
    // and the LLMs' accuracies, a second the selected items' records (below); standard input or a
    // pipe, which cannot be read twice (`readsOnce`), is kept whole.
    const once = await readsOnce(argv.responses);
    const first = await readResponsesInto(argv.responses, argv, bundle.items, () => publishSink(bundle, once));
    const { content, kept } = first.result;
    info(argv.quiet, `read ${first.result.n} responses from ${argv.responses}`);
    const { bank, layout, x } = bundleBank(bundle);
    // Items with a recorded prompt can be published as they were calibrated; others only rendered.
    const exact = Uint8Array.from(bundle.items, (it) => (content.get(it.id)?.continuations?.length === it.nOptions ? 1 : 0));
    const nExact = exact.reduce((s, v) => s + v, 0);
    // An adaptive package's pool is every item with a prompt: one is enough to publish it.
    const need = adaptive ? 1 : argv.items * argv.forms;
    if (!argv['render-prompt'] && nExact < need && argv['item-list'] === undefined) {
      throw new LlmNrmError(
        'INVALID_OPTION',
        `${bundle.items.length - nExact} of ${bundle.items.length} items have no recorded prompt and continuations in ${argv.responses} ` +
          `(a bank built from probabilities alone, or generated answers); ${nExact} can be published as calibrated, ${need} are needed. ` +
          '--render-prompt builds a standard prompt from question and options for them (flagged in the README as not the calibration prompt)',
      );
    }
    const prompted = argv['render-prompt'] && nExact < need ? undefined : exact;
    // Items whose key `report` flags stay out (listed in the README) unless asked for: selectForRange
    // leaves them out of a selection (as in every study of it), the adaptive pool here.
    const includeFlagged = argv['include-flagged'] || argv['item-list'] !== undefined;
    const poolFlags = adaptive !== null && argv['item-list'] === undefined && !includeFlagged ? unflaggedItems(bank, layout, x) : null;
    const sel =
      adaptive !== null && argv['item-list'] === undefined
        ? {
            ids: [
              bundle.items
                .filter((_, i) => (prompted === undefined || prompted[i] === 1) && (poolFlags === null || poolFlags.eligible[i] === 1))
                .map((it) => it.id),
            ],
            leftOut: poolFlags?.leftOut ?? [],
          }
        : argv['item-list'] !== undefined
          ? { ids: [await readItemList(argv['item-list'], bundle, argv.forms, argv['render-prompt'] ? undefined : exact)], leftOut: [] }
          : // The default abilities, as `select` takes them: the calibrated LLMs' and BELOW_FLEET under the weakest.
            selectForRange(bank, layout, x, argv.items, {
              perBenchmark: argv['per-benchmark'],
              forms: argv.forms,
              includeFlagged,
              ...(prompted ? { eligible: prompted } : {}),
            });
    const { leftOut } = sel;
    if (leftOut.length > 0) info(argv.quiet, `left out ${leftOut.length} flagged items (listed in the README; --include-flagged keeps them)`);
    if (adaptive !== null && argv['item-list'] === undefined && prompted !== undefined && nExact < bundle.items.length)
      info(argv.quiet, `the pool leaves out ${bundle.items.length - nExact} items without a recorded prompt (--render-prompt renders one for them)`);
    // Accuracy curves of the calibrated LLMs, per benchmark and overall.
    const acc = accuracies(first.result.acc);
    const thetas = bundle.llms.map((l) => l.theta);
    // Chance accuracy (mean 1/K) of a benchmark's items ('' = all), over the bank and over a package's items.
    const chanceOf = (ids: Iterable<string>, bench: string): number => {
      const byId = new Map(bundle.items.map((it) => [it.id, it]));
      let s = 0;
      let n = 0;
      for (const id of ids) {
        const it = byId.get(id);
        if (it === undefined || (bench !== '' && (it.benchmark ?? '') !== bench)) continue;
        s += 1 / it.nOptions;
        n++;
      }
      return n > 0 ? s / n : NaN;
    };
    const curveOf = (
      m: Map<string, number>,
      bench: string,
      run: { acc: Map<string, number> | undefined; scores: Map<string, TinyRunScore>; ids: Set<string> } | null,
    ): TinyAccuracy => {
      const full = bundle.llms.map((l) => m.get(l.id) ?? NaN);
      const c = accuracyCurve(thetas, full);
      const out: TinyAccuracy = { accuracy: c.accuracy, residualSd: c.residualSd, llms: c.llms };
      // No run-accuracy model for an adaptive package: its runs answer items aimed at their own level
      // (about half right whatever the LLM's accuracy), so their accuracy on them says little of the
      // bank's; the prediction is then the curve at theta with theta's SE (analysis'
      // predictPackageCurve). Nor are the calibrated LLMs scored as runs of its whole pool for it.
      if (run === null) return out;
      // The run-accuracy model is fitted on the calibrated LLMs scored as tiny runs of this package.
      const rows = bundle.llms.map((l, j) => {
        const s = run.scores.get(l.id);
        return {
          fullTheta: l.theta,
          theta: s?.theta ?? NaN,
          logSharpness: s?.logSharpness ?? NaN,
          tinyAccuracy: run.acc?.get(l.id) ?? NaN,
          fullAccuracy: full[j]!,
          hard: s?.hard ?? false,
        };
      });
      const chanceTiny = chanceOf(run.ids, bench);
      const chanceFull = chanceOf(
        bundle.items.map((it) => it.id),
        bench,
      );
      const items = [...run.ids].filter((id) => bench === '' || bundle.items.find((it) => it.id === id)?.benchmark === bench).length;
      const usable = rows.filter(
        (r) => Number.isFinite(r.theta) && Number.isFinite(r.logSharpness) && Number.isFinite(r.tinyAccuracy) && Number.isFinite(r.fullAccuracy),
      );
      if (usable.length >= 2 && chanceTiny > 0 && chanceTiny < 1 && chanceFull > 0 && chanceFull < 1 && items > 0) {
        const { curve: _curve, ...model } = fitRunAccuracy(rows, { chanceTiny, chanceFull, items });
        out.run = model;
      }
      return out;
    };
    const grid = accuracyCurve(
      thetas,
      bundle.llms.map((l) => acc.overall.get(l.id) ?? NaN),
    ).grid;
    // The selected items' records (every form's), in the order read: the calibrated LLMs' tiny runs.
    let selectedRecords: ResponseRecord[] = [];
    if (adaptive === null) {
      const selected = new Set(sel.ids.flat());
      if (kept !== null) selectedRecords = kept.filter((r) => selected.has(r.item));
      else {
        const again = await readResponsesInto(
          argv.responses,
          argv,
          bundle.items,
          () => {
            const out: ResponseRecord[] = [];
            return { add: (r) => void (selected.has(r.item) && out.push(r)), finish: () => out };
          },
          { label: `read again (the ${selected.size} selected items' records)`, again: true },
        );
        selectedRecords = again.result;
      }
    }
    const curves = async (tinyIds: Set<string>, restricted: CalibrationBundle) => {
      let runs: { scores: Map<string, TinyRunScore>; t: ReturnType<typeof accuracies> } | null = null;
      if (adaptive === null) {
        info(argv.quiet, `scoring the ${bundle.llms.length} calibrated LLMs as tiny runs of ${tinyIds.size} items (the accuracy prediction)`);
        const runRecords = tinyRunRecords(selectedRecords, tinyIds);
        // In sample: each calibrated LLM's run is scored on items it helped fit (rescoring it on refits
        // without it, `--cross-fit`, was measured and dropped: analysis/BENCHMARKS.md).
        const scores = await tinyRunScoresParallel(restricted, runRecords, TINY_NUISANCE, argv.workers !== undefined ? { workers: argv.workers } : {});
        runs = { scores, t: accuracies(argmaxAccuracies(runRecords, bundle.items)) };
      }
      const runOf = (acc: Map<string, number> | undefined) => (runs === null ? null : { acc, scores: runs.scores, ids: tinyIds });
      const benchmarks: Record<string, TinyAccuracy> = {};
      for (const [b, m] of [...acc.byBench].sort((p, q) => p[0].localeCompare(q[0])))
        if (b !== '' && m.size >= 2) benchmarks[b] = curveOf(m, b, runOf(runs?.t.byBench.get(b)));
      return { grid, overall: curveOf(acc.overall, '', runOf(runs?.t.overall)), benchmarks };
    };
    const publishPaths = new Set([argv.bundle, argv.responses, argv.output, ...(argv['item-list'] !== undefined ? [argv['item-list']] : [])]);
    const [bundleSha, responsesSha] = await Promise.all([sha256File(argv.bundle), sha256File(argv.responses).catch(() => undefined)]);
    const summaries: Record<string, unknown>[] = [];
    const byId = new Map(bundle.items.map((it) => [it.id, it] as [string, BundleItem]));
    /** An item's text as exported: recorded, rendered from question and options, or (no question text) a placeholder. */
    const textOf = (id: string) => {
      const it = byId.get(id)!;
      const c = content.get(id) ?? {};
      const optionTexts = it.options ?? c.options;
      const options = optionTexts ?? letters(it.nOptions);
      let continuations = c.continuations?.length === it.nOptions ? c.continuations : undefined;
      // A multiple-input item (per-option contexts) is exported in that form unless prompts are rendered.
      const contexts = continuations !== undefined && c.contexts?.length === it.nOptions && !argv['render-prompt'] ? c.contexts : undefined;
      let prompt = contexts !== undefined ? '' : c.contexts === undefined ? c.prompt : blankQuestion(c);
      let rendered = false;
      let placeholder: string | null = null;
      if (contexts === undefined && (prompt === undefined || continuations === undefined || c.contexts !== undefined)) {
        rendered = true;
        if (prompt === undefined) placeholder = optionTexts === undefined ? 'no question text, no option texts' : 'no question text';
        else if (optionTexts === undefined) placeholder = 'no option texts';
        ({ prompt, continuations } = renderPrompt(prompt ?? `Question ${id}`, options));
      }
      return { it, c, options, continuations: continuations!, contexts, prompt: prompt!, rendered, placeholder };
    };
    // A rendered prompt without question text (`Question <id>`, options `A. A`) asks nothing: refused
    // for every form before any is written, unless asked for (then said first in the README).
    const placeholders = sel.ids.flat().flatMap((id) => {
      const t = textOf(id);
      return t.placeholder === null ? [] : [{ id, why: t.placeholder }];
    });
    if (placeholders.length > 0 && !argv['allow-placeholder-prompts']) {
      throw new LlmNrmError(
        'INVALID_OPTION',
        `${placeholders.length} of the ${sel.ids.flat().length} selected items have no question text to render a prompt from ` +
          `(${fewNames(
            placeholders.map((p) => `${p.id} (${p.why})`),
            ', ',
            5,
          )}): their prompts would be placeholders ` +
          `("Question <id>", options "A. A"), which no model can answer as calibrated. Give responses that record the prompts, ` +
          'publish other items (--item-list), or pass --allow-placeholder-prompts (the README then says so in its first lines)',
        { file: argv.responses },
      );
    }
    for (let f = 0; f < argv.forms; f++) {
      const ids = sel.ids[f]!;
      let rendered = 0;
      let placeheld = 0;
      const items: TinyItem[] = ids.map((id) => {
        const { it, c, options, continuations, contexts, prompt, rendered: isRendered, placeholder } = textOf(id);
        if (isRendered) rendered++;
        if (placeholder !== null) placeheld++;
        const sha = itemContentSha256(contexts ?? prompt!, continuations!);
        if (it.contentSha256 !== undefined && continuations === c.continuations && sha !== it.contentSha256) {
          throw new LlmNrmError(
            'CONTENT_CHANGED',
            `item ${JSON.stringify(id)}: its ${contexts ? 'contexts' : 'prompt'} in ${argv.responses} differ from the text it was calibrated on (${argv.bundle})`,
          );
        }
        return {
          item_id: id,
          benchmark: it.benchmark ?? '',
          prompt: prompt!,
          continuations: continuations!,
          ...(contexts ? { contexts } : {}),
          gold: it.key,
          options,
          source: c.source ?? it.source ?? null,
          content_sha256: sha,
        };
      });
      const restricted = restrictBundle(bundle, new Set(ids));
      const formName = String.fromCharCode(65 + f);
      const bank: Omit<TinyBank, 'itemsSha256'> = {
        format: 'llm-nrm-tiny',
        formatVersion: 1,
        name,
        task: `tiny_${name}${argv.forms > 1 ? `_${formName.toLowerCase()}` : ''}`,
        tool: { name: 'llm-nrm', version: toolVersion() },
        renderedPrompts: rendered,
        ...(placeheld > 0 ? { placeholderPrompts: placeheld } : {}),
        ...(leftOut.length > 0 ? { leftOut } : {}),
        ...(adaptive !== null ? { adaptive } : {}),
        scoring: {
          nuisance: TINY_NUISANCE,
          thetaSd: 3,
          sharpnessSd: restricted.priors?.sharpnessSd ?? 0.5,
          pFloor: SCORE_P_FLOOR,
          fleet: fleetNuisance(restricted),
        },
        accuracy: await curves(new Set(ids), restricted),
        bundle: bundleWithFileNames(restricted),
        ...(argv.forms > 1 ? { form: { name: formName, of: argv.forms } } : {}),
        // File names and hashes, not the publisher's paths: a package is shared and says nothing of the machine it was made on.
        provenance: {
          createdAt: new Date().toISOString(),
          command: commandWithFileNames(commandLine((a) => (publishPaths.has(a) ? basename(a) : a))),
          bundle: { path: basename(argv.bundle), sha256: bundleSha },
          ...(responsesSha ? { responses: { path: basename(argv.responses), sha256: responsesSha } } : {}),
        },
      };
      const dir = argv.forms > 1 ? join(argv.output, formName) : argv.output;
      const pkg = tinyPackage(bank, items);
      const res = await writeTinyPackage(dir, pkg, { harnesses, overwrite: argv.force, inputs });
      info(
        argv.quiet,
        `wrote ${dir}: ${items.length} items${rendered > 0 ? ` (${rendered} with rendered prompts)` : ''}, bank sha256 ${res.bankSha256.slice(0, 12)}...`,
      );
      const perBench = new Map<string, number>();
      for (const it of items) perBench.set(it.benchmark, (perBench.get(it.benchmark) ?? 0) + 1);
      summaries.push({
        dir,
        task: bank.task,
        items: ids,
        benchmarks: Object.fromEntries(perBench),
        renderedPrompts: rendered,
        bankSha256: res.bankSha256,
        itemsSha256: res.itemsSha256,
        files: res.files,
      });
    }
    // A bundle from an unconverged fit is said first (stdout's first line, JSON's first key): the
    // package's items were chosen by its information and its lm-eval task scores with its items.
    const unsettled = unconvergedLine(bundle, argv.bundle);
    if (argv.json) {
      if (unsettled !== null) info(argv.quiet, unsettled.trimEnd());
      printJson({ calibration: calibrationJson(bundle), name, forms: summaries });
      return;
    }
    if (unsettled !== null) printText(unsettled);
    for (const s of summaries) {
      printText(`${s.dir}: task ${s.task}, ${(s.items as string[]).length} items\n`);
      printText(
        formatTable(
          ['benchmark', 'items'],
          Object.entries(s.benchmarks as Record<string, number>).map(([b, n]) => [b || '(none)', n]),
        ),
      );
    }
    if (adaptive !== null) {
      printText(
        `run: python ${join(String(summaries[0]!.dir), 'lm-eval', 'nrm_adaptive.py')} --model <model> --model_args <args> --output_path out/\nthen: llm-nrm score ${summaries[0]!.dir} out/\n`,
      );
      return;
    }
    printText(
      `run: lm_eval --model <model> --model_args <args> --tasks ${summaries[0]!.task} --include_path ${join(String(summaries[0]!.dir), 'lm-eval')} --log_samples --output_path out/\nthen: llm-nrm score ${summaries[0]!.dir} out/\n`,
    );
  },
};
