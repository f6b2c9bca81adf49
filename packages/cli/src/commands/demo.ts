import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { LlmNrmError, bankFromRecords, bankRecords, fit, simulateFleet, toBundle, type CalibrationBundle, type ResponseRecord } from '@llm-nrm/core';
import { checkFolderOutput, filesUnder, newReport, readLmEvalHarness, writeFolderOutput, writeLmEvalHarness } from '@llm-nrm/adapters';
import { pearson, spearmanRho } from '@llm-nrm/analysis';
import { buildSite } from '@llm-nrm/site';
import { formatTable, info, printJson, printText } from '../output.js';
import { commandLine, toolVersion } from '../provenance.js';
import { engineOption, loadEngine } from '../engines.js';
import { fitProgress, formatDiagnostics, ranked } from './fit.js';
import { fleetTruth } from './simulate.js';

interface DemoArgs {
  models: number;
  items: number;
  seed: number;
  engine: string;
  out?: string;
  site?: string;
  json: boolean;
  quiet: boolean;
}

/** Leaderboard rows shown: the top and the bottom of the fleet. */
const TOP = 10;
const BOTTOM = 5;

/** How well a fit recovered the generating parameters. */
export interface Recovery {
  /** Spearman of fitted vs true theta over LLMs. */
  theta: number;
  /** Pearson of fitted vs true a_ik, both centred per item, over every option of every item. */
  slopes: number;
  /** Spearman of fitted vs true sharpness over LLMs. */
  sharpness: number;
}

function centred(v: number[]): number[] {
  const m = v.reduce((s, t) => s + t, 0) / v.length;
  return v.map((t) => t - m);
}

export const demoCommand: CommandModule<object, DemoArgs> = {
  command: 'demo',
  describe: 'The whole path on a simulated fleet: simulate, write lm-eval-harness outputs, read them back, fit LLM-NRM, check recovery',
  builder: (y: Argv) =>
    engineOption(y)
      .option('models', { describe: 'LLMs in the simulated fleet', type: 'number', default: 40 })
      .option('items', { describe: 'Items in the simulated bank', type: 'number', default: 400 })
      .option('seed', { describe: 'Seed of the simulation', type: 'number', default: 1 })
      .option('out', {
        describe: 'Keep the outputs in this folder (lm-eval/ samples, bundle.json, truth.json, site/) instead of a temp dir: absent, empty, or one demo wrote',
        type: 'string',
        requiresArg: true,
      })
      .option('site', {
        describe:
          'Write the leaderboard site here (default: <out>/site with --out, else a new llm-nrm-demo-site-* folder in the temp folder); --no-site skips it',
        type: 'string',
      })
      .option('json', { describe: 'Print the results as JSON', type: 'boolean', default: false })
      .option('quiet', { alias: 'q', describe: 'No progress or status on stderr', type: 'boolean', default: false })
      .example('$0 demo', '40 LLMs x 400 items, about ten seconds')
      .example('$0 demo --models 189 --items 2000 --out demo/', 'the paper-sized fleet, outputs kept under demo/') as unknown as Argv<DemoArgs>,
  handler: async (argv) => {
    for (const [flag, v] of [
      ['models', argv.models],
      ['items', argv.items],
    ] as const) {
      if (!(Number.isInteger(v) && v >= 2)) throw new LlmNrmError('INVALID_OPTION', `invalid --${flag}: ${v} (an integer of at least 2)`);
    }
    const say = (msg: string) => info(argv.quiet, msg);
    const t0 = Date.now();
    const secs = (t: number) => ((Date.now() - t) / 1000).toFixed(1);

    // 1. A fleet from known parameters. One rotation: lm-eval samples cannot hold a display order.
    let t = Date.now();
    const fleet = simulateFleet({ models: argv.models, items: argv.items, seed: argv.seed, rotations: 1 });
    say(`1/4 simulated ${argv.models} LLMs x ${argv.items} items (seed ${argv.seed}) in ${secs(t)} s`);

    // 2. As lm-eval-harness outputs, then 3. read back through the lm-eval reader.
    // Everything is made in a private temp folder; with --out it is then moved in under the output
    // policy (checked first, so a refused --out costs nothing).
    if (argv.out !== undefined) await checkFolderOutput(argv.out, { command: 'demo', inputs: [], replace: true, flag: '--out' });
    const dir = await mkdtemp(join(tmpdir(), 'llm-nrm-demo-'));
    const lmDir = join(dir, 'lm-eval');
    const shown = (p: string) => (argv.out !== undefined ? join(argv.out, relative(dir, p)) : p);
    try {
      t = Date.now();
      const written = await writeLmEvalHarness(bankRecords(fleet.bank), lmDir);
      say(`2/4 wrote ${written.records} lm-eval-harness samples (${written.files.length} files) under ${shown(lmDir)} in ${secs(t)} s`);
      t = Date.now();
      const report = newReport();
      const records: ResponseRecord[] = [];
      for await (const r of readLmEvalHarness(lmDir, { report })) records.push(r);
      const { bank, stats } = bankFromRecords(records, { file: lmDir });
      say(
        `3/4 read ${records.length} records back with readLmEvalHarness: ${bank.models.length} LLMs x ${bank.items.length} items, ${stats.cells} cells, in ${secs(t)} s`,
      );

      // 4. Fit LLM-NRM with the default optimizer.
      t = Date.now();
      const result = fit(bank, { engine: await loadEngine(argv.engine), onProgress: fitProgress(argv.quiet) });
      const bundle = toBundle(result, { version: toolVersion(), command: commandLine(), seed: argv.seed });
      say(`4/4 fitted LLM-NRM in ${secs(t)} s (${result.iterations} iterations, ${result.passes} passes)`);

      const recovery = recover(fleet, written.itemIds, bundle);
      // The leaderboard site of this fleet (`--no-site` gives site === false).
      let site: string | null = null;
      if ((argv.site as unknown) !== false) {
        t = Date.now();
        // Without --out or --site, a fresh folder: a fixed name in the shared temp folder could be another user's.
        const where = argv.site ?? (argv.out !== undefined ? join(dir, 'site') : await mkdtemp(join(tmpdir(), 'llm-nrm-demo-site-')));
        const built = await buildSite({ bundle, bank, title: `LLM-NRM demo: ${argv.models} simulated LLMs` }, where, { command: 'demo' });
        site = argv.site ?? shown(where);
        say(`site: wrote the leaderboard site (${built.files} data files) to ${site} in ${secs(t)} s`);
      }
      if (argv.out !== undefined) {
        await writeFile(join(dir, 'bundle.json'), JSON.stringify(bundle, null, 2) + '\n');
        await writeFile(join(dir, 'truth.json'), JSON.stringify(fleetTruth(fleet), null, 2) + '\n');
        await writeFolderOutput(
          argv.out,
          async (tmp) => {
            await cp(dir, tmp, { recursive: true });
            return filesUnder(tmp);
          },
          { command: 'demo', inputs: [], replace: true, flag: '--out' },
        );
        say(`wrote ${join(argv.out, 'bundle.json')} and ${join(argv.out, 'truth.json')}`);
      }
      const trueTheta = new Map(fleet.bank.models.map((id, j) => [id, fleet.truth[fleet.layout.theta + j]!]));
      const board = ranked(bundle.llms);
      const seconds = (Date.now() - t0) / 1000;
      if (argv.json) {
        printJson({
          models: argv.models,
          items: argv.items,
          seed: argv.seed,
          out: argv.out ?? null,
          leaderboard: board.map((l) => ({
            rank: l.rank,
            id: l.id,
            theta: l.theta,
            se: l.se,
            sharpness: l.sharpness,
            accuracy: l.accuracy,
            trueTheta: trueTheta.get(l.id),
          })),
          recovery,
          fit: bundle.fit,
          seconds,
          site,
        });
        return;
      }
      printText(report_(bundle, board, trueTheta, recovery, argv, seconds, site));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
};

/** Compare the fitted bundle with the generating parameters, mapping lm-eval's item ids back. */
export function recover(fleet: ReturnType<typeof simulateFleet>, itemIds: Map<string, string>, bundle: CalibrationBundle): Recovery {
  const truth = fleetTruth(fleet);
  const llm = new Map(bundle.llms.map((l) => [l.id, l]));
  const item = new Map(bundle.items.map((it) => [it.id, it]));
  const th: number[] = [];
  const thTrue: number[] = [];
  const sh: number[] = [];
  const shTrue: number[] = [];
  for (const l of truth.llms) {
    const f = llm.get(l.id);
    if (f === undefined) continue;
    th.push(f.theta);
    thTrue.push(l.theta);
    sh.push(f.sharpness);
    shTrue.push(l.sharpness);
  }
  const a: number[] = [];
  const aTrue: number[] = [];
  for (const it of truth.items) {
    const f = item.get(itemIds.get(it.id) ?? it.id);
    if (f === undefined || f.a.length !== it.a.length) continue;
    a.push(...centred(f.a));
    aTrue.push(...centred(it.a));
  }
  return {
    theta: spearmanRho(th, thTrue),
    slopes: pearson(a, aTrue),
    sharpness: spearmanRho(sh, shTrue),
  };
}

/** The real commands to run next, with a comment each. */
function nextSteps(out: string | undefined): string[] {
  const steps: [string, string][] = [
    out === undefined
      ? ['llm-nrm demo --out demo/', 'keep the files: demo/lm-eval/, demo/bundle.json, demo/truth.json']
      : [`llm-nrm convert ${join(out, 'lm-eval')} -o responses.jsonl.gz`, "this demo's lm-eval outputs as one tidy file"],
    ['llm-nrm convert results/ -o responses.jsonl.gz', 'lm-eval-harness, HELM, Inspect, OpenAI evals -> one tidy file'],
    ['llm-nrm fit responses.jsonl.gz -o bundle.json', 'calibrate: leaderboard with theta ± SE'],
    ['llm-nrm score bundle.json new-model.jsonl', 'place a new model on that leaderboard'],
    ['llm-nrm evaluate responses.jsonl.gz --cv 5', 'held-out prediction: LLM-NRM vs NRM vs 1PL-4PL'],
    ['llm-nrm <command> --help', 'every option, with examples'],
  ];
  const w = Math.max(...steps.map((s) => s[0].length));
  return steps.map(([c, why]) => `  ${c.padEnd(w)}  # ${why}`);
}

function report_(
  bundle: CalibrationBundle,
  board: ReturnType<typeof ranked>,
  trueTheta: Map<string, number>,
  rec: Recovery,
  argv: DemoArgs,
  seconds: number,
  site: string | null,
): string {
  const rows = (ls: typeof board) =>
    ls.map((l) => [l.rank ?? '-', l.id, l.theta, l.se === null ? '-' : `±${l.se.toFixed(4)}`, l.sharpness, l.accuracy ?? '-', trueTheta.get(l.id) ?? NaN]);
  const shown = board.length > TOP + BOTTOM ? [...rows(board.slice(0, TOP)), ['...', '', '', '', '', '', ''], ...rows(board.slice(-BOTTOM))] : rows(board);
  const which = board.length > TOP + BOTTOM ? `top ${TOP} and bottom ${BOTTOM} of ${board.length} LLMs` : `all ${board.length} LLMs`;
  const f = (v: number) => v.toFixed(3);
  const out = [
    `LLM-NRM leaderboard (${which}, ${bundle.items.length} items; "true theta" is the simulated ability)`,
    formatTable(['rank', 'model', 'theta', 'se', 'sharpness', 'accuracy', 'true theta'], shown).trimEnd(),
    '',
    'Recovery of the simulated truth',
    `  theta       Spearman ${f(rec.theta)}   (fitted vs true ability)`,
    `  a_ik        Pearson  ${f(rec.slopes)}   (option slopes, centred per item)`,
    `  sharpness   Spearman ${f(rec.sharpness)}`,
    '',
    'Fit',
    formatDiagnostics(bundle.fit).trimEnd(),
    '',
    ...(site !== null
      ? [
          'Leaderboard site of this fleet (theta with intervals, option curves, scoring in the browser):',
          `  npx llm-nrm leaderboard ${site} --serve   # then open http://127.0.0.1:4173/`,
          '',
        ]
      : []),
    `Done in ${seconds.toFixed(1)} s. Next steps, on your own harness outputs:`,
    ...nextSteps(argv.out),
  ];
  return out.join('\n') + '\n';
}
