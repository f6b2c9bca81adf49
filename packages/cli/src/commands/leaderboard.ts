import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { LlmNrmError } from '@llm-nrm/core';
import { checkFolderOutput, readBundle, readTinyBankFile, readTinyPackage, tinyScoringBundle } from '@llm-nrm/adapters';
import { buildSite, responsesBankBuilder, serveSite, type BuildSiteResult, type SiteInput } from '@llm-nrm/site';
import { info, printJson, printText } from '../output.js';
import { calibrationJson, unconvergedLine } from '../bundleConvergence.js';
import { readResponsesInto, responsesInputOptions, type ResponsesInputArgs } from '../responsesInput.js';

interface LeaderboardArgs extends ResponsesInputArgs {
  bundle: string;
  responses?: string;
  tiny?: string;
  output?: string;
  title?: string;
  serve: boolean;
  port: number;
  'skip-invalid': boolean;
  json: boolean;
  quiet: boolean;
}

/** Read the inputs of a site build: the bundle, the calibrated LLMs' responses, a published tiny folder. */
export async function siteInput(
  bundlePath: string,
  options: { responses?: string; tiny?: string; title?: string; skipInvalid?: boolean; input?: Partial<ResponsesInputArgs>; say?: (m: string) => void },
): Promise<SiteInput> {
  const say = options.say ?? (() => {});
  const bundle = await readBundle(bundlePath);
  const input: SiteInput = { bundle, onProgress: say };
  if (options.title !== undefined) input.title = options.title;
  if (options.responses !== undefined) {
    // The reader path `fit` takes (tidy files or harness outputs, detected as `convert` does), so the
    // site accepts the responses the bundle was fitted from.
    // Straight into the bank, records not kept.
    let n = 0;
    const { result, summary } = await readResponsesInto(
      options.responses,
      {
        'item-versions': 'split',
        replicates: 'latest',
        ...options.input,
        'skip-invalid': options.skipInvalid ?? options.input?.['skip-invalid'] ?? false,
        quiet: true,
      },
      bundle.items,
      () => {
        const builder = responsesBankBuilder(bundle);
        n = 0;
        return { add: (r, source) => (n++, builder.add(r, source)), finish: () => builder.finish() };
      },
    );
    const { bank, skipped } = result;
    input.bank = bank;
    say(
      `read ${n} responses from ${options.responses}: ${bank.models.length} calibrated LLMs${skipped > 0 ? `, ${skipped} responses of other LLMs or items left out` : ''}${summary.skipped.length > 0 ? `, ${summary.skipped.length} invalid records skipped` : ''}`,
    );
  }
  if (options.tiny !== undefined) {
    const file = join(options.tiny, 'bank.json');
    if (!existsSync(file)) throw new LlmNrmError('IO', `${options.tiny} is not a published folder: no bank.json (write one with llm-nrm publish)`, { file });
    // A whole package (bank.json with its items.jsonl) is read and checked as `llm-nrm score` reads it, and its
    // scoring goes to the site (its score page scores the package's runs as score does); a bare bank.json gives its items only.
    const whole = existsSync(join(options.tiny, 'items.jsonl')) ? await readTinyPackage(options.tiny) : null;
    const tiny = whole ? whole.bank.bundle : (await readTinyBankFile(file)).bundle;
    const ids = new Set(bundle.items.map((it) => it.id));
    const missing = tiny.items.filter((it) => !ids.has(it.id));
    if (missing.length > 0) {
      throw new LlmNrmError(
        'UNKNOWN_ITEM',
        `${file}: ${missing.length} of its ${tiny.items.length} items are not in ${bundlePath} (first ${JSON.stringify(missing[0]!.id)}): publish from this bundle`,
        { file },
      );
    }
    input.tiny = {
      bundle: tiny,
      source: options.tiny,
      ...(whole?.bank.adaptive !== undefined ? { adaptive: true } : {}),
      ...(whole
        ? {
            scoring: {
              task: whole.bank.task,
              bankSha256: whole.bankSha256,
              scoring: whole.bank.scoring,
              accuracy: whole.bank.accuracy,
              bundle: tinyScoringBundle(whole),
            },
          }
        : {}),
    };
    say(`tiny subset: ${tiny.items.length} items from ${file}`);
  }
  return input;
}

export const leaderboardCommand: CommandModule<object, LeaderboardArgs> = {
  command: 'leaderboard <bundle>',
  describe: 'Build the leaderboard site (a static folder: theta with intervals, option curves, information, in-browser scoring) from a calibration bundle',
  builder: (y: Argv) =>
    responsesInputOptions(y, 'Skip (and count) invalid records of --responses instead of stopping')
      .positional('bundle', {
        describe: 'Calibration bundle written by `llm-nrm fit` (or, with --serve, a site folder built before)',
        type: 'string',
        demandOption: true,
      })
      .option('responses', {
        describe: 'Tidy responses of the calibrated LLMs (what `fit` read): adds preferred options, bias intervals, accuracy per benchmark',
        type: 'string',
        requiresArg: true,
      })
      .option('tiny', {
        describe: "A folder written by `llm-nrm publish` (bank.json): its test information beside the full bank's",
        type: 'string',
        requiresArg: true,
      })
      .option('output', {
        alias: 'o',
        describe: 'Folder to write the site into: absent, empty, or a site llm-nrm built (replaced atomically); required unless <bundle> is a built site',
        type: 'string',
        requiresArg: true,
      })
      .option('title', { describe: 'Title in the site header', type: 'string', requiresArg: true })
      .option('serve', { describe: 'Serve the site on 127.0.0.1 for a preview after building it (Ctrl-C stops)', type: 'boolean', default: false })
      .option('port', { describe: 'Port for --serve (0 = any free port)', type: 'number', default: 4173 })
      .option('json', { describe: 'Print the build summary as JSON', type: 'boolean', default: false })
      .option('quiet', { alias: 'q', describe: 'No progress or status on stderr', type: 'boolean', default: false })
      .example('$0 leaderboard bundle.json -o site/', 'the site from the bundle alone')
      .example(
        '$0 leaderboard bundle.json --responses responses.jsonl.gz --tiny tiny/ -o site/ --serve',
        'with the responses and a published subset, then preview it',
      )
      .example('$0 leaderboard site/ --serve --port 8080', 'preview a site built before')
      .epilogue(
        'The site is static (open it from any web server; `--serve` is a preview). Item texts and model ids are shown as text only, ' +
          'under a Content-Security-Policy that allows nothing inline and no other origin. Its "Score your model" page scores a dropped ' +
          'file in the browser with the same code as `llm-nrm score`.',
      ) as unknown as Argv<LeaderboardArgs>,
  handler: async (argv) => {
    if (!(Number.isInteger(argv.port) && argv.port >= 0 && argv.port < 65536))
      throw new LlmNrmError('INVALID_OPTION', `invalid --port: ${argv.port} (0 to 65535)`);
    const say = (m: string) => info(argv.quiet, m);
    if (isBuiltSite(argv.bundle)) {
      if (!argv.serve) throw new LlmNrmError('INVALID_OPTION', `${argv.bundle} is a built site, not a bundle: pass --serve to preview it`);
      await serveUntilStopped(argv.bundle, argv.port);
      return;
    }
    if (argv.output === undefined) throw new LlmNrmError('INVALID_OPTION', 'missing -o/--output: the folder to write the site into');
    // The output policy is checked before the (long) read: the site never holds or replaces an input.
    const inputs = [argv.bundle, ...(argv.responses !== undefined ? [argv.responses] : []), ...(argv.tiny !== undefined ? [argv.tiny] : [])];
    await checkFolderOutput(argv.output, { command: 'leaderboard', inputs, replace: true });
    const t0 = performance.now();
    const input = await siteInput(argv.bundle, {
      ...(argv.responses !== undefined ? { responses: argv.responses } : {}),
      ...(argv.tiny !== undefined ? { tiny: argv.tiny } : {}),
      ...(argv.title !== undefined ? { title: argv.title } : {}),
      skipInvalid: argv['skip-invalid'],
      input: { 'item-versions': argv['item-versions'], replicates: argv.replicates },
      say,
    });
    const res: BuildSiteResult = await buildSite(input, argv.output, { inputs });
    const seconds = (performance.now() - t0) / 1000;
    // A bundle from an unconverged fit is said first (stdout's first line, JSON's first key; the site shows it above its table).
    const unsettled = unconvergedLine(input.bundle, argv.bundle);
    const summary = {
      calibration: calibrationJson(input.bundle),
      output: res.dir,
      files: res.files,
      bytes: res.bytes,
      seconds,
      llms: input.bundle.llms.length,
      items: input.bundle.items.length,
      responses: input.bank !== undefined,
      tiny: input.tiny?.bundle.items.length ?? null,
    };
    if (argv.json) {
      if (unsettled !== null) say(unsettled.trimEnd());
      printJson(summary);
    } else {
      printText(
        `${unsettled ?? ''}wrote the leaderboard site for ${summary.llms} LLMs x ${summary.items} items to ${res.dir} ` +
          `(${res.files} data files, ${(res.bytes / 1e6).toFixed(1)} MB) in ${seconds.toFixed(1)} s\n`,
      );
    }
    if (!argv.serve) {
      // Serve the folder just built: rebuilding from the bundle would drop what --responses, --tiny and --title added.
      say(`preview it: llm-nrm leaderboard ${shellWord(argv.output)} --serve  (or serve the folder with any static web server)`);
      return;
    }
    await serveUntilStopped(res.dir, argv.port);
  },
};

/** A path as one shell word (quoted when it holds anything but safe characters), for hints to copy. */
function shellWord(p: string): string {
  return /^[\w@%+=:,./-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`;
}

/** A folder holding a built site (index.html and data/manifest.json). */
function isBuiltSite(path: string): boolean {
  try {
    return statSync(path).isDirectory() && existsSync(join(path, 'index.html')) && existsSync(join(path, 'data', 'manifest.json'));
  } catch {
    return false;
  }
}

/** Serve a site on 127.0.0.1 until SIGINT/SIGTERM. */
async function serveUntilStopped(dir: string, port: number): Promise<void> {
  let served;
  try {
    served = await serveSite(dir, { port });
  } catch (e) {
    throw new LlmNrmError('IO', `cannot serve on 127.0.0.1:${port}: ${(e as Error).message} (try --port 0)`, { cause: e });
  }
  printText(`serving ${dir} at ${served.url} (Ctrl-C stops)\n`);
  await new Promise<void>((done) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      void served.close().then(done);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
