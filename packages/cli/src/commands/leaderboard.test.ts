// `llm-nrm leaderboard`: builds the static site from a bundle (and its responses, a tiny folder),
// replaces a site it wrote atomically (and refuses any other folder), previews a built site with --serve. The pages themselves are
// tested in headless Chromium in apps/leaderboard/test.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bankRecords, simulateFleet, type CalibrationBundle } from '@llm-nrm/core';
import { writeResponses } from '@llm-nrm/adapters';
import { repoRoot, tempDir } from '@llm-nrm/tooling/test';
import { runCli } from '../../test/runCli.js';

const tmp = tempDir('llm-nrm-cli-leaderboard-');
let bundleFile: string;
let responses: string;

beforeAll(async () => {
  const fleet = simulateFleet({ models: 8, items: 40, seed: 3 });
  responses = join(tmp.dir, 'responses.jsonl');
  await writeResponses(bankRecords(fleet.bank), responses);
  bundleFile = join(tmp.dir, 'bundle.json');
  const { code } = await runCli(['fit', responses, '-o', bundleFile, '-q']);
  expect(code).toBe(0);
}, 60_000);
afterAll(() => tmp.cleanup());

describe('llm-nrm leaderboard', () => {
  it('writes the site (assets and data shards) and replaces a site it wrote whole; a foreign file stops it', async () => {
    const site = join(tmp.dir, 'site');
    // An old site of an earlier build (one fewer LLM's shard would stay behind if not replaced whole).
    const first = await runCli(['leaderboard', bundleFile, '-o', site, '-q']);
    expect(first.code).toBe(0);
    expect(JSON.parse(readFileSync(join(site, 'data/manifest.json'), 'utf8'))).toMatchObject({ hasResponses: false });
    // A file llm-nrm did not write: the folder is refused, the file kept.
    writeFileSync(join(site, 'notes.txt'), 'mine');
    const refused = await runCli(['leaderboard', bundleFile, '--responses', responses, '-o', site, '-q']);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/refused -o .*site: llm-nrm leaderboard wrote it, but it now also holds 1 entry llm-nrm did not write \(first "notes\.txt"\)/);
    expect(readFileSync(join(site, 'notes.txt'), 'utf8')).toBe('mine');
    rmSync(join(site, 'notes.txt'));
    const { code, out } = await runCli(['leaderboard', bundleFile, '--responses', responses, '-o', site, '--json', '-q']);
    expect(code).toBe(0);
    const summary = JSON.parse(out);
    expect(summary).toMatchObject({ llms: 8, items: 40, responses: true, tiny: null });
    expect(readdirSync(tmp.dir).filter((n) => n.endsWith('.tmp') || n.endsWith('.old'))).toEqual([]);
    expect(readFileSync(join(site, 'index.html'), 'utf8')).toContain('http-equiv="Content-Security-Policy"');
    const manifest = JSON.parse(readFileSync(join(site, 'data/manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({ llms: 8, items: 40, hasResponses: true });
    const board = JSON.parse(readFileSync(join(site, 'data/leaderboard.json'), 'utf8'));
    const thetas = board.llms.map((l: { theta: number }) => l.theta);
    expect(thetas).toEqual(thetas.slice().sort((a: number, b: number) => b - a));
    for (const l of board.llms) {
      expect(l.rankLo).toBeLessThanOrEqual(l.rank);
      expect(l.rankHi).toBeGreaterThanOrEqual(l.rank);
    }
    expect(existsSync(join(site, 'data/models/7.json'))).toBe(true);
  });

  it('adds a published tiny subset, and says what is wrong with a bad one', async () => {
    const bundle = JSON.parse(readFileSync(bundleFile, 'utf8')) as CalibrationBundle;
    const tiny = join(tmp.dir, 'tiny');
    mkdirSync(tiny);
    // As llm-nrm publish writes it: the restricted bundle inside a tiny bank.json.
    writeFileSync(
      join(tiny, 'bank.json'),
      JSON.stringify({ format: 'llm-nrm-tiny', formatVersion: 1, name: 't', bundle: { ...bundle, items: bundle.items.slice(0, 5) } }),
    );
    const site = join(tmp.dir, 'site-tiny');
    const ok = await runCli(['leaderboard', bundleFile, '--tiny', tiny, '-o', site, '-q']);
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/wrote the leaderboard site for 8 LLMs x 40 items/);
    const all = JSON.parse(readFileSync(join(site, 'data/benchmarks/all.json'), 'utf8'));
    expect(all.tiny.items).toBe(5);
    expect(all.tiny.total[24]).toBeLessThan(all.full.total[24]);
    const missing = await runCli(['leaderboard', bundleFile, '--tiny', tmp.dir + '/nope', '-o', site, '-q']);
    expect(missing.code).not.toBe(0);
    expect(missing.err).toMatch(/is not a published folder: no bank\.json/);
    const noOut = await runCli(['leaderboard', bundleFile, '-q']);
    expect(noOut.code).not.toBe(0);
    expect(noOut.err).toMatch(/missing -o\/--output/);
  });

  it('says in the manifest when the package it carries is adaptive (the score page then words it so)', async () => {
    for (const adaptive of [true, false]) {
      const pkg = join(tmp.dir, adaptive ? 'adaptive-pkg' : 'tiny-pkg');
      const size = adaptive ? ['--adaptive'] : ['--items', '10'];
      const published = await runCli([
        'publish',
        bundleFile,
        '--responses',
        responses,
        ...size,
        '--include-flagged',
        '--render-prompt',
        '--allow-placeholder-prompts',
        '--name',
        'toy',
        '--harness',
        'lm-eval',
        '-o',
        pkg,
        '-q',
      ]);
      expect(published.code, published.err).toBe(0);
      const site = join(tmp.dir, adaptive ? 'site-adaptive' : 'site-tiny-whole');
      const built = await runCli(['leaderboard', bundleFile, '--tiny', pkg, '-o', site, '-q']);
      expect(built.code, built.err).toBe(0);
      const manifest = JSON.parse(readFileSync(join(site, 'data/manifest.json'), 'utf8'));
      expect(manifest.tiny.task).toBe('tiny_toy');
      expect(manifest.tiny.adaptive).toBe(adaptive ? true : undefined);
      expect(manifest.tiny.items).toBe(adaptive ? 40 : 10);
    }
  }, 60_000);

  it('--serve previews a built site on 127.0.0.1 with the CSP header', async () => {
    const site = join(tmp.dir, 'site');
    const child = spawn(process.execPath, [join(repoRoot, 'packages/cli/dist/bin.js'), 'leaderboard', site, '--serve', '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<string>((ok, fail) => {
        let text = '';
        child.stdout.on('data', (d) => {
          text += String(d);
          const m = /at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(text);
          if (m) ok(m[1]!);
        });
        child.once('exit', (c) => fail(new Error(`exited ${c}`)));
      });
      const res = await fetch(`${url}data/manifest.json`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(((await res.json()) as { llms: number }).llms).toBe(8);
      expect((await fetch(`${url}..%2f..%2fetc/passwd`)).status).toBeGreaterThanOrEqual(400);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
