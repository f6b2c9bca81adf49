import type { Argv, CommandModule } from 'yargs';
import { LlmNrmError, bundleItems, bundleParameters, createBankBuilder, fit, withObserved, type RecordSource } from '@llm-nrm/core';
import { assertOutputIsNotInput, readBundle, writeFileOutput } from '@llm-nrm/adapters';
import { readResponsesInto, responsesInputOptions, type ResponsesInputArgs } from '../responsesInput.js';
import { kendallTau, selectForRange, selectItems, spearmanRho, unflaggedItems } from '@llm-nrm/analysis';
import { bundleBank } from '../bundle-bank.js';
import { engineOption, loadEngine } from '../engines.js';
import { fewNames, formatTable, info, printJson, printText } from '../output.js';

interface SelectArgs extends ResponsesInputArgs {
  bundle: string;
  items: number;
  abilities: 'fitted' | 'prior';
  information: 'nrm' | 'llm';
  method: 'range' | 'information';
  'per-benchmark': boolean;
  'include-flagged': boolean;
  responses?: string;
  engine: string;
  output?: string;
  json: boolean;
  quiet: boolean;
}

export const selectCommand: CommandModule<object, SelectArgs> = {
  command: 'select <bundle>',
  describe: 'Select the most informative items of a calibrated bank (a tinybenchmark), optionally checking the ranking they give',
  builder: (y: Argv) =>
    responsesInputOptions(engineOption(y), 'Skip (and count) invalid records of --responses, and responses to items the bundle lacks, instead of stopping')
      .positional('bundle', { describe: 'Calibration bundle (JSON, from `llm-nrm fit`)', type: 'string', demandOption: true })
      .option('items', { alias: 'n', describe: 'Number of items to keep', type: 'number', default: 41 })
      .option('abilities', {
        describe: "Ability distribution the information is averaged over: the bundle's fitted LLMs, or the N(0,1) prior",
        choices: ['fitted', 'prior'] as const,
        default: 'fitted' as const,
      })
      .option('information', {
        describe: "Rank by the NRM component's information (paper.md) or by each fitted LLM's full LLM-NRM information (gate included)",
        choices: ['nrm', 'llm'] as const,
        default: 'nrm' as const,
      })
      .option('method', {
        describe:
          "range (default): greedily maximise the expected log test information over the bundle's LLM abilities, so the items cover the " +
          'whole range; information: the n items of highest average information (they pile up at one ability level and rank no better than random ones)',
        choices: ['range', 'information'] as const,
        default: 'range' as const,
      })
      .option('per-benchmark', { describe: "Keep each benchmark's share of the bank (range method)", type: 'boolean', default: false })
      .option('include-flagged', {
        describe: 'Also select items `report` flags as possible-wrong-key (left out by default: a mis-keyed item looks very informative)',
        type: 'boolean',
        default: false,
      })
      .option('responses', {
        describe:
          'Responses of LLMs to score from all items and from the selected ones only (Kendall tau of the two rankings), read as `fit` reads them; item ids the bundle split into versions (<id>#<hash>) are matched by content',
        type: 'string',
        requiresArg: true,
      })
      .option('output', { alias: 'o', describe: 'Write the selected item ids, one per line', type: 'string', requiresArg: true })
      .option('json', { describe: 'Print results as JSON', type: 'boolean', default: false })
      .option('quiet', { alias: 'q', describe: 'No status on stderr', type: 'boolean', default: false })
      .example('$0 select bundle.json --items 41 -o tiny.txt', '41 items that measure the whole ability range')
      .example('$0 select bundle.json --items 41 --method information', 'the 41 items of highest average information (the old ranking)')
      .example('$0 select bundle.json --items 41 --responses new-models.jsonl', 'and how well they rank new models'),
  handler: async (argv) => {
    // Refused before any work: the item list never replaces the bundle or the responses.
    const inputs = [argv.bundle, ...(argv.responses !== undefined ? [argv.responses] : [])];
    if (argv.output !== undefined) await assertOutputIsNotInput(argv.output, inputs);
    if (!Number.isInteger(argv.items) || argv.items < 1) throw new LlmNrmError('INVALID_OPTION', `invalid --items: ${argv.items}`);
    const bundle = await readBundle(argv.bundle);
    const { bank, layout, x } = bundleBank(bundle);
    // Items whose key `report` flags are left out unless asked for (selectForRange's rule), computed once for both methods.
    const flagged = argv['include-flagged'] ? { eligible: undefined, leftOut: [] } : unflaggedItems(bank, layout, x);
    if (flagged.leftOut.length > 0) {
      // The first 10 by name (a large bank flags thousands: --json lists every one).
      const named = fewNames(
        flagged.leftOut.map((l) => `${l.id} (${l.flags.join(', ')})`),
        '; ',
      );
      info(
        argv.quiet,
        `left out ${flagged.leftOut.length} flagged items (--include-flagged keeps them): ${named}${flagged.leftOut.length > 10 ? ' (--json lists them all)' : ''}`,
      );
    }
    const sel =
      argv.method === 'information'
        ? (() => {
            const all = selectItems(bank, layout, x, bank.items.length, { abilities: argv.abilities, information: argv.information });
            const keep = Array.from(all.items.keys())
              .filter((r) => flagged.eligible === undefined || flagged.eligible[all.items[r]!])
              .slice(0, argv.items);
            return {
              items: Int32Array.from(keep, (r) => all.items[r]!),
              ids: keep.map((r) => all.ids[r]!),
              information: Float64Array.from(keep, (r) => all.information[r]!),
            };
          })()
        : (() => {
            const r = selectForRange(bank, layout, x, argv.items, {
              perBenchmark: argv['per-benchmark'],
              includeFlagged: true,
              ...(flagged.eligible ? { eligible: flagged.eligible } : {}),
              ...(argv.abilities === 'prior' ? { abilities: Array.from({ length: 41 }, (_, t) => -3 + 0.15 * t) } : {}),
            });
            const items = r.forms[0]!;
            // Per item, its information averaged over the abilities (for the table).
            const info = Float64Array.from(items, (i) => {
              const one = selectForRange(bank, layout, x, 1, {
                abilities: r.abilities,
                includeFlagged: true,
                eligible: Uint8Array.from(bank.items, (_, k) => (k === i ? 1 : 0)),
              });
              return one.testInformation[0]!.reduce((s, v) => s + v, 0) / r.abilities.length;
            });
            return { items, ids: r.ids[0]!, information: info };
          })();
    const out: Record<string, unknown> = {
      items: sel.ids,
      leftOut: flagged.leftOut,
      information: Array.from(sel.information),
      benchmarks: Array.from(sel.items, (i) => bank.items[i]!.benchmark ?? null),
    };
    let text = formatTable(
      ['rank', 'item', 'benchmark', 'information'],
      Array.from(sel.items, (i, r) => [r + 1, bank.items[i]!.id, bank.items[i]!.benchmark ?? '', sel.information[r]!]),
    );
    if (argv.responses !== undefined) {
      const items = bundleItems(bundle);
      // Straight into the bank, records not kept; responses to items the bundle lacks are counted (the
      // first named), and refused unless --skip-invalid.
      const known = new Set(items.map((it) => it.id));
      const read = await readResponsesInto(argv.responses, argv, items, () => {
        const builder = createBankBuilder({ items, skipInvalid: argv['skip-invalid'], checked: true });
        let n = 0;
        let unknown = 0;
        let first: { item: string; source: RecordSource & { file: string } } | undefined;
        return {
          add: (r, source) => {
            n++;
            if (known.has(r.item)) builder.add(r, source);
            else if (unknown++ === 0) first = { item: r.item, source };
          },
          finish: () => ({ bank: builder.finish().bank, n, unknown, first }),
        };
      });
      const { bank: rb, n, unknown, first } = read.result;
      if (first !== undefined && !argv['skip-invalid']) {
        throw new LlmNrmError(
          'UNKNOWN_ITEM',
          `item not in the bundle ${argv.bundle}: ${JSON.stringify(first.item)} (${unknown} of ${n} responses; --skip-invalid leaves them out)`,
          { file: first.source.file, ...(first.source.line !== undefined ? { line: first.source.line } : {}) },
        );
      }
      if (unknown > 0) info(argv.quiet, `skipped ${unknown} responses to items not in the bundle`);
      const start = bundleParameters(bundle, rb);
      const opts = { model: bundle.model, parts: bundle.parts, init: start.x, fixItems: true, standardErrors: false, engine: await loadEngine(argv.engine) };
      info(argv.quiet, `scoring ${rb.models.length} LLMs from all ${rb.items.length} items and from ${sel.ids.length}`);
      const all = fit(rb, opts);
      const keep = new Uint8Array(rb.items.length);
      for (const i of sel.items) keep[i] = 1;
      const mask = rb.observed.slice();
      const nC = rb.colItem.length;
      for (let j = 0; j < rb.models.length; j++) for (let c = 0; c < nC; c++) if (!keep[rb.colItem[c]!]) mask[j * nC + c] = 0;
      const few = fit(withObserved(rb, mask), opts);
      const tAll = all.x.slice(all.layout.theta, all.layout.theta + rb.models.length);
      const tFew = few.x.slice(few.layout.theta, few.layout.theta + rb.models.length);
      const check = { llms: rb.models.length, kendall: kendallTau(tFew, tAll), spearman: spearmanRho(tFew, tAll) };
      out['check'] = { ...check, models: rb.models, thetaAll: Array.from(tAll), thetaSelected: Array.from(tFew) };
      text += `\n${sel.ids.length} items vs all ${rb.items.length} on ${check.llms} LLMs: Kendall ${check.kendall.toFixed(4)}, Spearman ${check.spearman.toFixed(4)}\n`;
    }
    if (argv.output !== undefined) {
      await writeFileOutput(argv.output, sel.ids.join('\n') + '\n', { inputs });
      info(argv.quiet, `wrote ${sel.ids.length} item ids to ${argv.output}`);
    }
    if (argv.json) printJson(out);
    else printText(text);
  },
};
