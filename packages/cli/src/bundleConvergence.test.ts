// Issue 31: an unconverged fit is said. `fit` refuses to write it unless --allow-unconverged, and
// every reader of such a bundle (score, report, publish, leaderboard's site data) names it first.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bankRecords, parseBundle, simulateFleet, type ResponseRecord } from '@llm-nrm/core';
import { tempDir } from '@llm-nrm/tooling/test';
import { runCli } from '../test/runCli.js';

const tmp = tempDir('llm-nrm-cli-unconverged-');
afterAll(() => tmp.cleanup());

const fleet = simulateFleet({ models: 24, items: 60, seed: 6 });
const labels = (k: number) => Array.from({ length: k }, (_, i) => ` ${String.fromCharCode(65 + i)}`);
const records: ResponseRecord[] = [...bankRecords(fleet.bank)].map((r) => ({
  ...r,
  prompt: `Question about ${r.item}?\nAnswer:`,
  continuations: labels(r.probs!.length),
}));
const file = join(tmp.dir, 'sim.jsonl');
writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
// Two LLMs to score: scoring against the unconverged items is the slow part.
const two = join(tmp.dir, 'two.jsonl');
writeFileSync(
  two,
  records
    .filter((r) => fleet.bank.models.indexOf(r.model) < 2)
    .map((r) => JSON.stringify(r))
    .join('\n') + '\n',
);
const bundlePath = join(tmp.dir, 'unconverged.json');
const FIRST =
  /^warning: .*unconverged\.json: the calibration fit did not converge \(stopped by max-iterations\): it ended an estimated [\d.e+]+ SE from its optimum/;

beforeAll(async () => {
  const res = await runCli(['fit', file, '-o', bundlePath, '--max-iterations', '3', '--allow-unconverged', '-q']);
  expect(res.code).toBe(0);
}, 60_000);

describe('an unconverged fit', () => {
  it('fit exits 1 and writes nothing without --allow-unconverged', async () => {
    const out = join(tmp.dir, 'refused.json');
    const res = await runCli(['fit', file, '-o', out, '--max-iterations', '3', '-q']);
    expect(res.code).toBe(1);
    expect(res.err).toMatch(/llm-nrm: the calibration fit did not converge \(stopped by max-iterations\): it ended an estimated [\d.e+]+ SE from its optimum/);
    expect(res.err).toContain(`nothing was written to ${out}`);
    expect(res.err).toContain('--allow-unconverged');
    expect(existsSync(out)).toBe(false);
  });

  it('with --allow-unconverged the bundle records it: converged false, its distance, an UNCONVERGED warning first', () => {
    const b = parseBundle(readFileSync(bundlePath, 'utf8'), bundlePath);
    expect(b.fit.converged).toBe(false);
    expect(b.fit.distance).toBeGreaterThan(1);
    expect(b.warnings?.[0]?.code).toBe('UNCONVERGED');
  });

  it('score names it on its first line and in --json', async () => {
    const res = await runCli(['score', bundlePath, two, '-q']);
    expect(res.code).toBe(0);
    expect(res.out).toMatch(FIRST);
    const json = await runCli(['score', bundlePath, two, '-q', '--json']);
    const parsed = JSON.parse(json.out);
    expect(Object.keys(parsed)[0]).toBe('calibration');
    expect(parsed.calibration).toMatchObject({ converged: false, settled: false, reason: 'max-iterations' });
    expect(parsed.calibration.distance).toBeGreaterThan(1);
  });

  it('report names it on its first line and in --json', async () => {
    const res = await runCli(['report', bundlePath]);
    expect(res.code).toBe(0);
    expect(res.out).toMatch(FIRST);
    const json = await runCli(['report', bundlePath, '--json']);
    expect(JSON.parse(json.out).calibration).toMatchObject({ converged: false, settled: false });
  });

  it('publish names it on its first line and in --json', async () => {
    const res = await runCli(['publish', bundlePath, '--responses', file, '--items', '10', '-o', join(tmp.dir, 'tiny-a'), '-q']);
    expect(res.code).toBe(0);
    expect(res.out).toMatch(FIRST);
    const json = await runCli(['publish', bundlePath, '--responses', file, '--items', '10', '-o', join(tmp.dir, 'tiny-b'), '-q', '--json']);
    expect(JSON.parse(json.out).calibration).toMatchObject({ converged: false, settled: false });
  }, 60_000);

  it("leaderboard names it first, and the site's manifest carries it as its first warning", async () => {
    const site = join(tmp.dir, 'site');
    const res = await runCli(['leaderboard', bundlePath, '-o', site, '-q']);
    expect(res.code).toBe(0);
    expect(res.out).toMatch(FIRST);
    const manifest = JSON.parse(readFileSync(join(site, 'data/manifest.json'), 'utf8'));
    expect(manifest.fit).toMatchObject({ converged: false, settled: false });
    expect(manifest.fit.distance).toBeGreaterThan(1);
    expect(manifest.warnings[0].code).toBe('UNCONVERGED');
    expect(manifest.warnings[0].message).toMatch(/^The calibration fit did not converge/);
  }, 60_000);

  it('a converged bundle gets no such line', async () => {
    const ok = join(tmp.dir, 'ok.json');
    expect((await runCli(['fit', file, '-o', ok, '-q'])).code).toBe(0);
    const res = await runCli(['report', ok]);
    expect(res.out).not.toContain('did not converge');
    expect(JSON.parse((await runCli(['report', ok, '--json'])).out).calibration).toMatchObject({ settled: true, warning: null });
  }, 60_000);
});
