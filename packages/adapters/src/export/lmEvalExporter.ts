import type { ExportedFile, HarnessExporter } from './harnessExporter.js';
import type { AdaptiveSettings } from './tinyPackage.js';
import { NRM_ADAPTIVE_PY } from './nrmAdaptivePy.js';
import { NRM_LMEVAL_PY } from './nrmLmEvalPy.js';
import { multipleInputItems, type TinyPackage } from './tinyPackage.js';

/** The task YAML. `absItems` (lm-eval < 0.4.9) swaps custom_dataset for `dataset_path: json`. */
export function lmEvalTaskYaml(pkg: TinyPackage, absItems?: string): string {
  const b = pkg.bank;
  const data =
    absItems === undefined
      ? ['custom_dataset: !function nrm_lmeval.load_items']
      : ['dataset_path: json', 'dataset_kwargs:', '  data_files:', `    test: ${JSON.stringify(absItems)}`];
  return [
    `# ${b.task}: ${pkg.items.length} items of the llm-nrm tiny benchmark ${JSON.stringify(b.name)} (llm-nrm ${b.tool.version}).`,
    '# nrm_theta / nrm_theta_se: ability on the calibrated scale (option-level LLM-NRM, items fixed);',
    '# nrm_pred_acc: the full-bank accuracy predicted from the run (accuracy here, theta, sharpness), nrm_pred_acc_low/high its 90% interval. Score a run again with: llm-nrm score <package> <output folder>',
    `task: ${b.task}`,
    ...data,
    ...(absItems === undefined
      ? [
          '# lm-eval older than 0.4.9 has no custom_dataset; use instead (absolute path; the items are then not checked):',
          '#   dataset_path: json',
          '#   dataset_kwargs:',
          '#     data_files:',
          '#       test: /absolute/path/to/lm-eval/items.jsonl',
        ]
      : []),
    'test_split: test',
    'output_type: multiple_choice',
    ...(multipleInputItems(pkg.items)
      ? [
          // lm_eval 0.4.13 (api/task.py): doc_to_text returning an int makes a multiple-input task; each option is then
          // requested as (doc_to_choice[k], target_delimiter + doc_to_target) and the int is the gold index.
          '# multiple-input items (winogrande form): option k is scored as the shared continuation after contexts[k];',
          '# doc_to_text (an int) is the gold index.',
          'doc_to_text: gold',
          'doc_to_choice: contexts',
          'doc_to_target: continuation',
        ]
      : ['doc_to_text: prompt', 'doc_to_choice: continuations', 'doc_to_target: gold']),
    'target_delimiter: ""',
    'num_fewshot: 0',
    'process_results: !function nrm_lmeval.process_results',
    'metric_list:',
    '  - metric: acc',
    '    aggregation: mean',
    '    higher_is_better: true',
    '  - metric: nrm_theta',
    '    aggregation: !function nrm_lmeval.agg_theta',
    '    higher_is_better: true',
    '  - metric: nrm_theta_se',
    '    aggregation: !function nrm_lmeval.agg_theta_se',
    '    higher_is_better: false',
    '  - metric: nrm_pred_acc',
    '    aggregation: !function nrm_lmeval.agg_pred_acc',
    '    higher_is_better: true',
    '  - metric: nrm_pred_acc_low',
    '    aggregation: !function nrm_lmeval.agg_pred_acc_low',
    '    higher_is_better: true',
    '  - metric: nrm_pred_acc_high',
    '    aggregation: !function nrm_lmeval.agg_pred_acc_high',
    '    higher_is_better: true',
    'metadata:',
    '  version: 1.0',
    `  bank_sha256: ${pkg.bankSha256}`,
    `  items_sha256: ${b.itemsSha256}`,
    `  llm_nrm_version: ${JSON.stringify(b.tool.version)}`,
    '',
  ].join('\n');
}

/** lm-evaluation-harness: a multiple_choice task over custom_dataset, NRM metrics in its results table. */
export const lmEvalExporter: HarnessExporter = {
  name: 'lm-eval',
  files(pkg: TinyPackage): ExportedFile[] {
    return [
      { path: `lm-eval/${pkg.bank.task}.yaml`, content: lmEvalTaskYaml(pkg) },
      { path: 'lm-eval/nrm_lmeval.py', content: NRM_LMEVAL_PY },
      { path: 'lm-eval/items.jsonl', content: pkg.itemsJsonl },
      // A copy of bank.json: lm-eval/ copied alone into a tasks folder still runs (nrm_lmeval.py
      // reads the bank beside it first); byte-identical, so the task's bank_sha256 holds for both.
      { path: 'lm-eval/bank.json', content: pkg.bankJson },
      // An adaptive package's runner: asks the pool's items round by round instead of all at once.
      ...(pkg.bank.adaptive !== undefined ? [{ path: 'lm-eval/nrm_adaptive.py', content: NRM_ADAPTIVE_PY }] : []),
    ];
  },
  readme(pkg: TinyPackage): string {
    const t = pkg.bank.task;
    const ad = pkg.bank.adaptive;
    if (ad !== undefined) return adaptiveReadme(pkg, ad);
    return [
      '### lm-evaluation-harness (0.4.9 or later; tested with 0.4.13)',
      '',
      '```',
      `lm_eval --model hf --model_args pretrained=<model> --tasks ${t} --include_path lm-eval --log_samples --output_path out/`,
      'llm-nrm score . out/',
      '```',
      '',
      '`lm-eval/` is self-contained (task YAML, `nrm_lmeval.py`, `items.jsonl`, a copy of `bank.json`): copy it into a tasks folder',
      `beside other tasks and run them in one call (\`--include_path <tasks folder> --tasks ${t},<other tasks>\`); \`llm-nrm score\` of this`,
      "package reads only this task's samples and results from the shared output folder.",
      '',
      `The results table shows \`acc\` (accuracy on these ${pkg.items.length} items), \`nrm_theta\` and \`nrm_theta_se\` (ability on the calibrated`,
      'scale with its standard error), `nrm_pred_acc` (the full-bank accuracy predicted from the run) and `nrm_pred_acc_low` / `nrm_pred_acc_high`',
      '(its 90% interval). `nrm_lmeval.py` uses the Python',
      'standard library only. It refuses to run when `items.jsonl` no longer matches `bank.json`. `--log_samples` keeps the per-option',
      'loglikelihoods, from which `llm-nrm score` gives the rank interval and per-benchmark predictions. For lm-eval older than 0.4.9',
      `(no \`custom_dataset\`), replace that line of \`${t}.yaml\` by \`dataset_path: json\` with \`dataset_kwargs: {data_files: {test: <absolute path of lm-eval/items.jsonl>}}\`.`,
      '',
    ].join('\n');
  },
};

/** README section of an adaptive package: the runner first, the plain task (every item) second. */
function adaptiveReadme(pkg: TinyPackage, ad: AdaptiveSettings): string {
  const t = pkg.bank.task;
  return [
    '### lm-evaluation-harness, adaptive (lm_eval 0.4.9 or later; tested with 0.4.13)',
    '',
    '```',
    'python lm-eval/nrm_adaptive.py --model hf --model_args pretrained=<model> --output_path out/',
    'llm-nrm score . out/',
    '```',
    '',
    `\`nrm_adaptive.py\` loads the model once through lm_eval's registry and asks it rounds of ${ad.batch} items, each round the items`,
    `most informative at its current ability estimate (option-level information; content balanced across benchmarks${ad.randomesque > 1 ? `; each item one of the ${ad.randomesque} most informative at random, seed ${ad.seed}` : ''}),`,
    'as one batched `loglikelihood` call built exactly as the task YAML builds its requests. It stops once the standard error of',
    `theta is at most ${ad.se} after at least ${ad.minItems} items, at ${ad.maxItems} items, or when the ${pkg.items.length} items of the pool run out`,
    '(`--se`, `--min-items`, `--max-items`, `--batch`, `--randomesque`, `--seed` change them). It writes `samples_' + t + '_<date>.jsonl` and',
    '`results_<date>.json` under `out/<model>/` as lm-eval does: theta, its SE, the predicted full-bank accuracy and the items asked',
    '(`nrm_adaptive` in the results). In Python, `run(lm, output_path, model_name, se=..., max_items=..., batch=...)` does the same with any',
    'lm_eval `LM` object and returns `{theta, se, items}`.',
    '',
    `The plain task (\`lm_eval --tasks ${t} --include_path lm-eval --log_samples --output_path out/\`) asks every item of the pool;`,
    '`llm-nrm score . out/` scores either run.',
    '',
  ].join('\n');
}
