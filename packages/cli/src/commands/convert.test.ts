// `llm-nrm convert` run in-process through main() on real fixture folders (read in place), writing
// only to a temp dir; stdout/stderr are captured.
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { ResponseRecord } from '@llm-nrm/core';
import { readAnyResponses, readResponses } from '@llm-nrm/adapters';
import { fixture, tempDir } from '@llm-nrm/tooling/test';
import { runCli } from '../../test/runCli.js';

const tmp = tempDir('llm-nrm-cli-convert-');
afterAll(() => tmp.cleanup());
afterEach(() => vi.restoreAllMocks());

/** Run the CLI, returning its exit code and what it printed. */
const run = runCli;

async function read(path: string): Promise<ResponseRecord[]> {
  const out: ResponseRecord[] = [];
  for await (const r of readResponses(path)) out.push(r);
  return out;
}

describe('llm-nrm convert', () => {
  it('converts HELM run folders to Parquet and prints a models x benchmarks table with skips', async () => {
    const output = join(tmp.dir, 'helm.parquet');
    const { code, out, err } = await run(['convert', fixture('helm/every_eval_ever'), '-o', output]);
    expect(err).toContain(`wrote 20 records to ${output}`);
    expect(code).toBe(0);
    const records = await read(output);
    expect(records).toHaveLength(20);
    expect(new Set(records.map((r) => r.model)).size).toBe(2);
    expect(records.every((r) => r.choice !== undefined)).toBe(true);
    // The result is the file: the summary is a note on stderr, stdout stays empty.
    expect(out).toBe('');
    expect(err).toMatch(/\(helm\)/);
    expect(err).toMatch(/model\s+benchmark\s+items\s+hard\s+soft\s+missing\s+leakage/);
    for (const m of new Set(records.map((r) => r.model))) expect(err).toContain(m);
    expect(err).toContain('20 records; 2 model x benchmark pairs');
    expect(err).toMatch(/skipped 1 unit in 1 file:\n {2}1 in .*narrative_qa.*\nfirst reasons:\n.*narrative_qa.*not a multiple-choice run/);
    // -q silences it all.
    const quiet = await run(['convert', fixture('helm/every_eval_ever'), '-o', output, '-q']);
    expect([quiet.code, quiet.out, quiet.err]).toEqual([0, '', '']);
  });

  it('--json prints the summary as JSON; NAEP rotations to gzipped JSON Lines', async () => {
    const output = join(tmp.dir, 'naep.jsonl.gz');
    const { code, out } = await run(['convert', fixture('response-matrices/mainlp-llm-psychometrics'), '-o', output, '--json', '-q']);
    expect(code).toBe(0);
    const summary = JSON.parse(out);
    expect(summary.output).toBe(output);
    expect(summary.inputs).toEqual([{ path: fixture('response-matrices/mainlp-llm-psychometrics'), format: 'naep-rotations' }]);
    const records = await read(output);
    expect(records).toHaveLength(summary.records);
    const row = summary.byModelBenchmark[0];
    expect(row.soft).toBe(row.items * 4);
    expect(records.every((r) => r.logprobs !== undefined && r.position !== undefined)).toBe(true);
  });

  it('writes records as they are read, and reads whole again where an id names two contents: the records readAnyResponses gives', async () => {
    // One content an id (the NAEP rotations): streamed, the records of the whole read in its order.
    const naep = fixture('response-matrices/mainlp-llm-psychometrics');
    const single = join(tmp.dir, 'naep-streamed.parquet');
    expect((await run(['convert', naep, '-o', single, '-q'])).code).toBe(0);
    expect(await read(single)).toEqual((await readAnyResponses(naep)).records);
    // Two winogrande data sets numbering items alike (real harness outputs): the stream stops at the
    // second content, and the whole read splits the colliding ids as readAnyResponses does.
    const dir = join(tmp.dir, 'wino');
    mkdirSync(join(dir, 'gpt-4o'), { recursive: true });
    mkdirSync(join(dir, 'llama'));
    const gpt = 'lm-eval-harness/kt-lm-evaluation-harness/output/gpt-4o/samples_winogrande_2024-12-23T14-29-31.806745.jsonl';
    symlinkSync(fixture(gpt), join(dir, 'gpt-4o', 'samples_winogrande_2024-12-23T14-29-31.806745.jsonl'));
    symlinkSync(
      fixture('lm-eval-harness/lm-eval-pr1567-slurmevals/SlurmEvals/llama13/winogrande_write_out_info.json'),
      join(dir, 'llama', 'winogrande_write_out_info.json'),
    );
    const whole = await readAnyResponses(dir);
    expect(whole.itemVersions.length).toBeGreaterThan(0);
    for (const ext of ['jsonl', 'jsonl.gz', 'arrow', 'parquet']) {
      const split = join(tmp.dir, `wino.${ext}`);
      const res = await run(['convert', dir, '-o', split]);
      expect(res.code).toBe(0);
      expect(res.err).toMatch(/warning: \d+ item ids name different content in different records \(each version written under its own id\)/);
      const written = await read(split);
      expect(written).toEqual(whole.records);
      expect(written.some((r) => /^winogrande\/\d+#[0-9a-z]{6}$/.test(r.item))).toBe(true);
      expect(res.err).toContain(`wrote ${written.length} records to ${split}`);
    }
    // The stopped writes left no temporary file behind (`.<name>.<pid>.<time>.tmp`).
    expect(readdirSync(tmp.dir).filter((f) => f.startsWith('.wino.'))).toEqual([]);
  });

  it('a damaged line after thousands of good ones: every container fails with its file and line, and nothing is written', async () => {
    const good = Array.from({ length: 5000 }, (_, i) => JSON.stringify({ model: `m${i % 7}`, item: `q${Math.floor(i / 7)}`, key: 0, probs: [0.6, 0.4] }));
    const input = join(tmp.dir, 'damaged-late.jsonl');
    writeFileSync(input, [...good, '{"model": "m", "item": broken', ...good.slice(0, 10)].join('\n') + '\n');
    for (const ext of ['jsonl', 'jsonl.gz', 'arrow', 'parquet']) {
      const output = join(tmp.dir, `late-out.${ext}`);
      const res = await run(['convert', input, '-o', output, '-q']);
      expect(res.code).toBe(1);
      expect(res.err).toMatch(/damaged-late\.jsonl:5001: malformed JSON/);
      expect(existsSync(output)).toBe(false);
    }
    expect(readdirSync(tmp.dir).filter((f) => f.startsWith('.late-out.'))).toEqual([]);
  });

  it('--from names the reader; a wrong extension fails before reading, with exit code 1', async () => {
    const bad = await run(['convert', fixture('openai-evals'), '-o', join(tmp.dir, 'x.csv')]);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/unknown output extension: .*x\.csv/);
    expect(existsSync(join(tmp.dir, 'x.csv'))).toBe(false);
    const usage = await run(['convert', fixture('openai-evals'), '--from', 'csv', '-o', join(tmp.dir, 'y.jsonl')]);
    // A usage error (main's yargs .fail), not a conversion.
    expect(usage.code).toBeGreaterThan(0);
    expect(usage.err).toMatch(/Invalid values/);
    const unknown = await run(['convert', fixture('helm/every_eval_ever/narrative_qa-model=openai_gpt2/stats.json'), '-o', join(tmp.dir, 'z.jsonl')]);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toMatch(/stats\.json: unrecognised input/);
  });

  it('--help teaches, with examples', async () => {
    // main() runs yargs with exitProcess off: --help returns 0 and never ends the process.
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    const { code, out } = await run(['convert', '--help']);
    expect(code).toBe(0);
    expect(exit).not.toHaveBeenCalled();
    expect(out).toContain('Examples:');
    expect(out).toContain('--score');
    expect(out).toContain('convert results/ -o responses.parquet');
    expect(out).toMatch(/-Infinity/);
  });
});
