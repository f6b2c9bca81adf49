// Golden-file tests of readOpenAIEvals over every OpenAI-evals fixture log (there is one: spec +
// final_report, no events), plus synthetic logs written to a temp dir in the documented format
// (spec part 2) for the MCQ happy path. Goldens live in packages/adapters/test/golden/openai-evals/;
// regenerate with `GENERATE_GOLDEN=1 npx vitest run packages/adapters/src/openai` after checking the
// change is wanted. On a mismatch the actual output is written beside the golden as `<name>-changed.jsonl`.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { bankFromRecords, type ResponseRecord } from '@llm-nrm/core';
import { fixture, tempDir } from '@llm-nrm/tooling/test';
import { compareGolden, goldenText } from '../../test/goldenJsonl.js';
import { newReport, type ReadOptions, type ReadReport } from '../reader.js';
import { readOpenAIEvals } from './readOpenAIEvals.js';

const root = fixture('openai-evals', 'openai-evals-repo');
const logs = readdirSync(root)
  .filter((f) => /\.(log|jsonl)$/.test(f))
  .sort();
const tmp = tempDir('llm-nrm-oaievals-');
afterAll(() => tmp.cleanup());

async function collect(path: string, options: ReadOptions = {}): Promise<{ records: ResponseRecord[]; report: ReadReport }> {
  const report = newReport();
  const records: ResponseRecord[] = [];
  for await (const r of readOpenAIEvals(path, { ...options, report })) records.push(r);
  return { records, report };
}

describe('readOpenAIEvals on the real fixture (golden)', () => {
  it('finds the fixture log', () => {
    expect(logs).toEqual(['oriprompt.log']);
  });
  for (const log of logs) {
    it(`matches the golden output: ${log}`, async () => {
      const { records, report } = await collect(join(root, log));
      expect(compareGolden('openai-evals', log, goldenText(records, report))).toBeNull();
    });
  }

  it('a log with no events gives zero records and a clear report entry, not a crash', async () => {
    const { records, report } = await collect(join(root, 'oriprompt.log'));
    expect(records).toEqual([]);
    expect(report.skipped).toEqual([{ file: join(root, 'oriprompt.log'), reason: 'log has no sampling/match events (spec + final_report only)' }]);
  });

  it('reads the gzipped log the same way', async () => {
    const gz = join(tmp.dir, 'oriprompt.log.gz');
    writeFileSync(gz, gzipSync(readFileSync(join(root, 'oriprompt.log'))));
    const { records, report } = await collect(gz);
    expect(records).toEqual([]);
    expect(report.skipped).toEqual([{ file: gz, reason: 'log has no sampling/match events (spec + final_report only)' }]);
  });
});

// ---- synthetic logs in the documented format ----

const RUN = '240101120000ABCDEFGH';

function spec(cls: string, baseEval: string, split: string, completionFn = 'gpt-3.5-turbo') {
  return {
    spec: {
      completion_fns: [completionFn],
      eval_name: `${baseEval}.${split}.v1`,
      base_eval: baseEval,
      split,
      run_config: {
        completion_fns: [completionFn],
        eval_spec: { cls, args: {}, key: `${baseEval}.${split}.v1`, group: baseEval },
        seed: 20220722,
        max_samples: null,
        command: 'oaieval',
        initial_settings: { visible: true },
      },
      created_by: '',
      run_id: RUN,
      created_at: '2024-01-01 12:00:00.000000',
    },
  };
}

let eventId = 0;
function event(sampleId: string, type: string, data: object) {
  return { run_id: RUN, event_id: eventId++, sample_id: sampleId, type, data, created_by: '', created_at: '2024-01-01 12:00:01.000000+00:00' };
}

const abc = (question: string, shown: string[]) => `${question}\n${shown.map((t, i) => `${String.fromCharCode(65 + i)}) ${t}`).join('\n')}`;

function writeLog(name: string, lines: (object | string)[], gzip = false): string {
  mkdirSync(tmp.dir, { recursive: true });
  const text = lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n';
  const path = join(tmp.dir, name);
  writeFileSync(path, gzip ? gzipSync(text) : text);
  return path;
}

// A MultipleChoice (make_abc, shuffled) log: events out of order, final report in the middle, a
// chat prompt, picked null, a second match event, a sample with no match, a match with no
// sampling event, a truncated last line.
function mcqLog(): (object | string)[] {
  const cls = 'evals.elsuite.multiple_choice:MultipleChoice';
  return [
    spec(cls, 'mmlu-anatomy', 'val'),
    event('mmlu-anatomy.val.1', 'match', { correct: false, expected: 'A', picked: 'C', sampled: 'C', options: ['A'] }),
    { final_report: { accuracy: 0.5 }, run_id: RUN },
    event('mmlu-anatomy.val.0', 'sampling', {
      prompt: [
        { role: 'system', content: 'Answer with a letter.' },
        { role: 'user', content: abc('Q0?', ['liver', 'heart', 'brain', 'lung']) },
      ],
      sampled: 'B',
    }),
    event('mmlu-anatomy.val.1', 'sampling', { prompt: abc('Q1?', ['tibia', 'femur', 'ulna']) + '\nAnswer:', sampled: 'C' }),
    event('mmlu-anatomy.val.0', 'match', { correct: true, expected: 'B', picked: 'B', sampled: 'B', options: ['B'] }),
    event('mmlu-anatomy.val.0', 'match', { correct: true, expected: 'B', picked: 'B', sampled: 'B', options: ['B'] }),
    event('mmlu-anatomy.val.2', 'sampling', { prompt: abc('Q2?', ['x', 'y']), sampled: 'I do not know' }),
    event('mmlu-anatomy.val.2', 'match', { correct: false, expected: ['B'], picked: null, sampled: 'I do not know', options: ['B'] }),
    event('mmlu-anatomy.val.3', 'sampling', { prompt: abc('Q3?', ['p', 'q']), sampled: 'A' }),
    event('mmlu-anatomy.val.4', 'match', { correct: true, expected: 'A', picked: 'A', sampled: 'A', options: ['A'] }),
    '{"run_id": "240101120000ABCDEFGH", "event_id": 99, "sample_id": "mmlu-anat',
  ];
}

describe('readOpenAIEvals on synthetic logs', () => {
  it('MultipleChoice: hard answers, options in a shuffle-free order with displayed positions', async () => {
    const path = writeLog('mcq.jsonl', mcqLog());
    const { records, report } = await collect(path);
    // Emitted as soon as both events of a sample are seen: val.1 completes before val.0.
    // Each record keeps the sampled prompt; its continuations are the letters the options were shown under.
    expect(records.map((r) => r.continuations)).toEqual([
      ['B', 'A', 'C'],
      ['C', 'B', 'A', 'D'],
      ['A', 'B'],
    ]);
    expect(records[0]!.prompt).toMatch(/^Q1\?\nA\) tibia\nB\) femur\nC\) ulna/);
    expect(records[0]!.source).toEqual({ harness: 'openai-evals', task: 'mmlu-anatomy', docId: 'mmlu-anatomy.val.1' });
    expect(records.map(({ prompt: _p, continuations: _c, source: _s, ...r }) => r)).toEqual([
      // shown [tibia, femur, ulna] -> sorted [femur, tibia, ulna]; A (tibia) = 1, C (ulna) = 2
      {
        model: 'gpt-3.5-turbo',
        item: 'mmlu-anatomy/val.1',
        benchmark: 'mmlu-anatomy',
        key: 1,
        options: ['femur', 'tibia', 'ulna'],
        choice: 2,
        position: [1, 0, 2],
      },
      // shown [liver, heart, brain, lung] -> sorted [brain, heart, liver, lung]; B (heart) = 1
      {
        model: 'gpt-3.5-turbo',
        item: 'mmlu-anatomy/val.0',
        benchmark: 'mmlu-anatomy',
        key: 1,
        options: ['brain', 'heart', 'liver', 'lung'],
        choice: 1,
        position: [2, 1, 0, 3],
      },
      { model: 'gpt-3.5-turbo', item: 'mmlu-anatomy/val.2', benchmark: 'mmlu-anatomy', key: 1, options: ['x', 'y'], choice: null, position: [0, 1] },
    ]);
    expect(report.records).toBe(3);
    expect(report.skipped).toEqual([
      { file: path, line: 12, reason: 'invalid JSON line: {"run_id": "240101120000ABCDEFGH", "even...' },
      { file: path, line: 10, reason: 'sample mmlu-anatomy.val.3: no match event' },
      { file: path, line: 11, reason: 'sample mmlu-anatomy.val.4: no sampling event (the options are unknown)' },
    ]);
    expect(report.notes).toEqual([
      'openai-evals mcq.jsonl: eval mmlu-anatomy, model gpt-3.5-turbo, 3 records (1 with picked null = missing); final_report present; ' +
        'options shuffled per sample (make_abc): content order = option texts sorted, position = displayed order; 1 further match events per sample ignored (first kept)',
    ]);
    // The bank accepts them: picked null is missing, never wrong.
    const { stats } = bankFromRecords(records, { dropEmpty: true });
    expect(stats).toMatchObject({ hard: 2, missingAnswers: 1 });
  });

  it('Match eval with letters in the prompt: options in displayed order, no position; non-MCQ samples skipped', async () => {
    const path = writeLog(
      'match.jsonl.gz',
      [
        spec('evals.elsuite.basic.match:Match', 'test-match', 's1', 'auto_gpt_completion_fn'),
        event('test-match.s1.0', 'sampling', { prompt: abc('Pick one', ['cat', 'dog', 'cow']), sampled: 'C' }),
        event('test-match.s1.0', 'match', { correct: true, expected: 'C', picked: 'C', sampled: 'C', options: ['C'] }),
        event('test-match.s1.2', 'sampling', { prompt: 'When was OpenAI founded?', sampled: 'OpenAI was founded in 2015.' }),
        event('test-match.s1.2', 'match', { correct: false, expected: '15', picked: null, sampled: 'OpenAI was founded in 2015.', options: ['15'] }),
        { final_report: { accuracy: 0.5 } },
      ],
      true,
    );
    const { records, report } = await collect(path, { model: 'my-agent' });
    expect(records).toEqual([
      {
        model: 'my-agent',
        item: 'test-match/s1.0',
        benchmark: 'test-match',
        key: 2,
        options: ['cat', 'dog', 'cow'],
        choice: 2,
        prompt: abc('Pick one', ['cat', 'dog', 'cow']),
        continuations: ['A', 'B', 'C'],
        source: { harness: 'openai-evals', task: 'test-match', docId: 'test-match.s1.0' },
      },
    ]);
    expect(report.skipped).toEqual([{ file: path, line: 5, reason: 'sample test-match.s1.2: no "A) ... B) ..." options in the prompt (not multiple choice)' }]);
  });

  it('a folder batch keeps good logs when one is broken or empty', async () => {
    const dir = join(tmp.dir, 'batch');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'a_good.jsonl'),
      mcqLog()
        .map((l) => (typeof l === 'string' ? l : JSON.stringify(l)))
        .join('\n'),
    );
    writeFileSync(join(dir, 'b_empty.log'), readFileSync(join(root, 'oriprompt.log')));
    writeFileSync(join(dir, 'c_not_a_log.jsonl'), '{"hello": 1}\nnot json at all\n');
    writeFileSync(join(dir, 'd_pretty.json.log'), JSON.stringify({ spec_like: true, a: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] }, null, 2));
    writeFileSync(join(dir, 'ignored.txt'), 'not read');
    const { records, report } = await collect(dir);
    expect(records).toHaveLength(3);
    const reasons = report.skipped.map((s) => `${s.file.slice(dir.length + 1)}:${s.line ?? ''} ${s.reason}`);
    expect(reasons).toEqual([
      'a_good.jsonl:12 invalid JSON line: {"run_id": "240101120000ABCDEFGH", "even...',
      'a_good.jsonl:10 sample mmlu-anatomy.val.3: no match event',
      'a_good.jsonl:11 sample mmlu-anatomy.val.4: no sampling event (the options are unknown)',
      'b_empty.log: log has no sampling/match events (spec + final_report only)',
      'c_not_a_log.jsonl:1 not a spec, final_report or event line',
      'c_not_a_log.jsonl:2 invalid JSON line: not json at all',
      'c_not_a_log.jsonl: no "spec" line: not an OpenAI evals record log',
      'd_pretty.json.log: not an OpenAI evals record log: the first 10 lines are not log records',
    ]);
  });

  it('throws IO for a missing file', async () => {
    await expect(collect(join(tmp.dir, 'missing.jsonl'))).rejects.toMatchObject({ code: 'IO' });
  });
});
