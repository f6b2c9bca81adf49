// `llm-nrm fit` run in-process through main() on a small simulated responses file (temp dir, seeded).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bankRecords, parseBundle, simulateFleet } from '@llm-nrm/core';
import { spearmanRho } from '@llm-nrm/analysis';
import { tempDir } from '@llm-nrm/tooling/test';
import { runCli } from '../../test/runCli.js';

const tmp = tempDir('llm-nrm-cli-fit-');
afterAll(() => tmp.cleanup());

const fleet = simulateFleet({ models: 16, items: 60, seed: 3 });
const file = join(tmp.dir, 'sim.jsonl');
writeFileSync(file, [...bankRecords(fleet.bank)].map((r) => JSON.stringify(r)).join('\n') + '\n');
const trueTheta = new Map(fleet.bank.models.map((id, j) => [id, fleet.truth[fleet.layout.theta + j]!]));

describe('llm-nrm fit', () => {
  it('writes a valid bundle with provenance whose thetas follow the truth, and prints the leaderboard', async () => {
    const output = join(tmp.dir, 'bundle.json');
    const { code, out, err } = await runCli(['fit', file, '-o', output]);
    expect(err).toContain('loaded 16 LLMs x 60 items');
    expect(code).toBe(0);
    const bundle = parseBundle(readFileSync(output, 'utf8'), output);
    expect(bundle.model).toBe('llm-nrm');
    expect(bundle.llms).toHaveLength(16);
    const rho = spearmanRho(
      bundle.llms.map((l) => l.theta),
      bundle.llms.map((l) => trueTheta.get(l.id)!),
    );
    expect(rho).toBeGreaterThan(0.9);
    expect(bundle.llms.every((l) => l.se !== null && l.se > 0)).toBe(true);
    const sha = createHash('sha256').update(readFileSync(file)).digest('hex');
    expect(bundle.provenance.inputs).toEqual([{ path: file, sha256: sha }]);
    expect(bundle.provenance.version).toBe(JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version);
    expect(bundle.provenance.command).toBe(`llm-nrm fit ${file} -o ${output}`);
    expect(Number.isNaN(Date.parse(bundle.provenance.createdAt))).toBe(false);
    expect(out).toMatch(/rank\s+model\s+theta\s+se\s+sharpness\s+accuracy\s+cells/);
    // Best first: the first row is the LLM with the highest fitted theta.
    const best = bundle.llms.reduce((a, b) => (b.theta > a.theta ? b : a));
    expect(out).toMatch(new RegExp(`\\n\\s*1\\s+${best.id}\\s`));
    for (const k of ['loss', 'iterations', 'passes', 'seconds', 'converged', 'optimizer', 'engine']) expect(out).toMatch(new RegExp(`\\n  ${k}\\s`));
  });

  it('--engine tfjs fits on TensorFlow.js to the ts fit and records the engine; an unknown engine is a usage error', async () => {
    const ts = join(tmp.dir, 'b-ts.json');
    const tf = join(tmp.dir, 'b-tfjs.json');
    expect((await runCli(['fit', file, '--model', '2pl', '--engine', 'ts', '-o', ts, '-q'])).code).toBe(0);
    const res = await runCli(['fit', file, '--model', '2pl', '--engine', 'tfjs', '-o', tf, '-q']);
    expect(res.code).toBe(0);
    const a = parseBundle(readFileSync(ts, 'utf8'));
    const b = parseBundle(readFileSync(tf, 'utf8'));
    expect(a.fit.engine).toBe('ts');
    expect(b.fit.engine).toBe('tfjs');
    expect(Math.abs(b.fit.loss - a.fit.loss)).toBeLessThan(1e-5 * a.fit.loss);
    const bad = await runCli(['fit', file, '--engine', 'cuda', '-o', join(tmp.dir, 'x.json')]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('cuda');
  });

  it('--json summary; binary models, ablations, Adam and -q', async () => {
    const output = join(tmp.dir, 'b-2pl.json');
    const res = await runCli(['fit', file, '--model', '2pl', '-o', output, '--json', '-q', '--seed', '7']);
    expect(res.code).toBe(0);
    expect(res.err).toBe('');
    const summary = JSON.parse(res.out);
    expect(summary.model).toBe('2pl');
    expect(summary.llms).toHaveLength(16);
    expect(summary.llms.map((l: { rank: number }) => l.rank)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
    expect(summary.provenance.seed).toBe(7);
    expect(parseBundle(readFileSync(output, 'utf8')).items[0]!.irt).toBeDefined();

    const ablated = join(tmp.dir, 'b-ablated.json');
    const ab = await runCli(['fit', file, '--no-sharpness', '--no-fallback', '--optimizer', 'adam', '--steps', '40', '-o', ablated, '-q']);
    expect(ab.code).toBe(0);
    const b = parseBundle(readFileSync(ablated, 'utf8'));
    expect(b.parts).toEqual({ sharpness: false, position: true, fallback: false });
    expect(b.fit.optimizer).toBe('adam');
    expect(b.fit.iterations).toBe(40);
    expect(ab.out).toContain('LLM-NRM (without sharpness, fallback) leaderboard');
  });

  it("--se twin (the default) and --se quasi: the same thetas, each mode's SEs, recorded in the bundle; a mode not known is a usage error", async () => {
    const quasi = join(tmp.dir, 'b-quasi.json');
    const twin = join(tmp.dir, 'b-twin.json');
    const named = join(tmp.dir, 'b-twin-named.json');
    expect((await runCli(['fit', file, '--se', 'quasi', '-o', quasi, '-q'])).code).toBe(0);
    expect((await runCli(['fit', file, '-o', twin, '-q'])).code).toBe(0);
    expect((await runCli(['fit', file, '--se', 'twin', '-o', named, '-q'])).code).toBe(0);
    expect(parseBundle(readFileSync(named, 'utf8')).llms.map((l) => l.se)).toEqual(parseBundle(readFileSync(twin, 'utf8')).llms.map((l) => l.se));
    const a = parseBundle(readFileSync(quasi, 'utf8'));
    const b = parseBundle(readFileSync(twin, 'utf8'));
    expect(a.fit.seMode).toBe('quasi');
    expect(b.fit.seMode).toBe('twin');
    expect(b.llms.map((l) => l.theta)).toEqual(a.llms.map((l) => l.theta));
    expect(b.llms.some((l, j) => l.se !== a.llms[j]!.se)).toBe(true);
    expect(b.llms.every((l) => l.se !== null && l.se > 0)).toBe(true);
    const bad = await runCli(['fit', file, '--se', 'bootstrap', '-o', join(tmp.dir, 'y.json')]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('bootstrap');
  });

  it('an all-hard bank: sharpness held at 1 and the guessing gate left out, both said in the bundle and on stderr', async () => {
    const hard = simulateFleet({ models: 12, items: 80, hard: 1, seed: 5 });
    const input = join(tmp.dir, 'hard.jsonl');
    writeFileSync(input, [...bankRecords(hard.bank)].map((r) => JSON.stringify(r)).join('\n') + '\n');
    const output = join(tmp.dir, 'hard-bundle.json');
    const { code, err } = await runCli(['fit', input, '-o', output]);
    expect(code).toBe(0);
    expect(err).toContain('guessing fallback left out');
    const bundle = parseBundle(readFileSync(output, 'utf8'), output);
    expect((bundle.warnings ?? []).map((w) => w.code)).toEqual(expect.arrayContaining(['SHARPNESS_FIXED', 'FALLBACK_OFF', 'ITEM_PRIOR_HARD']));
    expect(bundle.llms.every((l) => l.sharpness === 1)).toBe(true);
    expect(bundle.priors?.itemSd).toBe(2);
    expect(bundle.fit.converged).toBe(true);
    // A family without a fallback (NRM) on the same bank has nothing left out to say.
    const nrmOut = join(tmp.dir, 'hard-nrm.json');
    const nrm = await runCli(['fit', input, '--model', 'nrm', '-o', nrmOut, '-q']);
    expect(nrm.code).toBe(0);
    expect((parseBundle(readFileSync(nrmOut, 'utf8')).warnings ?? []).map((w) => w.code)).not.toContain('FALLBACK_OFF');
  });

  it('a bad responses file fails with exit code 1 naming the file and line', async () => {
    const bad = join(tmp.dir, 'bad.jsonl');
    writeFileSync(
      bad,
      [
        { model: 'm1', item: 'i1', key: 0, probs: [0.5, 0.5] },
        { model: 'm2', item: 'i1', key: 0, probs: [0.6, 0.4] },
        { model: 'm1', item: 'i2', key: 1, probs: [-0.2, 1.2] },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n') + '\n',
    );
    const output = join(tmp.dir, 'never.json');
    const { code, err } = await runCli(['fit', bad, '-o', output]);
    expect(code).toBe(1);
    expect(err).toContain(`${bad}:3:`);
    expect(err).toMatch(/-0\.2/);
    expect(existsSync(output)).toBe(false);
  });

  it('usage errors exit 2 without running the fit', async () => {
    const missing = await runCli(['fit', file]);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/Missing required argument: output/);
    expect(missing.err).not.toContain('loaded');
    const output = join(tmp.dir, 'usage.json');
    const wrong = await runCli(['fit', file, '-o', output, '--model', '5pl']);
    expect(wrong.code).toBe(2);
    expect(wrong.err).toMatch(/Invalid values/);
    expect(wrong.err).not.toContain('loaded');
    expect(existsSync(output)).toBe(false);
    const help = await runCli(['fit', '--help']);
    expect(help.code).toBe(0);
    expect(help.out).toContain('--no-sharpness');
    expect(help.out).toContain('Examples:');
  });
});
