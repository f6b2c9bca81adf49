// Detection over every real fixture file and folder (read in place, never copied), plus synthetic
// inputs written to a temp dir for the cases the fixtures lack (tidy, gzip, broken JSON).
import { readdirSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { LlmNrmError } from '@llm-nrm/core';
import { fixture, fixturesDir, tempDir } from '@llm-nrm/tooling/test';
import { detectFormat, detectInputs, firstObjectKeys } from './detect.js';
import type { FormatName } from './reader.js';
import { writeResponses } from './tidy/writeResponses.js';

/** Every file under a fixture folder except the SOURCES.md/README.md notes. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && !d.name.endsWith('.md'))
    .map((d) => join(d.parentPath, d.name))
    .sort();
}

/** HELM files that are run data but not a run by themselves (readHelm refuses them too). */
const HELM_SIDE_FILES = /\/(scenario|stats|per_instance_stats)\.json$/;

describe('detectFormat on the real fixtures', () => {
  const folders: [string, FormatName][] = [
    ['lm-eval-harness', 'lm-eval-harness'],
    ['lm-eval-harness/lm-eval-pr1567-slurmevals', 'lm-eval-harness'],
    ['lm-eval-harness/lm-eval-fork-steer-results', 'lm-eval-harness'],
    ['lm-eval-harness/kt-lm-evaluation-harness/output/gpt-4o', 'lm-eval-harness'],
    ['helm', 'helm'],
    ['helm/every_eval_ever', 'helm'],
    ['inspect', 'inspect'],
    ['inspect/every_eval_ever', 'inspect'],
    ['openai-evals', 'openai-evals'],
    ['response-matrices/mainlp-llm-psychometrics', 'naep-rotations'],
    ['response-matrices/metabench-lm-eval-samples', 'lm-eval-harness'],
  ];
  for (const [dir, format] of folders) {
    it(`folder ${dir} is ${format}`, async () => {
      expect(await detectFormat(fixture(dir))).toBe(format);
    });
  }

  it('every HELM run folder is helm', async () => {
    const runs = readdirSync(fixture('helm/every_eval_ever'));
    expect(runs).toHaveLength(3);
    for (const run of runs) expect(await detectFormat(fixture('helm/every_eval_ever', run))).toBe('helm');
  });

  const expectedFile = (rel: string): FormatName | undefined => {
    if (rel.startsWith('lm-eval-harness/')) return 'lm-eval-harness';
    if (rel.startsWith('helm/')) return HELM_SIDE_FILES.test(`/${rel}`) ? undefined : 'helm';
    if (rel.startsWith('inspect/')) return 'inspect';
    if (rel.startsWith('openai-evals/')) return 'openai-evals';
    if (rel.startsWith('response-matrices/mainlp')) return 'naep-rotations';
    if (rel.startsWith('response-matrices/metabench')) return 'lm-eval-harness';
    throw new Error(`no expectation for ${rel}`);
  };

  it('every fixture file is recognised as its harness (HELM side files refused by name)', async () => {
    const files = filesUnder(fixturesDir);
    expect(files.length).toBeGreaterThan(70);
    const wrong: string[] = [];
    for (const f of files) {
      const rel = relative(fixturesDir, f);
      const want = expectedFile(rel);
      let got: string;
      try {
        got = await detectFormat(f);
      } catch (e) {
        got = `error ${(e as LlmNrmError).code}`;
      }
      if (got !== (want ?? 'error FORMAT')) wrong.push(`${rel}: ${got}, expected ${want ?? 'error FORMAT'}`);
    }
    expect(wrong).toEqual([]);
  });

  it('says what it looked for when nothing matches, naming the file', async () => {
    const f = fixture('helm/every_eval_ever/narrative_qa-model=openai_gpt2/stats.json');
    const e = await detectFormat(f).catch((x: unknown) => x as LlmNrmError);
    expect(e).toBeInstanceOf(LlmNrmError);
    expect((e as LlmNrmError).code).toBe('FORMAT');
    expect((e as LlmNrmError).file).toBe(f);
    expect((e as LlmNrmError).message).toMatch(/unrecognised input.*looked for tidy records.*HELM run folder.*--from/);
  });

  it('refuses a mixed folder, listing what it found', async () => {
    const e = (await detectFormat(fixture('response-matrices')).catch((x: unknown) => x)) as LlmNrmError;
    expect(e).toBeInstanceOf(LlmNrmError);
    expect(e.message).toMatch(/mixed formats in one folder: .*; give the subfolders separately or pass --from/);
    expect(e.message).toMatch(/lm-eval-harness \(1\)/);
    expect(e.message).toMatch(/naep-rotations \(42\)/);
  });

  it('detectInputs splits a mixed folder into single-format inputs', async () => {
    const inputs = await detectInputs(fixturesDir);
    const rel = inputs.map((i) => [relative(fixturesDir, i.path), i.format]);
    expect(rel).toEqual([
      ['helm', 'helm'],
      ['inspect', 'inspect'],
      ['lm-eval-harness', 'lm-eval-harness'],
      ['openai-evals', 'openai-evals'],
      ['response-matrices/mainlp-llm-psychometrics', 'naep-rotations'],
      ['response-matrices/metabench-lm-eval-samples', 'lm-eval-harness'],
    ]);
  });

  it('--from overrides detection, and an unknown name is refused', async () => {
    const f = fixture('helm/every_eval_ever/narrative_qa-model=openai_gpt2/stats.json');
    expect(await detectInputs(f, 'helm')).toEqual([{ path: f, format: 'helm' }]);
    await expect(detectInputs(f, 'csv' as FormatName)).rejects.toThrow(/unknown format: "csv"/);
  });
});

describe('detectFormat on synthetic inputs', () => {
  const tmp = tempDir('llm-nrm-detect-');
  afterAll(() => tmp.cleanup());
  const rec = { model: 'm', item: 'i', key: 0, probs: [0.5, 0.5] };

  it('recognises tidy files in every container, gzip included', async () => {
    for (const name of ['r.jsonl', 'r.jsonl.gz', 'r.arrow', 'r.parquet']) {
      const path = join(tmp.dir, name);
      await writeResponses([rec], path);
      expect(await detectFormat(path)).toBe('tidy');
    }
    expect(await detectFormat(tmp.dir)).toBe('tidy');
  });

  it('sniffs content under a neutral name: gzip lm-eval, OpenAI events, Inspect JSON, broken records', async () => {
    const dir = join(tmp.dir, 'neutral');
    mkdirSync(dir);
    const cases: [string, string | Uint8Array, FormatName][] = [
      ['a.json.gz', gzipSync('{"doc_id": 3, "doc": {}, "target": "1"}\n'), 'lm-eval-harness'],
      ['b.jsonl', '{"run_id": "x", "event_id": 0, "type": "match", "data": {}}\n', 'openai-evals'],
      ['c.json', '{\n  "version": 2,\n  "status": "started",\n  "eval": {"task": "t"}\n', 'inspect'],
      ['d.jsonl', '{"doc_id": 0, "doc": {"q": "line one\nbroken', 'lm-eval-harness'],
      ['e.json', '[\n {"doc_id": 0, "prompt_0": "x"}', 'lm-eval-harness'],
    ];
    for (const [name, content, format] of cases) {
      writeFileSync(join(dir, name), content);
      expect(await detectFormat(join(dir, name))).toBe(format);
    }
  });

  it('reads keys of the first object only, through strings, nesting and escapes', () => {
    expect([...firstObjectKeys('{"a": {"x": 1}, "b": "q\\": 2", "c": [ {"y": 0} ]}')]).toEqual(['a', 'b', 'c']);
    expect([...firstObjectKeys('[{"doc_id": 1}, {"other": 2}]')]).toEqual(['doc_id']);
    expect(firstObjectKeys('version https://git-lfs.github.com/spec/v1').size).toBe(0);
    expect(statSync(tmp.dir).isDirectory()).toBe(true);
  });
});
