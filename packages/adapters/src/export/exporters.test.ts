// The harness exporters on an item whose prompt already lists its options (lm-eval's MMLU form):
// Inspect and OpenAI evals list the options themselves, so each must show them exactly once.
import { describe, expect, it } from 'vitest';
import { inspectExporter } from './inspectExporter.js';
import { NRM_LMEVAL_PY } from './nrmLmEvalPy.js';
import { lmEvalExporter } from './lmEvalExporter.js';
import { NRM_ADAPTIVE_PY } from './nrmAdaptivePy.js';
import { openAIEvalsExporter } from './openaiEvalsExporter.js';
import type { TinyBank, TinyItem, TinyPackage } from './tinyPackage.js';

const item = (prompt: string): TinyItem => ({
  item_id: 'mmlu/7',
  benchmark: 'mmlu',
  prompt,
  continuations: [' A', ' B', ' C', ' D'],
  gold: 1,
  options: ['Paris', 'Lyon', 'Nice', 'Lille'],
  source: null,
  content_sha256: '0'.repeat(64),
});
const pkgOf = (it: TinyItem): TinyPackage => ({
  bank: { task: 'tiny_x', name: 'x', tool: { name: 'llm-nrm', version: '0.0.0' }, itemsSha256: '1'.repeat(64) } as TinyBank,
  bankJson: '{}',
  bankSha256: '2'.repeat(64),
  items: [it],
  itemsJsonl: '',
});
const file = (files: { path: string; content: string }[], end: string) => files.find((f) => f.path.endsWith(end))!.content;
const count = (s: string, sub: string) => s.split(sub).length - 1;

describe('exporters show each option once', () => {
  const listed = 'Which city is larger?\nA. Paris\nB. Lyon\nC. Nice\nD. Lille\nAnswer:';

  it('Inspect: the input is the question only when the prompt lists the options (multiple_choice lists them)', () => {
    const row = JSON.parse(file(inspectExporter.files(pkgOf(item(listed))), 'items.jsonl'));
    expect(row.input).toBe('Which city is larger?');
    expect(row.choices).toEqual(['Paris', 'Lyon', 'Nice', 'Lille']);
    const plain = JSON.parse(file(inspectExporter.files(pkgOf(item('Which city is larger?\nAnswer:'))), 'items.jsonl'));
    expect(plain.input).toBe('Which city is larger?\nAnswer:');
  });

  it('OpenAI evals: the options once, in the A) form, one Answer: cue', () => {
    const row = JSON.parse(file(openAIEvalsExporter.files(pkgOf(item(listed))), 'samples.jsonl'));
    const user = row.input[1].content as string;
    for (const o of ['Paris', 'Lyon', 'Nice', 'Lille']) expect(count(user, o)).toBe(1);
    expect(user).toBe('Which city is larger?\n\nA) Paris\nB) Lyon\nC) Nice\nD) Lille\n\nAnswer:');
    expect(count(user, 'Answer:')).toBe(1);
  });

  it("Inspect's task file names its own file in the run line", () => {
    const py = file(inspectExporter.files(pkgOf(item(listed))), 'tiny_x.py');
    expect(py).toContain('inspect eval inspect/tiny_x.py');
    expect(py).not.toContain('tiny_task.py');
  });
});

describe('the lm-eval exporter of an adaptive package', () => {
  const settings = { batch: 4, se: 0.3, minItems: 10, maxItems: 60, randomesque: 1, seed: 1, balance: true };

  it('writes nrm_adaptive.py (the runner) beside the task only when the bank has an adaptive block, and says how to run it', () => {
    const plain = pkgOf(item('Q?\nAnswer:'));
    expect(lmEvalExporter.files(plain).map((f) => f.path)).not.toContain('lm-eval/nrm_adaptive.py');
    const adaptive = { ...plain, bank: { ...plain.bank, adaptive: settings } as TinyBank };
    const files = lmEvalExporter.files(adaptive);
    expect(file(files, 'nrm_adaptive.py')).toBe(NRM_ADAPTIVE_PY);
    // The plain task is still there: llm-nrm score reads either run.
    expect(files.map((f) => f.path)).toContain('lm-eval/tiny_x.yaml');
    const readme = lmEvalExporter.readme(adaptive);
    expect(readme).toContain('python lm-eval/nrm_adaptive.py --model hf --model_args pretrained=<model> --output_path out/');
    expect(readme).toContain('at most 0.3 after at least 10 items, at 60 items');
  });

  it('Inspect: a SampleSource task beside the selection and scoring modules, only for adaptive banks', () => {
    const plain = pkgOf(item('Q?\nAnswer:'));
    expect(inspectExporter.files(plain).map((f) => f.path)).toEqual(['inspect/tiny_x.py', 'inspect/items.jsonl']);
    const adaptive = { ...plain, bank: { ...plain.bank, adaptive: settings } as TinyBank };
    const files = inspectExporter.files(adaptive);
    expect(file(files, 'nrm_adaptive.py')).toBe(NRM_ADAPTIVE_PY);
    expect(file(files, 'nrm_lmeval.py')).toBe(NRM_LMEVAL_PY);
    const task = file(files, 'tiny_x_adaptive.py');
    expect(task).toMatch(/^class AdaptiveSource\(SampleSource\):/m);
    expect(task).toMatch(/^def tiny_x_adaptive\(se=None, max_items=None/m);
    expect(task).toContain('config=GenerateConfig(logprobs=True, top_logprobs=20)');
    expect(task).toContain(`BANK_SHA256 = "${'2'.repeat(64)}"`);
    expect(inspectExporter.readme(adaptive)).toContain('inspect eval inspect/tiny_x_adaptive.py --model <provider/model> --log-dir logs/');
  });

  it('the runner imports nothing beyond the standard library, its sibling nrm_lmeval and lm_eval', () => {
    const imports = [...NRM_ADAPTIVE_PY.matchAll(/^\s*(?:import (\w+)|from ([\w.]+) import)/gm)].map((m) => (m[1] ?? m[2]!).split('.')[0]!);
    const std = new Set(['argparse', 'datetime', 'hashlib', 'json', 'math', 'os', 'random', 're', 'sys']);
    for (const m of imports) expect(std.has(m) || m === 'nrm_lmeval' || m === 'lm_eval', m).toBe(true);
    expect(imports).toContain('lm_eval');
  });
});
