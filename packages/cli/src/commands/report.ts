import { readFile } from 'node:fs/promises';
import type { Argv, CommandModule } from 'yargs';
import { LlmNrmError, familyOfLayout } from '@llm-nrm/core';
import {
  informationSummary,
  informativeDistractors,
  itemInformation,
  itemQuality,
  keyAudit,
  parseRanking,
  rankAgreement,
  type InformationSummaryRow,
} from '@llm-nrm/analysis';
import { readBundle } from '@llm-nrm/adapters';
import { bundleBank } from '../bundle-bank.js';
import { formatTable, info, printJson, printText } from '../output.js';
import { calibrationJson, unconvergedLine } from '../bundleConvergence.js';
import { formatAudit } from './audit.js';

interface ReportArgs {
  bundle: string;
  external?: string;
  flagged: number;
  json: boolean;
}

const pct = (v: number) => (Number.isNaN(v) ? 'n/a' : `${v >= 0 ? '+' : ''}${(100 * v).toFixed(1)}%`);

function infoTable(title: string, rows: InformationSummaryRow[]): string {
  return `${title}\n${formatTable(
    ['benchmark', 'items', 'information', 'binary', 'distractors', 'over binary', 'median item'],
    rows.map((r) => [r.benchmark, r.items, r.total, r.binary, r.wrong, pct(r.gain), pct(r.medianItemGain)]),
  )}`;
}

export const reportCommand: CommandModule<object, ReportArgs> = {
  command: 'report <bundle>',
  describe: 'Summarise a calibrated bank: abilities, information over binary scoring, item-quality flags, agreement with an external ranking',
  builder: (y: Argv) =>
    y
      .positional('bundle', { describe: 'Calibration bundle (JSON, from `llm-nrm fit`)', type: 'string', demandOption: true })
      .option('external', {
        describe: 'External ranking CSV `model,score` (e.g. Arena Elo): Spearman/Kendall with bootstrap SD',
        type: 'string',
        requiresArg: true,
      })
      .option('flagged', { describe: 'Flagged items to list', type: 'number', default: 20 })
      .option('json', { describe: 'Print results as JSON', type: 'boolean', default: false })
      .example('$0 report bundle.json --external arena.csv', 'with agreement against Arena Elo'),
  handler: async (argv) => {
    const bundle = await readBundle(argv.bundle);
    const { bank, layout, x } = bundleBank(bundle);
    const optionLevel = familyOfLayout(layout).kind === 'option-level';
    // A key-free bundle's keys are only its anchors (consensusKeys): every keyed section (the
    // information split into binary and distractor parts, the item flags read against the key,
    // distractors) would report the anchor as the answer, so they are left out and said to be.
    const keyFree = bundle.items.filter((it) => it.keyFree === true).length;
    const keyed = keyFree === 0;
    const prior = keyed ? informationSummary(bank, itemInformation(bank, layout, x)) : null;
    const fitted = keyed ? informationSummary(bank, itemInformation(bank, layout, x, { abilities: 'fitted' })) : null;
    const quality = keyed ? itemQuality(bank, layout, x) : [];
    const flagged = quality.filter((q) => q.flags.length > 0);
    const flagCounts: Record<string, number> = {};
    for (const q of flagged) for (const f of q.flags) flagCounts[f] = (flagCounts[f] ?? 0) + 1;
    const distractors = keyed ? informativeDistractors(bank, layout, x) : [];
    const withInformative = distractors.filter((d) => d.length > 0).length;
    // The key audit (analysis keyAudit, as `llm-nrm audit` prints it): option-level bundles only.
    const audit = optionLevel ? keyAudit(bank, layout, x) : null;
    const llms = [...bundle.llms].sort((a, b) => b.theta - a.theta);
    // A bundle from an unconverged fit is said first (stdout's first line, JSON's first key).
    const unsettled = unconvergedLine(bundle, argv.bundle);
    const out: Record<string, unknown> = {
      calibration: calibrationJson(bundle),
      model: bundle.model,
      llms: llms.map((l) => ({ id: l.id, theta: l.theta, se: l.se, sharpness: l.sharpness, accuracy: l.accuracy ?? null })),
      keyFree,
      information: keyed ? { prior, fitted } : null,
      flags: keyed ? flagCounts : null,
      flagged: keyed ? flagged : null,
      itemsWithInformativeDistractor: keyed ? withInformative : null,
      audit,
    };
    let text = `${unsettled ?? ''}${bundle.model} bank: ${bundle.llms.length} LLMs, ${bundle.items.length} items\n\n`;
    text += formatTable(
      ['rank', 'llm', 'theta', 'se', 'sharpness', 'accuracy'],
      llms.map((l, r) => [r + 1, l.id, l.theta, l.se ?? NaN, l.sharpness, l.accuracy ?? NaN]),
    );
    if (optionLevel && !keyed)
      text +=
        `\nNo key for ${keyFree} of ${bundle.items.length} items (a key-free fit): the information split over binary scoring, ` +
        'the item-quality flags and the informative distractors need the key and are left out. `llm-nrm audit <bundle> <responses>` ' +
        'checks the keys a responses file gives.\n';
    if (optionLevel && prior !== null && fitted !== null) {
      text += '\n' + infoTable('Item information over binary scoring, averaged over N(0,1)', prior);
      text += '\n' + infoTable('... and over the fitted abilities', fitted);
      text += `\nItems with an informative distractor: ${withInformative} / ${bank.items.length}\n`;
      text += `Item-quality flags: ${
        Object.entries(flagCounts)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ') || 'none'
      }\n`;
      if (flagged.length > 0) {
        text += formatTable(
          ['item', 'flags', 'modal at theta 2', 'key slope', 'slope spread'],
          flagged.slice(0, argv.flagged).map((q) => [q.id, q.flags.join(' '), q.topAtHigh, q.keySlope, q.spread]),
        );
      }
    }
    if (audit !== null) text += `\nKey audit (as \`llm-nrm audit\` prints it)\n${formatAudit(audit, argv.flagged)}`;
    if (argv.external !== undefined) {
      let csv: string;
      try {
        csv = await readFile(argv.external, 'utf8');
      } catch (e) {
        throw new LlmNrmError('IO', `cannot read ranking: ${(e as Error).message}`, { cause: e, file: argv.external });
      }
      const ext = parseRanking(csv, argv.external);
      const ids = bundle.llms.map((l) => l.id);
      const scores: Record<string, number[]> = { [`${bundle.model} theta`]: bundle.llms.map((l) => l.theta) };
      if (bundle.llms.every((l) => l.accuracy !== undefined)) scores['raw accuracy'] = bundle.llms.map((l) => l.accuracy!);
      const agree = rankAgreement(ids, scores, ext);
      out['external'] = agree;
      text += `\nAgreement with ${argv.external} over ${agree.matched.length} matched LLMs (bootstrap SD over LLMs, 1000 resamples)\n`;
      text += formatTable(
        ['score', 'spearman', 'sd', 'kendall', 'sd'],
        agree.rows.map((r) => [r.score, r.spearman, r.spearmanSd, r.kendall, r.kendallSd]),
      );
      if (agree.missingExternal.length > 0) text += `no external score for: ${agree.missingExternal.join(', ')}\n`;
      // Rows whose model is no calibrated LLM (a spelling of the id, another org prefix) are said,
      // never dropped silently: how many, and the first with its line.
      const known = new Set(ids);
      const unmatched = ext.models.map((m, t) => ({ model: m, line: ext.lines?.[t] })).filter((r) => !known.has(r.model));
      out['unmatchedExternal'] = unmatched;
      if (unmatched.length > 0) {
        const first = unmatched[0]!;
        const line =
          `${unmatched.length} of ${ext.models.length} rows of ${argv.external} match no calibrated LLM and are left out; ` +
          `the first: ${JSON.stringify(first.model)}${first.line !== undefined ? ` (line ${first.line})` : ''}`;
        text += `${line}\n`;
        // With --json the text is not printed: the warning goes to stderr.
        info(!argv.json, `warning: ${line}`);
      }
    }
    if (argv.json) {
      if (unsettled !== null) info(false, unsettled.trimEnd());
      printJson(out);
    } else printText(text);
  },
};
