// Golden-file tests of readInspect over every Inspect fixture log (.eval archives and legacy JSON),
// plus synthetic logs (logprobs, solver-level shuffling, epochs, errors) written to a temp dir as JSON,
// gzipped JSON and .eval archives. Goldens live in packages/adapters/test/golden/inspect/; regenerate
// with `GENERATE_GOLDEN=1 npx vitest run packages/adapters/src/inspect` after checking the change is
// wanted. On a mismatch the actual output is written beside the golden as `<name>-changed.jsonl`.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateRawSync, gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { bankFromRecords, type ResponseRecord } from '@llm-nrm/core';
import { expectArraysClose, fixture, tempDir } from '@llm-nrm/tooling/test';
import { compareGolden, goldenText } from '../../test/goldenJsonl.js';
import { newReport, type ReadOptions, type ReadReport } from '../reader.js';
import { openZip } from './openZip.js';
import { readInspect } from './readInspect.js';

const root = fixture('inspect');
const files = readdirSync(root, { recursive: true, withFileTypes: true })
  .filter((d) => d.isFile() && /\.(eval|json)$/.test(d.name))
  .map((d) => join(d.parentPath, d.name))
  .sort();
const tmp = tempDir('llm-nrm-inspect-');
afterAll(() => tmp.cleanup());

async function collect(path: string, options: ReadOptions = {}): Promise<{ records: ResponseRecord[]; report: ReadReport }> {
  const report = newReport();
  const records: ResponseRecord[] = [];
  for await (const r of readInspect(path, { ...options, report })) records.push(r);
  return { records, report };
}

/** A minimal ZIP writer for tests: each entry stored (method 0) or deflated (8). */
function zipBytes(entries: { name: string; data: string | Buffer; method: 0 | 8 }[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const data = Buffer.isBuffer(e.data) ? e.data : Buffer.from(e.data, 'utf8');
    const body = e.method === 8 ? deflateRawSync(data) : data;
    const name = Buffer.from(e.name, 'utf8');
    const crc = crc32(data) >>> 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(e.method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(e.method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += 30 + name.length + body.length;
  }
  const cd = Buffer.concat(centrals);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(entries.length, 8);
  eocd.writeUInt16LE(entries.length, 10);
  eocd.writeUInt32LE(cd.length, 12);
  eocd.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, eocd]);
}

describe('readInspect on the real fixtures (golden)', () => {
  it('finds the six fixture logs', () => {
    expect(files.map((f) => f.slice(root.length + 1))).toEqual([
      'every_eval_ever/data_arc_qwen.json',
      'every_eval_ever/data_arc_sonnet.json',
      'every_eval_ever/data_cvebench_empty_choices.json',
      'every_eval_ever/data_pubmedqa_gpt4o_mini.json',
      'inspect_ai-tests/mmlu-no-summary-choices.eval',
      'inspect_ai-tests/mmlu-summary-choices.eval',
    ]);
  });
  for (const file of files) {
    const name = file.slice(root.length + 1).replace(/[^A-Za-z0-9._-]+/g, '_');
    it(`matches the golden output: ${name}`, async () => {
      const { records, report } = await collect(file);
      expect(compareGolden('inspect', name, goldenText(records, report))).toBeNull();
    });
  }

  it('reads the same ARC items for two models, and the bank lines them up', async () => {
    const { records } = await collect(join(root, 'every_eval_ever'));
    const arc = records.filter((r) => r.benchmark === 'arc_easy');
    expect(arc.map((r) => `${r.model} ${r.item} ${r.choice}`)).toEqual([
      'ollama/qwen2.5:0.5b arc_easy/1 0',
      'ollama/qwen2.5:0.5b arc_easy/2 3',
      'ollama/qwen2.5:0.5b arc_easy/3 0',
      'anthropic/claude-sonnet-4-0 arc_easy/1 0',
      'anthropic/claude-sonnet-4-0 arc_easy/2 1',
      'anthropic/claude-sonnet-4-0 arc_easy/3 3',
      'anthropic/claude-sonnet-4-0 arc_easy/4 3',
      'anthropic/claude-sonnet-4-0 arc_easy/5 1',
    ]);
    const { bank } = bankFromRecords(arc);
    expect(bank.models).toHaveLength(2);
    expect(bank.items).toHaveLength(5);
  });

  it('PubMedQA string ids and 3 options', async () => {
    const { records } = await collect(join(root, 'every_eval_ever', 'data_pubmedqa_gpt4o_mini.json'));
    expect(records.map((r) => [r.item, r.options, r.key, r.choice])).toEqual([
      ['pubmedqa/12377809', ['yes', 'no', 'maybe'], 0, 0],
      ['pubmedqa/26163474', ['yes', 'no', 'maybe'], 0, 0],
    ]);
  });

  it('skips the cvebench log (no choices) with the reason and the file', async () => {
    const file = join(root, 'every_eval_ever', 'data_cvebench_empty_choices.json');
    const { records, report } = await collect(file);
    expect(records).toEqual([]);
    expect(report.skipped).toEqual([{ file, reason: 'not a multiple-choice log: no sample has choices (task cvebench, 1 samples)' }]);
  });

  it('both .eval archives (with and without summary choices) give the same record', async () => {
    const a = await collect(join(root, 'inspect_ai-tests', 'mmlu-summary-choices.eval'));
    const b = await collect(join(root, 'inspect_ai-tests', 'mmlu-no-summary-choices.eval'));
    const { prompt: p, continuations, source, ...rest } = a.records[0]!;
    expect([rest]).toEqual([
      { model: 'openai/gpt-4o', item: 'mmlu_0_shot/1', benchmark: 'mmlu_0_shot', key: 0, options: ['6.0 e', '6.8 eV', '12.2 eV', '13.6 eV'], choice: 2 },
    ]);
    // The prompt is the user message the model saw; each option is answered by its letter.
    expect(p).toMatch(/^Answer the following multiple choice question\..*\n\nA\) 6\.0 e\nB\) 6\.8 eV\nC\) 12\.2 eV\nD\) 13\.6 eV$/s);
    expect(continuations).toEqual(['A', 'B', 'C', 'D']);
    expect(source).toEqual({ harness: 'inspect', task: 'mmlu_0_shot', docId: '1' });
    expect(b.records).toEqual(a.records);
  });

  it('reads gzipped JSON logs exactly like the plain ones', async () => {
    for (const file of files.filter((f) => f.endsWith('.json'))) {
      const gz = join(tmp.dir, 'gz', `${file.slice(root.length + 1).replace(/\//g, '_')}.gz`);
      mkdirSync(join(tmp.dir, 'gz'), { recursive: true });
      writeFileSync(gz, gzipSync(readFileSync(file)));
      const plain = await collect(file);
      const zipped = await collect(gz);
      expect(zipped.records).toEqual(plain.records);
      expect(zipped.report.skipped.map((s) => s.reason)).toEqual(plain.report.skipped.map((s) => s.reason));
    }
  });
});

describe('openZip', () => {
  it('lists and inflates the fixture archive members', async () => {
    const zip = await openZip(join(root, 'inspect_ai-tests', 'mmlu-summary-choices.eval'));
    try {
      expect(zip.entries.map((e) => [e.name, e.method])).toEqual([
        ['_journal/start.json', 8],
        ['samples/1_epoch_1.json', 8],
        ['_journal/summaries/1.json', 8],
        ['summaries.json', 8],
        ['reductions.json', 8],
        ['header.json', 8],
      ]);
      const header = JSON.parse((await zip.read(zip.entries.find((e) => e.name === 'header.json')!)).toString('utf8'));
      expect(header.eval.model).toBe('openai/gpt-4o');
    } finally {
      await zip.close();
    }
  });

  it('reads stored and deflated entries, and detects corruption', async () => {
    const path = join(tmp.dir, 'mixed.zip');
    const bytes = zipBytes([
      { name: 'a.txt', data: 'stored text', method: 0 },
      { name: 'b.txt', data: 'deflated '.repeat(50), method: 8 },
    ]);
    writeFileSync(path, bytes);
    const zip = await openZip(path);
    expect((await zip.read(zip.entries[0]!)).toString()).toBe('stored text');
    expect((await zip.read(zip.entries[1]!)).toString()).toBe('deflated '.repeat(50));
    await zip.close();
    const bad = Buffer.from(bytes);
    bad[30 + 'a.txt'.length] ^= 0xff; // flip a byte of the stored data
    writeFileSync(path, bad);
    const z2 = await openZip(path);
    await expect(z2.read(z2.entries[0]!)).rejects.toThrow(/a\.txt: CRC mismatch/);
    await z2.close();
    writeFileSync(path, bytes.subarray(0, 40));
    await expect(openZip(path)).rejects.toMatchObject({ code: 'FORMAT', message: expect.stringMatching(/not a ZIP archive/) });
  });
});

// ---- synthetic logs in the documented format (spec part 3) ----

const SHUFFLED = 'Choices were shuffled before generating a response, the following was sent to the model:\n\n';
const prompt = (q: string, shown: string[]) =>
  `Answer the following multiple choice question. The entire content of your response should be of the following format: 'ANSWER: $LETTER' (without quotes) where LETTER is one of ${shown.map((_, i) => String.fromCharCode(65 + i)).join(',')}.\n\n${q}\n\n${shown.map((t, i) => `${String.fromCharCode(65 + i)}) ${t}`).join('\n')}`;

function sample(id: number | string, epoch: number, choices: string[] | null, target: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    epoch,
    input: `question ${id}`,
    choices,
    target,
    messages: choices ? [{ role: 'user', content: prompt(`question ${id}`, choices) }] : [],
    output: { model: 'gpt-4o-2024-08-06', choices: [{ message: { role: 'assistant', content: 'ANSWER: A' }, stop_reason: 'stop' }], completion: 'ANSWER: A' },
    scores: { choice: { value: 'C', answer: 'A', explanation: 'ANSWER: A' } },
    metadata: {},
    ...extra,
  };
}

const ln = Math.log;
function syntheticLog() {
  const cities = ['Paris', 'Berlin', 'London'];
  return {
    version: 2,
    status: 'success',
    eval: { task: 'inspect_evals/toy', model: 'openai/gpt-4o', scorers: [{ name: 'choice' }], dataset: { samples: 8 }, config: { epochs: 2 } },
    plan: { steps: [{ solver: 'multiple_choice', params: { shuffle: true } }] },
    samples: [
      // Solver-level shuffle: the model saw [London, Paris, Berlin]; logprobs are over those letters.
      sample(1, 1, cities, 'A', {
        output: {
          model: 'gpt-4o',
          choices: [
            {
              message: { role: 'assistant', content: 'ANSWER: A' },
              logprobs: {
                content: [
                  { token: 'ANSWER', logprob: 0, top_logprobs: [] },
                  { token: ':', logprob: 0, top_logprobs: [] },
                  {
                    token: ' B',
                    logprob: ln(0.5),
                    top_logprobs: [
                      { token: ' B', logprob: ln(0.5) },
                      { token: 'B', logprob: ln(0.1) },
                      { token: ' A', logprob: ln(0.3) },
                      { token: ' The', logprob: ln(0.05) },
                    ],
                  },
                ],
              },
            },
          ],
          completion: 'ANSWER: A',
        },
        scores: { choice: { value: 'C', answer: 'A', explanation: `${SHUFFLED}A) London\nB) Paris\nC) Berlin\nShuffled answer:\nANSWER: B` } },
      }),
      sample(1, 2, cities, 'A', {
        scores: { choice: { value: 'I', answer: 'C', explanation: `${SHUFFLED}A) Berlin\nB) London\nC) Paris\nShuffled answer:\nANSWER: C` } },
      }),
      sample('abc', 1, ['x', 'y'], 'B', { error: { message: 'rate limited' } }),
      sample(3, 1, ['x', 'y'], 'B', { scores: { choice: { value: 'I', answer: '', explanation: 'I am not sure' } } }),
      sample(4, 1, ['x', 'y', 'z'], 'AC', { scores: { choice: { value: 'I', answer: 'A, C', explanation: 'ANSWER: A, C' } } }),
      sample(5, 1, null, ''),
      sample(6, 1, ['x', 'y'], 'Z'),
      sample(7, 1, ['x', 'y'], 'A', { scores: {}, output: { completion: 'Thinking...\nanswer: b' } }),
    ],
  };
}

describe('readInspect on synthetic logs', () => {
  const expected: ResponseRecord[] = [
    // content [Paris, Berlin, London] shown at [1, 2, 0]; shown probs A .3, B .6, C 0 over 0.9
    {
      model: 'openai/gpt-4o',
      item: 'toy/1',
      benchmark: 'toy',
      key: 0,
      options: ['Paris', 'Berlin', 'London'],
      position: [1, 2, 0],
      probs: [0.6 / 0.9, 0, 0.3 / 0.9],
      leakage: 0.1,
    },
    { model: 'openai/gpt-4o', item: 'toy/1', benchmark: 'toy', key: 0, options: ['Paris', 'Berlin', 'London'], position: [2, 0, 1], choice: 2 },
    { model: 'openai/gpt-4o', item: 'toy/abc', benchmark: 'toy', key: 1, options: ['x', 'y'], choice: null },
    { model: 'openai/gpt-4o', item: 'toy/3', benchmark: 'toy', key: 1, options: ['x', 'y'], choice: null },
    { model: 'openai/gpt-4o', item: 'toy/4', benchmark: 'toy', key: 0, options: ['x', 'y', 'z'], choice: null },
    { model: 'openai/gpt-4o', item: 'toy/7', benchmark: 'toy', key: 0, options: ['x', 'y'], choice: 1 },
  ];

  function check(records: ResponseRecord[], report: ReadReport, file: string) {
    expect(records).toHaveLength(expected.length);
    records.forEach((r, i) => {
      const { probs, leakage, prompt: p, continuations, source, ...rest } = r;
      expect(source).toEqual({ harness: 'inspect', task: 'toy', docId: r.item.slice('toy/'.length) });
      expect(p).toBe(prompt(`question ${source!.docId}`, r.options!));
      // Continuations are the letters shown for each content option (un-shuffled by position).
      expect(continuations).toEqual(r.options!.map((_, k) => String.fromCharCode(65 + (r.position?.[k] ?? k))));
      const { probs: eProbs, leakage: eLeak, ...eRest } = expected[i]!;
      expect(rest).toEqual(eRest);
      if (eProbs !== undefined) {
        expectArraysClose(probs!, eProbs);
        expectArraysClose([leakage!], [eLeak!]);
      } else expect(probs).toBeUndefined();
    });
    expect(report.skipped).toEqual([
      { file, reason: 'sample 5 epoch 1: no choices (not multiple choice)' },
      { file, reason: 'sample 6 epoch 1: target is not an option letter: "Z"' },
    ]);
    expect(report.notes).toHaveLength(1);
    expect(report.notes[0]).toMatch(
      /6 records \(2 hard, 1 soft, 3 missing answers\), answers from scorer choice; 2 samples shown in shuffled order \(position recovered by option text\); 1 responses from epochs > 1 kept as replicate records of the same model and item; 1 multiple-correct targets keyed to their first letter$/,
    );
  }

  it('legacy JSON: soft from logprobs (un-shuffled), hard from the choice scorer, missing for errors and empty answers', async () => {
    const file = join(tmp.dir, 'toy.json');
    writeFileSync(file, JSON.stringify(syntheticLog(), null, 2));
    const { records, report } = await collect(file);
    check(records, report, file);
    // The two epochs of toy/1 were shown in two orders: two columns of one item.
    const { bank } = bankFromRecords(records, { dropEmpty: true });
    expect(Array.from(bank.colItem)).toEqual([0, 0, 1]);
  });

  it('.eval archive (stored and deflated members) gives the same records; header from the journal when missing', async () => {
    const log = syntheticLog();
    const { samples, ...header } = log;
    const members = samples.map((s, i) => ({ name: `samples/${s.id}_epoch_${s.epoch}.json`, data: JSON.stringify(s), method: (i % 2 === 0 ? 0 : 8) as 0 | 8 }));
    const file = join(tmp.dir, 'toy.eval');
    writeFileSync(file, zipBytes([{ name: 'header.json', data: JSON.stringify(header), method: 8 }, ...members]));
    const a = await collect(file);
    check(a.records, a.report, file);
    const journal = join(tmp.dir, 'toy-running.eval');
    writeFileSync(
      journal,
      zipBytes([{ name: '_journal/start.json', data: JSON.stringify({ version: 2, eval: header.eval, plan: header.plan }), method: 8 }, ...members]),
    );
    const b = await collect(journal);
    expect(b.records).toEqual(a.records);
    expect(b.report.notes[0]).toMatch(/status unknown/);
  });

  it('a folder batch keeps the good logs when others are broken or not MCQ', async () => {
    const dir = join(tmp.dir, 'batch');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'a_qwen.json.gz'), gzipSync(readFileSync(join(root, 'every_eval_ever', 'data_arc_qwen.json'))));
    writeFileSync(join(dir, 'b_cvebench.json'), readFileSync(join(root, 'every_eval_ever', 'data_cvebench_empty_choices.json')));
    writeFileSync(join(dir, 'c_broken.json'), '{\n  "version": 2,\n  "eval": {\n}}}');
    writeFileSync(join(dir, 'd_truncated.eval'), readFileSync(join(root, 'inspect_ai-tests', 'mmlu-summary-choices.eval')).subarray(0, 3000));
    writeFileSync(join(dir, 'e_other.json'), '{"hello": "world"}');
    const { records, report } = await collect(dir);
    expect(records.map((r) => r.item)).toEqual(['arc_easy/1', 'arc_easy/2', 'arc_easy/3']);
    expect(report.skipped.map((s) => `${s.file.slice(dir.length + 1)}:${s.line ?? ''} ${s.reason}`)).toEqual([
      'b_cvebench.json: not a multiple-choice log: no sample has choices (task cvebench, 1 samples)',
      expect.stringMatching(/^c_broken\.json:4 invalid JSON/),
      'd_truncated.eval: not a ZIP archive (no end of central directory record)',
      'e_other.json: no "eval" field: not an Inspect log',
    ]);
  });

  it('throws FORMAT naming the file for a single broken log, IO for a missing one', async () => {
    await expect(collect(join(tmp.dir, 'batch', 'c_broken.json'))).rejects.toThrow(/c_broken\.json:4: invalid JSON/);
    await expect(collect(join(tmp.dir, 'nope.eval'))).rejects.toMatchObject({ code: 'IO' });
  });
});
