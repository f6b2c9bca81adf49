import type { Argv, CommandModule } from 'yargs';
import { LlmNrmError, bundleItems, bundleParameters, createBankBuilder, type ItemSpec, type RecordSource, type ResponseRecord } from '@llm-nrm/core';
import { assertOutputIsNotInput, readBundle, readsOnce, writeFileOutput } from '@llm-nrm/adapters';
import { keyAudit, type KeyAudit } from '@llm-nrm/analysis';
import { readResponsesInto, responsesInputOptions, type ResponsesInputArgs } from '../responsesInput.js';
import { bundleBank } from '../bundle-bank.js';
import { formatTable, info, jsonText, printJson, printText } from '../output.js';
import { calibrationJson, unconvergedLine } from '../bundleConvergence.js';

interface AuditArgs extends ResponsesInputArgs {
  bundle: string;
  responses?: string;
  top: number;
  'high-theta': number;
  output?: string;
  json: boolean;
  quiet: boolean;
}

/** The audit as text: the key table (first `top` rows), dead distractors and position-driven items. */
export function formatAudit(audit: KeyAudit, top: number): string {
  let text = `Keys that disagree with the option the fleet's curves favour at theta ${audit.highTheta}: ${audit.keys.length}`;
  text += audit.keyFree > 0 ? ` (${audit.keyFree} items have no key to check)\n` : '\n';
  if (audit.keys.length > 0)
    text += formatTable(
      ['rank', 'item', 'key', 'implied', 'margin', 'confidence'],
      audit.keys.slice(0, top).map((k, r) => [r + 1, k.id, k.key, k.implied, k.margin, k.confidence]),
    );
  const dead = new Set(audit.deadDistractors.map((d) => d.id)).size;
  text += `Dead distractors (below 0.01 at every fleet ability): ${audit.deadDistractors.length} options on ${dead} items\n`;
  if (audit.deadDistractors.length > 0)
    text += formatTable(
      ['item', 'option', 'max probability'],
      audit.deadDistractors.slice(0, top).map((d) => [d.id, d.option, d.maxProbability]),
    );
  if (audit.positionDriven === null) text += 'Position-driven items: not checked (no item was shown in more than one option order)\n';
  else {
    text += `Position-driven items (position explains more mass than content): ${audit.positionDriven.length}\n`;
    if (audit.positionDriven.length > 0)
      text += formatTable(
        ['item', 'orders', 'content share', 'position share', 'position'],
        audit.positionDriven.slice(0, top).map((p) => [p.id, p.presentations, p.contentShare, p.positionShare, p.position]),
      );
  }
  return text;
}

export const auditCommand: CommandModule<object, AuditArgs> = {
  command: 'audit <bundle> [responses]',
  describe: 'Audit a calibrated bank: keys the fleet disagrees with (with a confidence), dead distractors, items answered by position',
  builder: (y: Argv) =>
    responsesInputOptions(y)
      .positional('bundle', { describe: 'Calibration bundle (JSON, from `llm-nrm fit`; an option-level model)', type: 'string', demandOption: true })
      .positional('responses', {
        describe:
          'Responses (as `fit` reads them): their keys are the ones checked (e.g. after `fit --ignore-key`), and items shown in several option orders are checked for position-driven answers',
        type: 'string',
      })
      .option('top', { describe: 'Rows of each table to print (JSON holds all)', type: 'number', default: 50 })
      .option('high-theta', {
        describe:
          'Ability at which the implied key is read (the option most likely there); with 5% of keys swapped on simulated 100 x 2,000 fleets, 0.92 of the first 50 flags are swapped keys at 4, 0.86 at 2 (bench/keyAudit.mjs)',
        type: 'number',
        default: 4,
      })
      .option('output', { alias: 'o', describe: 'Also write the audit as JSON to this file (never over an input)', type: 'string', requiresArg: true })
      .option('json', { describe: 'Print the audit as JSON', type: 'boolean', default: false })
      .option('quiet', { alias: 'q', describe: 'No status on stderr', type: 'boolean', default: false })
      .example('$0 audit bundle.json', "keys the bundle's own option curves disagree with, most confident first")
      .example(
        '$0 fit r.jsonl --ignore-key -o free.json && $0 audit free.json r.jsonl',
        "a key-free fit, then r.jsonl's keys checked against it (the surer ranking)",
      )
      .example('$0 audit bundle.json --json -o audit.json', 'every row, as JSON')
      .epilogue(
        "For each keyed item the implied key is the option its curves favour at --high-theta (softmax of a_k theta + c_k, paper.md's NRM); " +
          'an item whose key is another option is listed with margin = logit(implied) - logit(key) there and confidence = sigmoid(margin). ' +
          'A wrong key shows as a key that falls with ability while another option rises; a key the fit itself used still leaves the curves ' +
          "free (they are the options' own), so fitting with the doubted keys, or without any (fit --ignore-key), both work; " +
          "the key-free fit ranks better, since a wrong key also moves the fallback gate's difficulty in the fit: on simulated " +
          '100 x 2,000 fleets with 5% of keys swapped, 0.98 of the first 50 flags are swapped keys after fit --ignore-key, 0.92 after a fit ' +
          'with the swapped keys (2%: 0.69 and 0.63 of at most 0.80) (bench/keyAudit.mjs, analysis BENCHMARKS.md).',
      ) as unknown as Argv<AuditArgs>,
  handler: async (argv) => {
    const inputs = [argv.bundle, ...(argv.responses !== undefined ? [argv.responses] : [])];
    if (argv.output !== undefined) await assertOutputIsNotInput(argv.output, inputs);
    if (!Number.isInteger(argv.top) || argv.top < 0) throw new LlmNrmError('INVALID_OPTION', `invalid --top: ${argv.top} (a whole number)`);
    if (!Number.isFinite(argv['high-theta'])) throw new LlmNrmError('INVALID_OPTION', `invalid --high-theta: ${argv['high-theta']}`);
    const bundle = await readBundle(argv.bundle);
    let { bank, layout, x } = bundleBank(bundle);
    if (argv.responses !== undefined) {
      // Two reads, records not kept (a leaderboard's millions would not fit): the responses' keys,
      // then the bank under them; standard input or a pipe, which cannot be read twice, is kept whole.
      const once = await readsOnce(argv.responses);
      const first = await readResponsesInto(argv.responses, argv, bundle.items, () => {
        const given = new Map<string, number>();
        const kept: [ResponseRecord, RecordSource][] | null = once ? [] : null;
        return {
          add: (r, source) => {
            if (r.key !== undefined && !given.has(r.item)) given.set(r.item, r.key);
            kept?.push([r, source]);
          },
          finish: () => ({ given, kept }),
        };
      });
      const { given, kept } = first.result;
      // The responses' keys are the ones audited: they replace the bundle's (a key-free bundle's anchors included).
      const items: ItemSpec[] = bundleItems(bundle).map((it) => {
        const key = given.get(it.id);
        if (key === undefined) return it;
        const { keyFree: _free, ...rest } = it;
        return { ...rest, key };
      });
      const start = () => createBankBuilder({ items, skipInvalid: argv['skip-invalid'], checked: true });
      if (kept !== null) {
        const builder = start();
        for (const [r, source] of kept) builder.add(r, source);
        bank = builder.finish().bank;
      } else
        bank = (await readResponsesInto(argv.responses, argv, bundle.items, start, { label: 'read again (into the bank, under these keys)', again: true }))
          .result.bank;
      ({ layout, x } = bundleParameters(bundle, bank));
    }
    const audit = keyAudit(bank, layout, x, { highTheta: argv['high-theta'] });
    const out = { calibration: calibrationJson(bundle), bundle: argv.bundle, ...(argv.responses !== undefined ? { responses: argv.responses } : {}), ...audit };
    if (argv.output !== undefined) {
      await writeFileOutput(argv.output, jsonText(out), { inputs });
      info(argv.quiet, `wrote the audit to ${argv.output}`);
    }
    const unsettled = unconvergedLine(bundle, argv.bundle);
    if (argv.json) {
      if (unsettled !== null) info(false, unsettled.trimEnd());
      printJson(out);
    } else printText(`${unsettled ?? ''}${formatAudit(audit, argv.top)}`);
  },
};
