// `llm-nrm extend` run in-process through main(): a simulated fleet calibrated on its first 150
// items, extended with the other 40, against a full refit of all 190 (temp dir, seeded).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bankRecords, parseBundle, simulateFleet, type CalibrationBundle, type ResponseRecord } from '@llm-nrm/core';
import { pearson } from '@llm-nrm/analysis';
import { tempDir } from '@llm-nrm/tooling/test';
import { runCli } from '../../test/runCli.js';

const tmp = tempDir('llm-nrm-cli-extend-');
afterAll(() => tmp.cleanup());

const N = 150;
const M = 40;
const fleet = simulateFleet({ models: 40, items: N + M, seed: 7 });
const newIds = new Set(fleet.bank.items.slice(N).map((it) => it.id));
const records = [...bankRecords(fleet.bank)];
const write = (name: string, rs: ResponseRecord[]) => {
  const p = join(tmp.dir, name);
  writeFileSync(p, rs.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return p;
};
const oldResponses = write(
  'old.jsonl',
  records.filter((r) => !newIds.has(r.item)),
);
const newResponses = write(
  'new.jsonl',
  records.filter((r) => newIds.has(r.item)),
);
const allResponses = write('all.jsonl', records);
const bundlePath = join(tmp.dir, 'bundle.json');
const fullPath = join(tmp.dir, 'full.json');
const extendedPath = join(tmp.dir, 'extended.json');
let bundle: CalibrationBundle;
let full: CalibrationBundle;
let extended: CalibrationBundle;
let summary: {
  items: { calibrated: number; added: number; total: number };
  newItems: { id: string; difficulty: number; flags: string[] }[];
  fit: { converged: boolean };
};

beforeAll(async () => {
  expect((await runCli(['fit', oldResponses, '-o', bundlePath, '-q'])).code).toBe(0);
  expect((await runCli(['fit', allResponses, '-o', fullPath, '-q'])).code).toBe(0);
  const r = await runCli(['extend', bundlePath, newResponses, '-o', extendedPath, '--json', '-q']);
  expect(r.code, r.err).toBe(0);
  summary = JSON.parse(r.out);
  bundle = parseBundle(readFileSync(bundlePath, 'utf8'));
  full = parseBundle(readFileSync(fullPath, 'utf8'));
  extended = parseBundle(readFileSync(extendedPath, 'utf8'));
});

describe('llm-nrm extend', () => {
  it("keeps the bundle's LLMs, items, globals, priors and fit diagnostics exactly, and appends the new items", () => {
    expect(extended.llms).toEqual(bundle.llms);
    expect(extended.items.slice(0, N)).toEqual(bundle.items);
    expect(extended.globals).toEqual(bundle.globals);
    expect(extended.fit).toEqual(bundle.fit);
    expect(extended.priors).toEqual(bundle.priors);
    expect(extended.parts).toEqual(bundle.parts);
    expect(extended.kMax).toBe(bundle.kMax);
    expect(extended.items.slice(N).map((it) => it.id)).toEqual([...newIds]);
    expect(summary.items).toEqual({ calibrated: N, added: M, total: N + M });
    expect(summary.newItems).toHaveLength(M);
    expect(summary.fit.converged).toBe(true);
    for (const it of extended.items.slice(N)) {
      const spec = fleet.bank.items.find((s) => s.id === it.id)!;
      expect(it.key).toBe(spec.key);
      expect(it.nOptions).toBe(spec.nOptions);
      expect(it.a).toHaveLength(it.nOptions);
      expect(Math.abs(it.a.reduce((s, v) => s + v, 0))).toBeLessThan(1e-9);
    }
  });

  it('records the extension honestly: both commands, every input, a warning naming the new items', () => {
    const p = extended.provenance;
    expect(p.inputs!.slice(0, bundle.provenance.inputs!.length)).toEqual(bundle.provenance.inputs);
    expect(p.inputs!.map((i) => i.path)).toEqual([...bundle.provenance.inputs!.map((i) => i.path), bundlePath, newResponses]);
    expect(p.command).toContain(bundle.provenance.command!);
    expect(p.command).toMatch(/llm-nrm extend|extend /);
    const w = extended.warnings!.find((x) => x.code === 'ITEMS_EXTENDED')!;
    expect(w.items).toEqual([...newIds]);
  });

  it("recovers a full refit's parameters of the new items", () => {
    const byId = new Map(full.items.map((it) => [it.id, it]));
    const added = extended.items.slice(N);
    const refit = added.map((it) => byId.get(it.id)!);
    const rDiff = pearson(
      added.map((it) => it.difficulty),
      refit.map((it) => it.difficulty),
    );
    // The key's slope against the mean option slope: the item's discrimination.
    const keySlope = (it: CalibrationBundle['items'][number]) => it.a[it.key]! - it.a.reduce((s, v) => s + v, 0) / it.nOptions;
    const rSlope = pearson(added.map(keySlope), refit.map(keySlope));
    const aAll = added.flatMap((it) => it.a);
    const rA = pearson(
      aAll,
      refit.flatMap((it) => it.a),
    );
    // Measured: seeds 1, 2, 3, 7 gave r 0.9993-0.9998 (difficulty), 0.9984-0.9995 (key slope),
    // 0.9986-0.9997 (every a); the largest difficulty gap 0.12-0.17 on this scale (40 LLMs, 40 items).
    expect(rDiff).toBeGreaterThan(0.998);
    expect(rSlope).toBeGreaterThan(0.995);
    expect(rA).toBeGreaterThan(0.995);
  });

  it('refuses LLMs the bundle lacks (naming them) unless --skip-unknown-llms, and item ids it holds', async () => {
    const strangerRecords = records.filter((r) => newIds.has(r.item) && r.model === fleet.bank.models[0]).map((r) => ({ ...r, model: 'stranger-llm' }));
    const withStranger = write('stranger.jsonl', [...records.filter((r) => newIds.has(r.item)), ...strangerRecords]);
    const refused = await runCli(['extend', bundlePath, withStranger, '-o', join(tmp.dir, 'x.json')]);
    expect(refused.code).not.toBe(0);
    expect(refused.err).toContain('stranger-llm');
    expect(refused.err).toContain('--skip-unknown-llms');
    const skipped = await runCli(['extend', bundlePath, withStranger, '-o', join(tmp.dir, 'x.json'), '--skip-unknown-llms', '--json']);
    expect(skipped.code, skipped.err).toBe(0);
    expect(JSON.parse(skipped.out).stats.skippedUnknownLlms).toBe(M);
    expect(skipped.err).toContain(`skipped ${M} responses of 1 LLMs not in the bundle`);
    const clash = await runCli(['extend', bundlePath, allResponses, '-o', join(tmp.dir, 'y.json')]);
    expect(clash.code).not.toBe(0);
    expect(clash.err).toContain(`${N} items in ${allResponses} are already in the bundle`);
    expect(clash.err).toContain(fleet.bank.items[0]!.id);
  });

  it('never overwrites an input, and says what it did on stdout', async () => {
    const before = readFileSync(bundlePath, 'utf8');
    const r = await runCli(['extend', bundlePath, newResponses, '-o', bundlePath]);
    expect(r.code).not.toBe(0);
    expect(r.err).toContain('is also an input');
    expect(readFileSync(bundlePath, 'utf8')).toBe(before);
    const t = await runCli(['extend', bundlePath, newResponses, '-o', join(tmp.dir, 'z.json')]);
    expect(t.code, t.err).toBe(0);
    expect(t.out).toContain(`added ${M} items to ${N} (llm-nrm, 40 LLMs held fixed`);
    expect(t.err).toContain(`loaded ${M} new items answered by 40 of the bundle's 40 LLMs`);
  });
});
