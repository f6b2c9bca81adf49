import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bankFromRecords, fit, isLlmNrmError, type ResponseRecord } from '@llm-nrm/core';
import { expectArraysClose, fixture, tempDir } from '@llm-nrm/tooling/test';
import { newReport } from '../reader.js';
import { LFS_POINTER_REASON, readLmEvalHarness } from './readLmEvalHarness.js';
import { writeOutMultipleInput } from './sampleRecord.js';

const tmp = tempDir('llm-nrm-lmeval-');
afterAll(() => tmp.cleanup());

async function read(path: string, options: Parameters<typeof readLmEvalHarness>[1] = {}): Promise<ResponseRecord[]> {
  const out: ResponseRecord[] = [];
  for await (const r of readLmEvalHarness(path, options)) out.push(r);
  return out;
}

function put(rel: string, text: string): string {
  const p = join(tmp.dir, rel);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, text);
  return p;
}

/** A v0.4.3+ multiple-choice sample line with string leaves. */
function mcLine(id: number, lps: (number | string)[], target: unknown, extra: Record<string, unknown> = {}, conts = ['A', 'B', 'C', 'D']): string {
  const args: Record<string, unknown> = {};
  lps.forEach((_, i) => (args[`gen_args_${i}`] = { arg_0: `Q${id}\nAnswer:`, arg_1: ` ${conts[i]}` }));
  const pairs = lps.map((v) => [String(v), 'False']);
  return JSON.stringify({ doc_id: id, doc: { q: id }, target, arguments: args, resps: pairs.map((p) => [p]), filtered_resps: pairs, filter: 'none', ...extra });
}

describe('readLmEvalHarness', () => {
  it('reads the three winogrande write_out models of the folder into a bank core accepts', async () => {
    const report = newReport();
    const records = await read(fixture('lm-eval-harness/lm-eval-pr1567-slurmevals'), { report });
    expect(records.length).toBe(3 * 1267);
    expect(report.skipped).toEqual([]);
    const { bank } = bankFromRecords(records);
    expect(bank.models).toEqual(['llama', 'llama13', 'mistral']);
    expect(bank.items.length).toBe(1267);
    expect(bank.kMax).toBe(2);
    // v0.3 joins each context to its continuation: split at the shared suffix's first space (winogrande's partial target).
    expect(records.every((r) => r.contexts?.length === 2 && r.continuations![0] === r.continuations![1] && r.prompt === undefined)).toBe(true);
    const r0 = records.find((r) => r.model === 'mistral' && r.item === 'winogrande/0')!;
    expect(r0.contexts!.map((c) => c.split('\n\n').pop())).toEqual(['People think Samantha', 'People think Rebecca']);
    expect(r0.continuations![0]).toBe(' is embarassed, because Samantha made snide comments about the shirt Rebecca was wearing.');
    // ...and core fits it.
    const r = fit(bank, { model: 'llm-nrm', standardErrors: false });
    expect(r.converged).toBe(true);
    expect(Number.isFinite(r.loss)).toBe(true);
  });

  it('splits v0.3 write_out prompts into contexts only where they have the multiple-input shape', () => {
    expect(writeOutMultipleInput(['Shot.\n\nThe pearls were fancier.', 'Shot.\n\nThe rings were fancier.'])).toEqual({
      contexts: ['Shot.\n\nThe pearls', 'Shot.\n\nThe rings'],
      continuation: ' were fancier.',
    });
    // The blank at the end: the continuation is " .".
    expect(writeOutMultipleInput(['He lost it in the pocket .', 'He lost it in the bag .'])!.continuation).toBe(' .');
    // Ordinary multiple choice (the options are the distinct endings): long different solutions ending alike are not split.
    expect(writeOutMultipleInput(['Q: how?\nA: pour the milk slowly into the bowl.', 'Q: how?\nA: tip the whole carton over onto the bowl.'])).toBeNull();
    expect(writeOutMultipleInput(['Q\nA: Paris', 'Q\nA: London'])).toBeNull();
    expect(writeOutMultipleInput(['same x', 'same x'])).toBeNull();
  });

  it('reads v0.4.0-0.4.2 JSON arrays in a .jsonl with real floats, NaN and -Infinity', async () => {
    const dir = 'v040';
    const sample = (id: number, lps: string, gold: number) =>
      `  {\n    "doc_id": ${id},\n    "doc": {"choices": ["x", "y", "z"], "gold": ${gold}},\n    "target": ${gold},\n    "arguments": [["ctx", " x"], ["ctx", " y"], ["ctx", " z"]],\n    "resps": [],\n    "filtered_resps": ${lps}\n  }`;
    put(`${dir}/results.json`, JSON.stringify({ results: { hellaswag: { 'acc,none': 0.5 } }, config: { model_args: 'pretrained=EleutherAI/pythia-160m' } }));
    const f = put(
      `${dir}/pretrained__EleutherAI__pythia-160m_hellaswag.jsonl`,
      `[\n${sample(0, '[[-1.5, false], [NaN, false], [-0.5, true]]', 2)},\n${sample(1, '[[-Infinity, false], [NaN, false], [-Infinity, false]]', 0)}\n]\n`,
    );
    const report = newReport();
    const rs = await read(f, { report });
    expect(rs[0]).toEqual({
      model: 'EleutherAI/pythia-160m',
      item: 'hellaswag/0',
      benchmark: 'hellaswag',
      key: 2,
      options: ['x', 'y', 'z'],
      logprobs: [-1.5, -Infinity, -0.5],
      prompt: 'ctx',
      continuations: [' x', ' y', ' z'],
      source: { harness: 'lm-eval', task: 'hellaswag', docId: '0' },
    });
    expect(rs[1]).toMatchObject({ item: 'hellaswag/1', key: 0, choice: null, nOptions: 3 });
    expect(report.notes[0]).toMatch(
      /JSON array \(v0\.4\.0-0\.4\.2\).*task 'hellaswag' \(results\.json tasks\); model 'EleutherAI\/pythia-160m' \(results\.json config\.model_args\).*2 NaN option scores.*1 samples with no finite/,
    );
  });

  it("scores per character ('chars', acc_norm) and per UTF-8 byte ('bytes')", async () => {
    const f = put('score/m/samples_t_2024-01-01T00-00-00.000001.jsonl', mcLine(0, [-6, -6], 0, {}, ['ab', 'été!']) + '\n');
    const raw = await read(f, { report: newReport() });
    const chars = await read(f, { score: 'chars', report: newReport() });
    const bytes = await read(f, { score: 'bytes', report: newReport() });
    expect(raw[0]!.logprobs).toEqual([-6, -6]);
    expect(raw[0]!.options).toEqual(['ab', 'été!']);
    expectArraysClose(chars[0]!.logprobs!, [-3, -1.5]);
    expectArraysClose(bytes[0]!.logprobs!, [-3, -1]);
  });

  it('keeps one filter per document (option or first seen) and says which', async () => {
    const gen = (id: number, filter: string, ans: string) =>
      JSON.stringify({
        doc_id: id,
        doc: { choices: ['p', 'q'], answer: 1 },
        target: '1',
        arguments: { gen_args_0: { arg_0: 'c', arg_1: { until: ['\n'] } } },
        resps: [['x']],
        filtered_resps: [ans],
        filter,
      });
    const f = put(
      'filters/m/samples_gsm_2024-01-01T00-00-00.000001.jsonl',
      [gen(0, 'strict-match', 'B'), gen(0, 'flexible-extract', 'A'), gen(1, 'strict-match', '[invalid]'), gen(1, 'flexible-extract', 'q')].join('\n'),
    );
    const report = newReport();
    const first = await read(f, { report });
    expect(first.map((r) => r.choice)).toEqual([1, null]);
    expect(report.notes[0]).toMatch(/kept filter 'strict-match' \(first seen\), left out 'flexible-extract' \(2\)/);
    const flex = await read(f, { filter: 'flexible-extract', report: newReport() });
    expect(flex.map((r) => r.choice)).toEqual([0, 1]);
    const none = newReport();
    expect(await read(f, { filter: 'nope', report: none })).toEqual([]);
    expect(none.skipped[0]!.reason).toMatch(/no samples with filter 'nope'/);
  });

  it('recovers gold from doc: truthfulqa_mc2 labels, winogrande multiple_input, letter and "(B)" targets', async () => {
    const mc2 = mcLine(0, [-1, -2, -3], 0, { doc: { mc2_targets: { choices: ['a', 'b', 'c'], labels: [0, 1, 1] } } }, ['a', 'b', 'c']);
    const wino = JSON.stringify({
      doc_id: 1,
      doc: { sentence: 'x _ y', option1: 'Ann', option2: 'Bo', answer: '2' },
      target: 'y',
      arguments: { gen_args_0: { arg_0: 'shot\n\nx Ann', arg_1: ' y' }, gen_args_1: { arg_0: 'shot\n\nx Bo', arg_1: ' y' } },
      resps: [[['-3', 'False']], [['-2', 'False']]],
      filtered_resps: [
        ['-3', 'False'],
        ['-2', 'False'],
      ],
    });
    const gpqa = mcLine(2, [-1, -2, -3, -4], '(C)', {}, ['(A)', '(B)', '(C)', '(D)']);
    const mutual = JSON.stringify({
      doc_id: 3,
      doc: {},
      target: 1,
      arguments: {
        gen_args_0: { arg_0: 'c', arg_1: ' a' },
        gen_args_1: { arg_0: 'c', arg_1: ' b' },
        gen_args_2: { arg_0: '', arg_1: ' a' },
        gen_args_3: { arg_0: '', arg_1: ' b' },
      },
      resps: [],
      filtered_resps: [
        ['-1', 'False'],
        ['-2', 'False'],
        ['-9', 'False'],
        ['-9', 'False'],
      ],
    });
    const bad = mcLine(4, [-1, -2], -100, {}, ['a', 'b']);
    const f = put('gold/m/samples_mix_2024-01-01T00-00-00.000001.jsonl', [mc2, wino, gpqa, mutual, bad].join('\n') + '\n');
    const report = newReport();
    const rs = await read(f, { report });
    expect(rs.map((r) => r.key)).toEqual([1, 1, 2, 1]);
    expect(rs[1]!.options).toEqual(['x Ann', 'x Bo']);
    expect(rs[3]!.logprobs).toEqual([-1, -2]);
    expect(report.skipped).toEqual([{ file: f, line: 5, reason: 'gold out of range: -100 (2 options)' }]);
    expect(report.notes[0]).toMatch(/1 samples with several true options.*1 acc_mutual_info/);
    // Multiple-input (winogrande) has k contexts and one continuation: no single prompt, the k contexts instead.
    expect(rs[1]!.prompt).toBeUndefined();
    expect(rs[1]!.contexts).toEqual(['shot\n\nx Ann', 'shot\n\nx Bo']);
    expect(rs[1]!.continuations).toEqual([' y', ' y']);
    expect(rs[1]!.source).toEqual({ harness: 'lm-eval', task: 'mix', docId: '1' });
    // acc_mutual_info: the conditional half is the request.
    expect([rs[3]!.prompt, rs[3]!.continuations]).toEqual(['c', [' a', ' b']]);
  });

  it("keeps a doc's own item_id (published tiny tasks) and records prompt, continuations and source", async () => {
    const a = mcLine(0, [-1, -2], 1, { doc: { item_id: 'mmlu/17', prompt: 'Q0\nAnswer:' } }, ['x', 'y']);
    const b = mcLine(1, [-1, -2], 0, { doc: { item_id: '' } }, ['x', 'y']);
    const f = put('itemid/m/samples_tiny_mmlu_2024-01-01T00-00-00.000001.jsonl', [a, b].join('\n') + '\n');
    const rs = await read(f, { report: newReport() });
    expect(rs.map((r) => r.item)).toEqual(['mmlu/17', 'tiny_mmlu/1']);
    expect(rs[0]).toMatchObject({ prompt: 'Q0\nAnswer:', continuations: [' x', ' y'], source: { harness: 'lm-eval', task: 'tiny_mmlu', docId: '0' } });
  });

  it('reports Git LFS pointers and broken records with file and line, and reads the rest of the folder', async () => {
    put('mixed/m/samples_lfs_2024-01-01T00-00-00.000001.jsonl', 'version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 123\n');
    const good = mcLine(0, [-1, -2], 1, {}, ['a', 'b']);
    const broken = good.slice(0, 40) + '\n' + good.slice(40);
    const f = put('mixed/m/samples_ok_2024-01-01T00-00-00.000001.jsonl', [good, broken, mcLine(2, [-1, -2], 0, {}, ['a', 'b'])].join('\n') + '\n');
    const report = newReport();
    const rs = await read(join(tmp.dir, 'mixed'), { report });
    expect(rs.map((r) => r.item)).toEqual(['ok/0', 'ok/2']);
    expect(report.skipped).toEqual([
      { file: join(tmp.dir, 'mixed/m/samples_lfs_2024-01-01T00-00-00.000001.jsonl'), line: 1, reason: LFS_POINTER_REASON },
      { file: f, line: 2, reason: expect.stringMatching(/^record broken across lines 2-3: /) },
    ]);
    // Without a report, the skipped units become an error naming the file and line.
    const err = await read(f).catch((e: unknown) => e);
    expect(isLlmNrmError(err, 'FORMAT')).toBe(true);
    expect((err as Error).message).toMatch(new RegExp(`^${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: record broken across lines 2-3`));
  });

  it('names the broken fixture file and line', async () => {
    const f = fixture('lm-eval-harness/kt-lm-evaluation-harness/deprecated/samples_kobest_boolq_2024-11-28T15-32-08.366450.jsonl');
    const err = await read(f).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/samples_kobest_boolq_2024-11-28T15-32-08\.366450\.jsonl:1: record broken across lines 1-15/);
  });

  it('throws IO for a missing path', async () => {
    const err = await read(join(tmp.dir, 'nope')).catch((e: unknown) => e);
    expect(isLlmNrmError(err, 'IO')).toBe(true);
  });
});

describe('bytes that are not UTF-8 are counted, with the first line (real samples file)', () => {
  const real = fixture(
    'lm-eval-harness/lm-eval-fork-bias-classification/bias_classification/results/meta-llama__Meta-Llama-3-8B/samples_bias_classification_2024-06-17T15-44-37.867068.json',
  );

  it('a stray byte in line 3 is said in the note; a real U+FFFD in line 7 is not counted', async () => {
    const { readFileSync } = await import('node:fs');
    const lines = readFileSync(real, 'utf8').split('\n');
    // Inside the first string value of a line: an invalid byte (line 3), a real U+FFFD (line 7, EF BF BD).
    const insert = (b: Buffer, what: number[]) => {
      const at = b.indexOf('"', b.indexOf(':') + 1) + 1;
      return Buffer.concat([b.subarray(0, at), Buffer.from(what), b.subarray(at)]);
    };
    const bytes = lines.map((l, i) => {
      const b = Buffer.from(l, 'utf8');
      return i === 2 ? insert(b, [0xff]) : i === 6 ? insert(b, [0xef, 0xbf, 0xbd]) : b;
    });
    const dir = join(tmp.dir, 'damaged-bytes');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'samples_bias_classification_2024-06-17T15-44-37.867068.json');
    writeFileSync(file, Buffer.concat(bytes.flatMap((b, i) => (i < bytes.length - 1 ? [b, Buffer.from('\n')] : [b]))));
    const report = newReport();
    const clean = newReport();
    const recs = await read(file, { report });
    expect(recs.length).toBe((await read(real, { report: clean })).length);
    const note = report.notes.find((n) => n.startsWith(`${file}:`))!;
    expect(note).toContain('1 byte sequences not UTF-8 read as U+FFFD (first on line 3)');
    expect(clean.notes.join('\n')).not.toContain('not UTF-8');
  });
});
