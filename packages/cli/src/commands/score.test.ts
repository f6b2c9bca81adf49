// `llm-nrm score` run in-process through main(): calibrate on 16 simulated LLMs, then score the
// calibration responses themselves and 5 held-out LLMs of the same fleet (temp dir, seeded).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bankRecords, parseBundle, simulateFleet, type CalibrationBundle, type ResponseRecord } from '@llm-nrm/core';
import { spearmanRho } from '@llm-nrm/analysis';
import { tempDir } from '@llm-nrm/tooling/test';
import { runCli } from '../../test/runCli.js';

const tmp = tempDir('llm-nrm-cli-score-');
afterAll(() => tmp.cleanup());

const fleet = simulateFleet({ models: 21, items: 60, seed: 5 });
const heldOut = new Set(fleet.bank.models.slice(16));
const records = [...bankRecords(fleet.bank)];
const write = (name: string, rs: ResponseRecord[]) => {
  const p = join(tmp.dir, name);
  writeFileSync(p, rs.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return p;
};
const calibration = write(
  'calibration.jsonl',
  records.filter((r) => !heldOut.has(r.model)),
);
const fresh = write(
  'new.jsonl',
  records.filter((r) => heldOut.has(r.model)),
);
const bundlePath = join(tmp.dir, 'bundle.json');
let bundle: CalibrationBundle;

beforeAll(async () => {
  const { code } = await runCli(['fit', calibration, '-o', bundlePath, '-q']);
  expect(code).toBe(0);
  bundle = parseBundle(readFileSync(bundlePath, 'utf8'));
});

describe('llm-nrm score', () => {
  it('scoring the calibration responses keeps the calibrated order', async () => {
    // 60 items: 'auto' would hold the nuisance parameters at the fleet's; re-scoring with the full
    // per-LLM fit is what must give back the calibration.
    const { code, out } = await runCli(['score', bundlePath, calibration, '--nuisance', 'fit', '--json', '-q']);
    expect(code).toBe(0);
    const res = JSON.parse(out);
    expect(res.llms).toHaveLength(16);
    const cal = res.llms.map((l: { id: string }) => bundle.llms.find((c) => c.id === l.id)!.theta);
    expect(
      spearmanRho(
        res.llms.map((l: { theta: number }) => l.theta),
        cal,
      ),
    ).toBeGreaterThan(0.98);
    // Calibration fixes the scale by standardising the fleet's thetas and scoring uses only a weak
    // N(0, 3^2) prior, so re-scoring the calibration responses lands on the calibrated thetas
    // (up to the small pull of that prior), well inside one standard error.
    res.llms.forEach((l: { theta: number; se: number }, j: number) => {
      expect(l.se).toBeGreaterThan(0);
      expect(Math.abs(l.theta - cal[j]!)).toBeLessThan(0.25 * l.se);
    });
  });

  it('places new LLMs on the leaderboard with rank and percentile, and writes -o', async () => {
    const output = join(tmp.dir, 'scores.json');
    const { code, out, err } = await runCli(['score', bundlePath, fresh, '-o', output]);
    expect(code).toBe(0);
    expect(err).toContain('scored 5 LLMs on 300 cells against 60 calibrated items (llm-nrm, 16 calibrated LLMs)');
    expect(out).toMatch(/model\s+theta\s+se\s+sharpness\s+cells\s+accuracy\s+rank\s+percentile/);
    for (const id of heldOut) expect(out).toMatch(new RegExp(`${id}\\s+-?\\d\\.\\d{4}\\s+±\\d\\.\\d{4}\\s.*\\d+ of 17\\s+\\d+\\.\\d%`));
    const saved = JSON.parse(readFileSync(output, 'utf8'));
    expect(saved.llms).toHaveLength(5);
    for (const l of saved.llms) {
      const higher = bundle.llms.filter((c) => c.theta > l.theta).length;
      expect(l.rank).toBe(higher + 1);
      expect(l.percentile).toBeCloseTo((100 * (16 - higher)) / 16, 6);
      expect(out).toContain(`${l.id}: `);
    }
    // Scores follow the simulated abilities of the held-out LLMs.
    const truth = (id: string) => fleet.truth[fleet.layout.theta + fleet.bank.models.indexOf(id)]!;
    const best = saved.llms.reduce((a: { id: string }, b: { id: string }) => (truth(b.id) > truth(a.id) ? b : a));
    const worst = saved.llms.reduce((a: { id: string }, b: { id: string }) => (truth(b.id) < truth(a.id) ? b : a));
    expect(best.theta).toBeGreaterThan(worst.theta);
  });

  it('responses to items not in the bundle: a clear error, or skipped and counted with --skip-invalid', async () => {
    const rs = records.filter((r) => heldOut.has(r.model)).slice(0, 10);
    rs.splice(3, 0, { model: 'sim-llm-020', item: 'other/7', key: 0, probs: [0.3, 0.7] });
    const file = write('unknown.jsonl', rs);
    const bad = await runCli(['score', bundlePath, file]);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain(`${file}:4: item not in the bundle ${bundlePath}: "other/7"`);
    expect(bad.err).toContain('--skip-invalid');
    const skipped = await runCli(['score', bundlePath, file, '--skip-invalid', '--json']);
    expect(skipped.code).toBe(0);
    expect(skipped.err).toContain('skipped 1 responses to items not in the bundle');
    const res = JSON.parse(skipped.out);
    expect(res.stats.unknownItems).toBe(1);
    expect(res.stats.cells).toBe(10);
  });

  it('an invalid bundle fails with exit code 1', async () => {
    const broken = join(tmp.dir, 'broken.json');
    writeFileSync(broken, JSON.stringify({ schemaVersion: 1 }));
    const { code, err } = await runCli(['score', broken, fresh]);
    expect(code).toBe(1);
    expect(err).toContain(`${broken} is not a valid calibration bundle`);
  });
});
