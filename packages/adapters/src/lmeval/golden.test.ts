// Golden-file tests of readLmEvalHarness over every lm-eval fixture file. Expected tidy output lives
// in packages/adapters/test/golden/lmeval/<name>.jsonl: the first 50 records, then a summary line
// over all records (count, soft/hard/missing, mean key probability, sha256 of every record) and the
// read report (paths relative to the fixtures folder). Regenerate after an intended change with
//   GENERATE_GOLDEN=1 npx vitest run packages/adapters/src/lmeval/golden.test.ts
// On a mismatch the actual output is written to <name>-changed.jsonl beside the golden (git-ignored)
// so `diff` shows what changed. Each file is also read through tiny chunks and through gzip.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { fixture, fixturesDir, repoRoot, tempDir } from '@llm-nrm/tooling/test';
import type { ResponseRecord } from '@llm-nrm/core';
import { newReport, type ReadReport } from '../reader.js';
import { readLmEvalHarness, readLmEvalStream } from './readLmEvalHarness.js';
import { lmEvalFileMeta } from './lmEvalFileMeta.js';

const goldenDir = join(repoRoot, 'packages/adapters/test/golden/lmeval');
const LM = 'lm-eval-harness';
const KT = `${LM}/kt-lm-evaluation-harness`;

/** Every lm-eval fixture file (relative to the fixtures folder) and its golden name. */
const FILES: [string, string][] = [
  [`${LM}/lm-eval-pr1567-slurmevals/SlurmEvals/llama/winograndeLogs.json`, 'writeout-winogrande-llama'],
  [`${LM}/lm-eval-pr1567-slurmevals/SlurmEvals/llama13/winogrande_write_out_info.json`, 'writeout-winogrande-llama13'],
  [`${LM}/lm-eval-pr1567-slurmevals/SlurmEvals/mistral/winogrande_write_out_info.json`, 'writeout-winogrande-mistral'],
  [
    `${LM}/lm-eval-fork-bias-classification/bias_classification/results/meta-llama__Meta-Llama-3-8B/samples_bias_classification_2024-06-17T15-44-37.867068.json`,
    'jsonl-in-json-bias-classification',
  ],
  [
    `${LM}/lm-eval-fork-bias-classification/stereotype_classification/results/meta-llama__Meta-Llama-3-8B/samples_stereotype_classification_2024-06-17T16-12-47.023639.json`,
    'jsonl-in-json-stereotype-classification',
  ],
  [
    `${LM}/lm-eval-fork-steer-results/lm_evals/Llama-2-7b-hf/result-steer.jsonl/__data__public_models__huggingface__meta-llama__Llama-2-7b-hf/results_2024-06-03T01-54-41.753933.json`,
    'results-only-steer-llama',
  ],
  [
    `${LM}/lm-eval-fork-steer-results/lm_evals/Mistral-7B-Instruct-v0.2/result_chat-steer.jsonl/__data__public_models__huggingface__mistralai__Mistral-7B-Instruct-v0.2/results_2024-06-03T03-51-50.033525.json`,
    'results-only-steer-mistral',
  ],
  [`${KT}/output/upstage__SOLAR-10.7B-Instruct-v1.0/samples_winogrande_2024-12-23T14-36-36.300029.jsonl`, 'gen-winogrande-solar'],
  [`${KT}/output/LGAI-EXAONE__EXAONE-3.0-7.8B-Instruct/samples_winogrande_2024-12-23T14-45-44.695233.jsonl`, 'gen-winogrande-exaone'],
  [`${KT}/output/gpt-4o/samples_winogrande_2024-12-23T14-29-31.806745.jsonl`, 'gen-winogrande-gpt-4o'],
  [
    `${KT}/output/__vfroot__n22-model__f6e12a6705dc47f5af9f2b6bce90e0d4__93__40__e3564e474cf19dfb7e2fc364fe61__llama3.1-pro16-0827-Inst-nc-chat_241016/samples_winogrande_2024-12-23T14-25-02.822078.jsonl`,
    'gen-winogrande-llama3.1-pro16',
  ],
  [`${KT}/output/meta-llama__Llama-3.1-8B-Instruct/samples_ko_winogrande_2024-11-19T15-07-36.131394.jsonl`, 'gen-ko-winogrande-llama3.1-8b'],
  [`${KT}/output/upstage__SOLAR-10.7B-Instruct-v1.0/samples_ko_winogrande_2024-11-19T16-01-11.737538.jsonl`, 'gen-ko-winogrande-solar'],
  [`${KT}/deprecated/samples_kobest_boolq_2024-11-28T15-32-08.366450.jsonl`, 'broken-kobest-boolq'],
  [`${KT}/deprecated/samples_bbh_cot_fewshot_boolean_expressions_2024-11-21T14-07-13.845760.jsonl`, 'broken-bbh-boolean-expressions'],
  [
    'response-matrices/metabench-lm-eval-samples/harness-results/EleutherAI__pythia-14m/samples_metabench_mmlu_secondary_2024-11-26T10-50-23.349203.jsonl',
    'metabench-mmlu-pythia-14m',
  ],
];

const HEAD = 50;

/** JSON with non-finite numbers as strings (JSON has no -Infinity). */
function stringify(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (typeof x === 'number' && !Number.isFinite(x) ? String(x) : x));
}

function softmaxKey(r: ResponseRecord): number {
  if (r.logprobs === undefined) return r.choice === r.key ? 1 : 0;
  const m = Math.max(...r.logprobs);
  const e = r.logprobs.map((v) => Math.exp(v - m));
  return e[r.key!]! / e.reduce((a, b) => a + b, 0);
}

function relReport(report: ReadReport): ReadReport {
  const rel = (s: string) => s.split(fixturesDir + '/').join('');
  return { records: report.records, skipped: report.skipped.map((s) => ({ ...s, file: rel(s.file) })), notes: report.notes.map(rel) };
}

function goldenText(records: ResponseRecord[], report: ReadReport): string {
  const hash = createHash('sha256');
  for (const r of records) hash.update(stringify(r) + '\n');
  const summary = {
    records: records.length,
    models: [...new Set(records.map((r) => r.model))],
    items: new Set(records.map((r) => r.item)).size,
    soft: records.filter((r) => r.logprobs !== undefined).length,
    hard: records.filter((r) => r.choice !== undefined && r.choice !== null).length,
    missing: records.filter((r) => r.choice === null).length,
    meanKeyProb: records.length ? Number((records.reduce((s, r) => s + softmaxKey(r), 0) / records.length).toFixed(9)) : null,
    sha256: hash.digest('hex'),
  };
  const lines = records.slice(0, HEAD).map(stringify);
  lines.push(stringify({ summary }), stringify({ report: relReport(report) }));
  return lines.join('\n') + '\n';
}

async function collect(gen: AsyncIterable<ResponseRecord>): Promise<ResponseRecord[]> {
  const out: ResponseRecord[] = [];
  for await (const r of gen) out.push(r);
  return out;
}

async function* chunked(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

const tmp = tempDir('llm-nrm-lmeval-golden-');
afterAll(() => tmp.cleanup());

describe('readLmEvalHarness golden files', () => {
  for (const [rel, name] of FILES) {
    describe(name, () => {
      const file = fixture(rel);
      let records: ResponseRecord[] = [];
      let report: ReadReport = newReport();

      it('matches the golden output', async () => {
        report = newReport();
        records = await collect(readLmEvalHarness(file, { report }));
        const actual = goldenText(records, report);
        const golden = join(goldenDir, `${name}.jsonl`);
        const changed = join(goldenDir, `${name}-changed.jsonl`);
        if (process.env.GENERATE_GOLDEN === '1') {
          mkdirSync(goldenDir, { recursive: true });
          writeFileSync(golden, actual);
        }
        const expected = existsSync(golden) ? readFileSync(golden, 'utf8') : '';
        if (actual !== expected) writeFileSync(changed, actual);
        expect(actual, `golden mismatch: diff ${golden} ${changed}`).toBe(expected);
      });

      it('gives the same records through tiny chunks', async () => {
        if (rel.includes('/results_')) return expect(records).toEqual([]);
        const bytes = await readFile(file);
        const meta = await lmEvalFileMeta(file);
        const size = bytes.length < 100_000 ? 1 : 7;
        const r2 = newReport();
        const again = await collect(readLmEvalStream(chunked(bytes, size), meta, { report: r2 }));
        expect(again).toEqual(records);
        expect(r2.skipped).toEqual(report.skipped);
      });

      it('gives the same records from gzip', async () => {
        // Same relative layout in a temp folder (the model comes from results files and folder names).
        const gzFile = join(tmp.dir, `${rel}.gz`);
        mkdirSync(dirname(gzFile), { recursive: true });
        writeFileSync(gzFile, gzipSync(readFileSync(file)));
        for (const sib of [
          'results_2024-12-23T14-36-36.300029.json',
          'results_2024-12-23T14-45-44.695233.json',
          'results_2024-12-23T14-29-31.806745.json',
          'results_2024-12-23T14-25-02.822078.json',
        ]) {
          const src = join(dirname(file), sib);
          if (existsSync(src)) writeFileSync(join(dirname(gzFile), `${sib}.gz`), gzipSync(readFileSync(src)));
        }
        const r3 = newReport();
        const fromGz = await collect(readLmEvalHarness(gzFile, { report: r3 }));
        expect(fromGz).toEqual(records);
        expect(r3.skipped.map((s) => [s.line, s.reason])).toEqual(report.skipped.map((s) => [s.line, s.reason]));
      });
    });
  }

  it('covers every lm-eval fixture file', async () => {
    const { readdirSync, statSync } = await import('node:fs');
    const all: string[] = [];
    const walk = (d: string) => {
      for (const n of readdirSync(d)) {
        const p = join(d, n);
        if (statSync(p).isDirectory()) walk(p);
        else if (/\.jsonl?$/.test(n)) all.push(relative(fixturesDir, p));
      }
    };
    walk(fixture(LM));
    walk(fixture('response-matrices/metabench-lm-eval-samples'));
    const covered = new Set(FILES.map(([r]) => r));
    const kt = ['results_2024-12-23'];
    expect(all.filter((f) => !covered.has(f) && !kt.some((k) => f.includes(k)))).toEqual([]);
  });
});
