// `llm-nrm select` and `llm-nrm report` in-process on a bundle of a small simulated fit (temp dir).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { bankRecords, fit, simulateFleet, toBundle } from '@llm-nrm/core';
import { tempDir } from '@llm-nrm/tooling/test';
import { runCli } from '../../test/runCli.js';

const tmp = tempDir('llm-nrm-cli-select-');
afterAll(() => tmp.cleanup());
afterEach(() => vi.restoreAllMocks());

const run = runCli;

const { bank } = simulateFleet({ models: 14, items: 30, seed: 5 });
const bundlePath = join(tmp.dir, 'bundle.json');
writeFileSync(bundlePath, JSON.stringify(toBundle(fit(bank, { maxIterations: 60 }), { version: 'test' })));
const responses = join(tmp.dir, 'responses.jsonl');
writeFileSync(responses, [...bankRecords(bank)].map((r) => JSON.stringify(r)).join('\n') + '\n');

describe('llm-nrm select', () => {
  it('lists the n most informative items, writes their ids, and checks the ranking on responses', async () => {
    const ids = join(tmp.dir, 'tiny.txt');
    const { code, out } = await run(['select', bundlePath, '--items', '8', '--responses', responses, '-o', ids, '-q']);
    expect(code).toBe(0);
    expect(out).toMatch(/rank\s+item\s+benchmark\s+information/);
    expect(readFileSync(ids, 'utf8').trim().split('\n')).toHaveLength(8);
    expect(out).toMatch(/8 items vs all 30 on 14 LLMs: Kendall 0\.\d{4}/);
  });

  it('refuses responses to items the bundle lacks, naming the first with its line and counting them; --skip-invalid leaves them out', async () => {
    const lines = readFileSync(responses, 'utf8').trim().split('\n');
    // Three LLMs' answers to one item, renamed to an id the bundle lacks.
    const first = JSON.parse(lines[0]!).item as string;
    const strange = lines
      .filter((l) => JSON.parse(l).item === first)
      .slice(0, 3)
      .map((l) => JSON.stringify({ ...JSON.parse(l), item: 'not-in-bundle' }));
    const mixed = join(tmp.dir, 'mixed.jsonl');
    writeFileSync(mixed, [...lines.slice(0, 5), ...strange, ...lines.slice(5)].join('\n') + '\n');
    const refused = await run(['select', bundlePath, '--items', '8', '--responses', mixed, '-q']);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(
      `mixed.jsonl:6: item not in the bundle ${bundlePath}: "not-in-bundle" (3 of ${lines.length + 3} responses; --skip-invalid leaves them out)`,
    );
    const skipped = await run(['select', bundlePath, '--items', '8', '--responses', mixed, '--skip-invalid']);
    expect(skipped.code).toBe(0);
    expect(skipped.err).toContain('skipped 3 responses to items not in the bundle');
    const plain = await run(['select', bundlePath, '--items', '8', '--responses', responses, '-q']);
    expect(skipped.out).toBe(plain.out);
  });

  it('--json gives the ids in information order', async () => {
    // The default is now the range selection; the information ranking is --method information.
    const { code, out } = await run(['select', bundlePath, '--items', '5', '--abilities', 'prior', '--method', 'information', '--json']);
    expect(code).toBe(0);
    const res = JSON.parse(out);
    expect(res.items).toHaveLength(5);
    for (let t = 1; t < 5; t++) expect(res.information[t - 1]).toBeGreaterThanOrEqual(res.information[t]);
  });

  it('names the first 10 flagged items it leaves out and counts the rest (--json lists them all)', async () => {
    // 14 of the 30 items keyed to their option of lowest slope: the fleet's best LLMs do not choose it.
    const b = JSON.parse(readFileSync(bundlePath, 'utf8')) as { items: { key: number; a: number[] }[] };
    for (const it of b.items.slice(0, 14)) it.key = it.a.indexOf(Math.min(...it.a));
    const rekeyed = join(tmp.dir, 'rekeyed.json');
    writeFileSync(rekeyed, JSON.stringify(b));
    const { code, err } = await run(['select', rekeyed, '--items', '8']);
    expect(code).toBe(0);
    const line = err.split('\n').find((l) => l.startsWith('left out '))!;
    const m = /^left out (\d+) flagged items \(--include-flagged keeps them\): (.*); and (\d+) more \(--json lists them all\)$/.exec(line);
    expect(m, line).not.toBeNull();
    expect(m![2]!.split('; ')).toHaveLength(10);
    expect(Number(m![1])).toBe(10 + Number(m![3]));
    const json = JSON.parse((await run(['select', rekeyed, '--items', '8', '--json', '-q'])).out);
    expect(json.leftOut).toHaveLength(Number(m![1]));
  });

  it('by default selects for the whole ability range: distinct items, not simply the top of the information ranking', async () => {
    const range = JSON.parse((await run(['select', bundlePath, '--items', '8', '--json'])).out);
    const top = JSON.parse((await run(['select', bundlePath, '--items', '8', '--method', 'information', '--json'])).out);
    expect(new Set(range.items).size).toBe(8);
    expect(range.items).not.toEqual(top.items);
    // The first pick is the item of highest total log information: one of the informative ones.
    expect(range.information.every((v: number) => v > 0)).toBe(true);
  });
});

describe('llm-nrm report', () => {
  it('prints abilities, information over binary per benchmark and agreement with an external ranking', async () => {
    const csv = join(tmp.dir, 'elo.csv');
    writeFileSync(
      csv,
      'model,score\n' +
        bank.models
          .slice(0, 10)
          .map((m, j) => `${m},${1000 + j}`)
          .join('\n') +
        '\n',
    );
    const { code, out } = await run(['report', bundlePath, '--external', csv]);
    expect(code).toBe(0);
    expect(out).toContain('llm-nrm bank: 14 LLMs, 30 items');
    expect(out).toMatch(/\(all\)\s+30\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+\+\d+\.\d%/);
    expect(out).toMatch(/Agreement with .*elo.csv over 10 matched LLMs/);
    expect(out).toMatch(/llm-nrm theta\s+-?\d\.\d{4}/);
    expect(out).toMatch(/raw accuracy/);
  });

  it('says how many ranking rows match no calibrated LLM, and the first with its line', async () => {
    const csv = join(tmp.dir, 'elo-unmatched.csv');
    writeFileSync(
      csv,
      ['model,score', `${bank.models[0]},1200`, 'openai/gpt-4o,1300', `${bank.models[1]},1100`, 'gpt-4o-mini,1250', `${bank.models[2]},900`].join('\n') + '\n',
    );
    const { code, out } = await run(['report', bundlePath, '--external', csv]);
    expect(code).toBe(0);
    expect(out).toMatch(/Agreement with .*elo-unmatched\.csv over 3 matched LLMs/);
    expect(out).toMatch(/2 of 5 rows of .*elo-unmatched\.csv match no calibrated LLM and are left out; the first: "openai\/gpt-4o" \(line 3\)/);
    const json = await run(['report', bundlePath, '--external', csv, '--json']);
    expect(JSON.parse(json.out).unmatchedExternal).toEqual([
      { model: 'openai/gpt-4o', line: 3 },
      { model: 'gpt-4o-mini', line: 5 },
    ]);
    expect(json.err).toMatch(/warning: 2 of 5 rows .* match no calibrated LLM/);
  });

  it('fails with one clear line on a broken ranking file', async () => {
    const bad = join(tmp.dir, 'bad.csv');
    writeFileSync(bad, 'model,score\na,notanumber\n');
    const { code, err } = await run(['report', bundlePath, '--external', bad]);
    expect(code).toBe(1);
    expect(err).toContain('bad.csv:2: invalid score: "notanumber"');
  });
});
