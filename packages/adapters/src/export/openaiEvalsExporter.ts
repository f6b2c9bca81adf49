import type { ExportedFile, HarnessExporter } from './harnessExporter.js';
import { questionStem } from './questionStem.js';
import { multipleInputItems, type TinyPackage } from './tinyPackage.js';

const letter = (k: number) => String.fromCharCode(65 + k);

/** The eval's registry name (`tiny-mmlu`): OpenAI evals names use dashes. */
export function openAIEvalName(task: string): string {
  return task.replace(/_/g, '-');
}

/**
 * Chat-formatted samples for the Match eval: the prompt, then the options as `A) text` lines
 * (the form the OpenAI-evals reader recovers options from), the key's letter as `ideal`.
 */
function samples(pkg: TinyPackage): string {
  return (
    pkg.items
      .map((it) =>
        JSON.stringify({
          input: [
            { role: 'system', content: 'Answer with the letter of the correct option only.' },
            // The options are listed here once, in the form the reader recovers: a prompt that lists them already gives its question only.
            {
              role: 'user',
              content: `${questionStem(it.prompt, it.options)}\n\n${it.options.map((o, k) => `${letter(k)}) ${o}`).join('\n')}\n\nAnswer:`,
            },
          ],
          ideal: letter(it.gold),
        }),
      )
      .join('\n') + '\n'
  );
}

/** OpenAI evals: a registry folder (Match class), chat samples, and a manifest line index -> item_id. */
export const openAIEvalsExporter: HarnessExporter = {
  name: 'openai-evals',
  files(pkg: TinyPackage): ExportedFile[] {
    const name = openAIEvalName(pkg.bank.task);
    const yaml = [
      `# ${pkg.items.length} items of the llm-nrm tiny benchmark ${JSON.stringify(pkg.bank.name)} (llm-nrm ${pkg.bank.tool.version}); bank sha256 ${pkg.bankSha256}`,
      `${name}:`,
      `  id: ${name}.test.v1`,
      '  metrics: [accuracy]',
      `${name}.test.v1:`,
      '  class: evals.elsuite.basic.match:Match',
      '  args:',
      `    samples_jsonl: ${name}/samples.jsonl`,
      '',
    ].join('\n');
    // The record log names a sample only by `<eval>.test.<line index>`: the manifest maps it back.
    const manifest = { eval: name, bankSha256: pkg.bankSha256, itemsSha256: pkg.bank.itemsSha256, items: pkg.items.map((it) => it.item_id) };
    return [
      { path: `openai-evals/evals/${name}.yaml`, content: yaml },
      { path: `openai-evals/data/${name}/samples.jsonl`, content: samples(pkg) },
      { path: `openai-evals/data/${name}/manifest.json`, content: JSON.stringify(manifest, null, 2) + '\n' },
    ];
  },
  unsupported(pkg: TinyPackage): string | null {
    // One prompt with lettered options is all OpenAI evals shows; a multiple-input item has one context per option and no such prompt.
    return multipleInputItems(pkg.items)
      ? `the items are multiple-input (one context per option, lm-eval's winogrande form), which OpenAI evals cannot present as calibrated: ` +
          'publish with --harness lm-eval, or --render-prompt to render a standard question with lettered options for every harness'
      : null;
  },
  readme(pkg: TinyPackage): string {
    const name = openAIEvalName(pkg.bank.task);
    return [
      '### OpenAI evals',
      '',
      '```',
      `oaieval <completion_fn> ${name} --registry_path openai-evals --record_path ${name}.jsonl`,
      `llm-nrm score . ${name}.jsonl`,
      '```',
      '',
      'The Match eval records only the picked letter (hard answers), and names each sample by its line index; `manifest.json`',
      "maps the index back to the item. The prompt adds the lettered options to each item's prompt: not the calibration prompt.",
      '',
    ].join('\n');
  },
};
