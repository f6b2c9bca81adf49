import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { LlmNrmError } from '@llm-nrm/core';
import { writeFolderOutput } from '../outputPolicy.js';
import { harnessExporter } from './exporters.js';
import { multipleInputItems, tinyItemsJsonl, type TinyBank, type TinyItem, type TinyPackage } from './tinyPackage.js';

export interface WriteTinyPackageOptions {
  /** Harnesses to export (default all: lm-eval, inspect, openai-evals). */
  harnesses?: string[];
  /** Replace a folder llm-nrm wrote before (default false: refuse); never one the output policy protects. */
  overwrite?: boolean;
  /** The inputs of the run (bundle, responses): a folder holding one is never written (output policy). */
  inputs?: readonly string[];
}

export interface WriteTinyPackageResult {
  dir: string;
  files: string[];
  bankSha256: string;
  itemsSha256: string;
}

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

/** The package (bank.json text and hashes) of a bank and its items; `bank.itemsSha256` is filled in. */
export function tinyPackage(bank: Omit<TinyBank, 'itemsSha256'>, items: TinyItem[]): TinyPackage {
  const itemsJsonl = tinyItemsJsonl(items);
  const full: TinyBank = { ...bank, itemsSha256: sha256(itemsJsonl) } as TinyBank;
  // Key order: the identifying fields first, the (long) bundle last.
  const { bundle, ...head } = full;
  const bankJson = JSON.stringify({ ...head, bundle }, null, 2) + '\n';
  return { bank: full, bankJson, bankSha256: sha256(bankJson), items, itemsJsonl };
}

function readme(pkg: TinyPackage, harnesses: string[]): string {
  const b = pkg.bank;
  const benches = Object.keys(b.accuracy.benchmarks);
  const placeholders = b.placeholderPrompts ?? 0;
  const lines = [
    b.adaptive !== undefined
      ? `# ${b.task}: an adaptive test over a pool of ${pkg.items.length} items`
      : `# ${b.task}: a tiny benchmark of ${pkg.items.length} items`,
    '',
    // Said before anything else: such a package measures little, whatever its numbers look like.
    ...(placeholders > 0
      ? [
          `**Placeholder prompts: ${placeholders} of ${pkg.items.length} items have no question text; their prompts are placeholders`,
          '(`Question <item id>` and/or the letters as options, `--allow-placeholder-prompts`), not questions. A model cannot answer',
          'them from the text: scores on them do not measure what the calibration measured.**',
          '',
        ]
      : []),
    `Made by \`llm-nrm publish\` (llm-nrm ${b.tool.version}) from a calibration of ${b.bundle.llms.length} LLMs with the ${b.bundle.model} model` +
      (benches.length > 0 ? ` over ${benches.length} benchmark(s): ${benches.join(', ')}.` : '.'),
    b.adaptive !== undefined
      ? 'The pool is every calibrated item with a prompt; an adaptive run asks each model only the items most informative at its own estimate.'
      : `The items were chosen to measure the whole ability range of those LLMs and a little below the weakest of them, so that a weaker model is told apart from random answers${b.form ? ` (form ${b.form.name} of ${b.form.of} parallel forms with no shared item)` : ''}.`,
    'A run in your harness places a new model on the same scale as the calibrated LLMs, with a standard error, and predicts its',
    'accuracy on the full bank.',
    '',
  ];
  if (b.renderedPrompts - placeholders > 0) {
    lines.push(
      `**${b.renderedPrompts - placeholders} of ${pkg.items.length} prompts are rendered from question and options (\`--render-prompt\`), not the prompts the`,
      'calibrated LLMs were scored on.** Scores from them rest on the assumption that the rendering does not change how a model answers.',
      '',
    );
  }
  if (b.leftOut !== undefined && b.leftOut.length > 0) {
    lines.push(
      `Left out of selection: ${b.leftOut.length} item(s) of the bank that \`llm-nrm report\` flags as a possibly wrong key (another`,
      'option, not the key, is the most likely answer at high ability); such an item looks very informative because it separates',
      'LLMs by agreement with a doubtful key (`llm-nrm publish --include-flagged` keeps them):',
      '',
      ...b.leftOut.map((l) => `- \`${l.id}\`: ${l.flags.join(', ')}`),
      '',
    );
  }
  if (multipleInputItems(pkg.items)) {
    lines.push(
      "These items are **multiple-input** (lm-eval's winogrande form): each option has its own context (the sentence with the",
      'blank filled by that option) and the scored continuation is the same for every option. The lm-eval task asks exactly',
      'those requests, as the calibration did.',
      '',
    );
  }
  lines.push('## Run it', '', 'The commands run from this folder (`cd` into it); every path below is relative to it.', '');
  for (const h of harnesses) lines.push(harnessExporter(h).readme(pkg));
  lines.push(
    '## What the numbers mean',
    '',
    "- **theta** (`nrm_theta`): ability on the calibration's scale (the calibrated LLMs have mean 0 and SD 1), from every option's",
    "  probability, item parameters held at the calibration's values. Sharpness is fitted with theta (log-normal prior centred on",
    "  the calibrated fleet), and so are position bias and fallback, each under the calibrated fleet's own spread as its prior:",
    '  one presentation of a few items barely tells them from theta, so a short run keeps them near the fleet and a long one learns',
    "  the model's own (a weak model's habit of guessing one letter, say).",
    '- **SE** (`nrm_theta_se`): its standard error; with fewer items answered it grows.',
    '- **predicted accuracy** (`nrm_pred_acc`, 90% interval `nrm_pred_acc_low` / `nrm_pred_acc_high`): the full-bank accuracy',
    '  (argmax = key) predicted from the run (bank.json `accuracy.*.run`): its accuracy on these items moved onto the full bank (a',
    '  logit shift of the above-chance share, learnt from the calibrated LLMs scored as runs of this package), blended with the',
    "  calibrated LLMs' accuracy at its theta where the run lies within their range; it rises with the run's own accuracy, stays in",
    "  what the run's answers allow, and a chance-level run is predicted near chance. `llm-nrm score` also gives it per benchmark.",
    '- **rank interval** (`llm-nrm score`): the ranks among the calibrated LLMs that theta ± 1.645 SE spans.',
    '',
    '## Files',
    '',
    "- `bank.json`: the calibration restricted to these items (all calibrated LLMs' thetas kept), the sha256 of `items.jsonl`, the",
    '  scoring recipe and the accuracy curves. Its sha256 is in every harness task file.',
    multipleInputItems(pkg.items)
      ? '- `items.jsonl`: item_id, benchmark, prompt (empty), continuations, contexts, gold, options, source, content_sha256 (sha256 of [contexts, continuations]).'
      : '- `items.jsonl`: item_id, benchmark, prompt, continuations, gold, options, source, content_sha256 (sha256 of [prompt, continuations]).',
    '',
    '## Provenance',
    '',
    `- created ${b.provenance.createdAt}${b.provenance.command ? ` by \`${b.provenance.command}\`` : ''}`,
    `- bank.json sha256 ${pkg.bankSha256}; items.jsonl sha256 ${b.itemsSha256}`,
  );
  if (b.provenance.bundle) lines.push(`- calibration bundle ${b.provenance.bundle.path} (sha256 ${b.provenance.bundle.sha256})`);
  if (b.provenance.responses) lines.push(`- responses ${b.provenance.responses.path} (sha256 ${b.provenance.responses.sha256})`);
  lines.push('');
  return lines.join('\n');
}

/**
 * Write a tiny package folder (README.md, bank.json, items.jsonl and each harness's files) into a
 * temporary folder beside `dir`, then rename it into place: no partial package is ever visible.
 */
export async function writeTinyPackage(dir: string, pkg: TinyPackage, options: WriteTinyPackageOptions = {}): Promise<WriteTinyPackageResult> {
  const harnesses = options.harnesses ?? ['lm-eval', 'inspect', 'openai-evals'];
  const exporters = harnesses.map(harnessExporter);
  const mixed = pkg.items.some((it) => it.contexts !== undefined) && !multipleInputItems(pkg.items);
  if (mixed) {
    const n = pkg.items.filter((it) => it.contexts !== undefined).length;
    throw new LlmNrmError(
      'INVALID_OPTION',
      `${n} of ${pkg.items.length} items are multiple-input (per-option contexts, lm-eval's winogrande form) and the others are not: ` +
        'one lm-eval task holds one form; publish them as separate packages (--item-list), or render every prompt (--render-prompt)',
    );
  }
  for (const e of exporters) {
    const why = e.unsupported?.(pkg);
    if (why) throw new LlmNrmError('INVALID_OPTION', `--harness ${e.name}: ${why}`);
  }
  const files = [
    { path: 'README.md', content: readme(pkg, harnesses) },
    { path: 'bank.json', content: pkg.bankJson },
    { path: 'items.jsonl', content: pkg.itemsJsonl },
    ...exporters.flatMap((e) => e.files(pkg)),
  ];
  // The output policy decides whether `dir` may be (re)written and swaps it in atomically.
  await writeFolderOutput(
    dir,
    async (tmp) => {
      for (const f of files) {
        const p = join(tmp, f.path);
        await mkdir(dirname(p), { recursive: true });
        await writeFile(p, f.content);
      }
      return files.map((f) => f.path);
    },
    { command: 'publish', inputs: options.inputs ?? [], replace: options.overwrite ?? false, forceFlag: '--force' },
  );
  return { dir, files: files.map((f) => join(dir, f.path)), bankSha256: pkg.bankSha256, itemsSha256: pkg.bank.itemsSha256 };
}
