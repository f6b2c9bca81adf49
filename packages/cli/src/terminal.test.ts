// What users meet in the terminal (issue 27): control characters in ids are escaped wherever the CLI
// prints them, an empty file is said to be empty (naming it), a location is printed once, and a
// ranking's rows that match no LLM are counted. In-process through main(), small seeded inputs.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bankRecords, simulateFleet, type ResponseRecord } from '@llm-nrm/core';
import { writeResponses } from '@llm-nrm/adapters';
import { tempDir } from '@llm-nrm/tooling/test';
import { runCli } from '../test/runCli.js';

const tmp = tempDir('llm-nrm-cli-terminal-');
afterAll(() => tmp.cleanup());

// A model id that shows as `...exe.txt` when a terminal obeys its right-to-left override.
const HOSTILE = 'org/phi4 "quoted" \u202etxt.exe';
const responses = join(tmp.dir, 'r.jsonl');
const bundle = join(tmp.dir, 'b.json');

beforeAll(async () => {
  const { bank } = simulateFleet({ models: 5, items: 20, seed: 4 });
  const first = bank.models[0]!;
  const records: ResponseRecord[] = [...bankRecords(bank)].map((r) => (r.model === first ? { ...r, model: HOSTILE } : r));
  await writeResponses(records, responses);
  const { code, err } = await runCli(['fit', responses, '-o', bundle, '-q']);
  expect(err).toBe('');
  expect(code).toBe(0);
});

/** Raw bidi or C0/C1 controls (newline and tab aside) in text bound for a terminal. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe('ids are printed with their control characters escaped', () => {
  it('fit, score and report tables show \\u202e, never the override itself', async () => {
    for (const args of [
      ['fit', responses, '-o', join(tmp.dir, 'b2.json')],
      ['score', bundle, responses],
      ['report', bundle],
    ]) {
      const { code, out, err } = await runCli(args);
      expect(code).toBe(0);
      expect(out).toContain('org/phi4 "quoted" \\u202etxt.exe');
      expect(out).not.toMatch(RAW_CONTROL);
      expect(err).not.toMatch(RAW_CONTROL);
    }
  });

  it('--json escapes them in the JSON text, which parses back to the id itself', async () => {
    const { code, out } = await runCli(['score', bundle, responses, '--json', '-q']);
    expect(code).toBe(0);
    expect(out).not.toMatch(RAW_CONTROL);
    expect(out).toContain('\\u202etxt.exe');
    expect(JSON.parse(out).llms.map((l: { id: string }) => l.id)).toContain(HOSTILE);
  });

  it('an error that quotes an id escapes it too', async () => {
    const list = join(tmp.dir, 'ids.txt');
    writeFileSync(list, 'nope\u202egpj.exe\n');
    const { code, err } = await runCli(['publish', bundle, '--responses', responses, '--item-list', list, '--render-prompt', '-o', join(tmp.dir, 'pkg')]);
    expect(code).toBe(1);
    expect(err).toContain('ids.txt:1: item "nope\\u202egpj.exe" is not in the bundle');
    expect(err).not.toMatch(RAW_CONTROL);
  });
});

describe('messages', () => {
  it('an empty file is "the file is empty", naming it, for every kind of input', async () => {
    const empty = (name: string) => {
      const p = join(tmp.dir, name);
      writeFileSync(p, '');
      return p;
    };
    const cases: [string[], RegExp][] = [
      [['convert', empty('e.txt'), '-o', join(tmp.dir, 'o.jsonl')], /e\.txt: the file is empty: nothing to read/],
      [['fit', empty('e.jsonl'), '-o', join(tmp.dir, 'o.json')], /e\.jsonl: the file is empty: nothing to read/],
      [['score', bundle, empty('samples_e.jsonl')], /samples_e\.jsonl: the file is empty: nothing to read/],
      [['evaluate', empty('e2.jsonl')], /e2\.jsonl: the file is empty: nothing to read/],
      [['score', empty('e.json'), responses], /e\.json: the file is empty: no calibration bundle/],
      [['report', bundle, '--external', empty('e.csv')], /e\.csv: the file is empty: no model,score rows/],
    ];
    for (const [args, message] of cases) {
      const { code, err } = await runCli(args);
      expect({ args, code }).toEqual({ args, code: 1 });
      expect(err).toMatch(message);
      expect(err).not.toMatch(/unrecognised input|Unexpected end of JSON/);
      // One line: the error, not a list of every format looked for.
      expect(err.trim().split('\n')).toHaveLength(1);
    }
  });

  it('a location is printed once', async () => {
    const list = join(tmp.dir, 'twice.txt');
    writeFileSync(list, '# items\nnot-an-item\n');
    const { code, err } = await runCli(['publish', bundle, '--responses', responses, '--item-list', list, '--render-prompt', '-o', join(tmp.dir, 'pkg2')]);
    expect(code).toBe(1);
    expect(err).toMatch(/twice\.txt:2: item "not-an-item" is not in the bundle/);
    expect(err).not.toMatch(/(\S+:\d+: )\1/);
  });
});
