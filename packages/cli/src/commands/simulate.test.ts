// `llm-nrm simulate` run in-process through main(), writing only to a temp dir (seeded).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ResponseRecord } from '@llm-nrm/core';
import { readResponses } from '@llm-nrm/adapters';
import { tempDir } from '@llm-nrm/tooling/test';
import { runCli } from '../../test/runCli.js';

const tmp = tempDir('llm-nrm-cli-simulate-');
afterAll(() => tmp.cleanup());

async function read(path: string): Promise<ResponseRecord[]> {
  const out: ResponseRecord[] = [];
  for await (const r of readResponses(path)) out.push(r);
  return out;
}

describe('llm-nrm simulate', () => {
  it('writes models x items records and the true parameters', async () => {
    const output = join(tmp.dir, 'fleet.jsonl.gz');
    const truthPath = join(tmp.dir, 'truth.json');
    const { code, out, err } = await runCli(['simulate', '--models', '5', '--items', '30', '--seed', '4', '-o', output, '--truth', truthPath]);
    expect(code).toBe(0);
    expect(err).toContain(`wrote 150 records (5 LLMs x 30 items) to ${output}`);
    expect(out).toMatch(/^150 records: 5 LLMs x 30 items/);
    const records = await read(output);
    expect(records).toHaveLength(150);
    expect(new Set(records.map((r) => r.model)).size).toBe(5);
    expect(records.every((r) => r.probs !== undefined && Math.abs(r.probs.reduce((a, b) => a + b, 0) - 1) < 1e-5)).toBe(true);
    const truth = JSON.parse(readFileSync(truthPath, 'utf8'));
    expect(truth.llms).toHaveLength(5);
    expect(truth.items).toHaveLength(30);
    for (const it of truth.items) {
      expect(it.a).toHaveLength(it.nOptions);
      expect(Math.abs(it.a.reduce((s: number, v: number) => s + v, 0))).toBeLessThan(1e-9);
    }
    for (const l of truth.llms) expect(l.sharpness).toBeGreaterThan(0);
    expect(truth.globals.kappa).toBeGreaterThan(0);
    // The same seed gives the same fleet.
    const again = join(tmp.dir, 'again.jsonl.gz');
    await runCli(['simulate', '--models', '5', '--items', '30', '--seed', '4', '-o', again, '-q']);
    expect(await read(again)).toEqual(records);
  });

  it('rotations, missing and hard answers; --json summary', async () => {
    const output = join(tmp.dir, 'rot.parquet');
    const { code, out } = await runCli(['simulate', '--models', '4', '--items', '20', '--rotations', '3', '--hard', '1', '-o', output, '--json', '-q']);
    expect(code).toBe(0);
    const summary = JSON.parse(out);
    expect(summary.records).toBe(4 * 20 * 3);
    const records = await read(output);
    expect(records).toHaveLength(240);
    expect(records.every((r) => r.choice !== undefined)).toBe(true);
    expect(records.filter((r) => r.position !== undefined).length).toBe(160);
    const sparse = join(tmp.dir, 'sparse.jsonl');
    await runCli(['simulate', '--models', '10', '--items', '40', '--missing', '0.5', '-o', sparse, '-q']);
    const n = (await read(sparse)).length;
    expect(n).toBeGreaterThan(120);
    expect(n).toBeLessThan(280);
  });

  it('rejects a bad extension or size before simulating', async () => {
    const bad = await runCli(['simulate', '-o', join(tmp.dir, 'x.csv')]);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/unknown output extension: .*x\.csv/);
    const zero = await runCli(['simulate', '--models', '0', '-o', join(tmp.dir, 'z.jsonl')]);
    expect(zero.code).toBe(1);
    expect(zero.err).toContain('invalid --models: 0');
    expect(existsSync(join(tmp.dir, 'z.jsonl'))).toBe(false);
  });
});
