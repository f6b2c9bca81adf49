// "Score your model" on a site built with a whole tiny package (`llm-nrm leaderboard --tiny <package>`),
// in real headless Chromium: a dropped run of the package must show what `llm-nrm score <package> <run>`
// prints for it (theta, the rank interval, the predicted full-bank accuracy with its 90% interval),
// never its accuracy on the package's items, and no position bias or fallback it did not fit.
// Calibration, package and runs from a seeded simulated fleet, then from the real NAEP fixture (17
// LLMs calibrated, Qwen2.5-0.5B's 41-item run dropped: issue 30's case), all written to temp folders;
// the packages are published and scored by the built CLI.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bankRecords, simulateFleet, type ResponseRecord } from '@llm-nrm/core';
import { readBundle, readTinyPackage, tinyScoringBundle, writeLmEvalHarness, writeResponses } from '@llm-nrm/adapters';
import { buildSite, responsesBank, serveSite, type ServedSite } from '@llm-nrm/site';
import { fixture, repoRoot, tempDir } from '@llm-nrm/tooling/test';
import { ensureAppBuilt } from './appBuild.js';
import { launchChromium, openRoute, watchedPage, type Launched } from './chromium.js';

const bin = join(repoRoot, 'packages/cli/dist/bin.js');
const shots = join(tmpdir(), 'llm-nrm-leaderboard-screenshots');
const RUN = 'new-model';
const TASK = 'tiny_sim';

/** What `llm-nrm score --json` writes per LLM (the fields this test reads). */
interface CliScore {
  id: string;
  theta: number;
  accuracy: number;
  items: number;
  rankInterval: [number, number];
  rankLevel: number;
  predictedAccuracy?: Record<string, { accuracy: number; low: number; high: number }>;
}

let tmp: ReturnType<typeof tempDir>;
let chrome: Launched;
let server: ServedSite;
let pkg: string;
let samples: string;
let runFolder: string;
let fullRun: string;
let bundlePath: string;
let calibrated: number;

function cli(...args: string[]): string {
  return execFileSync(process.execPath, [bin, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function cliScore(bundle: string, responses: string): CliScore {
  const res = JSON.parse(cli('score', bundle, responses, '--json', '--quiet')) as { llms: CliScore[] };
  expect(res.llms.length).toBe(1);
  return res.llms[0]!;
}

/** A site built as `llm-nrm leaderboard <bundle> [--responses <records>] --tiny <package>` composes it (its siteInput), with this build's app. */
async function buildTinySite(bundlePath: string, pkg: string, out: string, assets: string, records?: ResponseRecord[]): Promise<ServedSite> {
  const bundle = await readBundle(bundlePath);
  const whole = await readTinyPackage(pkg);
  await buildSite(
    {
      bundle,
      ...(records ? { bank: responsesBank(bundle, records).bank } : {}),
      tiny: {
        bundle: whole.bank.bundle,
        source: pkg,
        scoring: {
          task: whole.bank.task,
          bankSha256: whole.bankSha256,
          scoring: whole.bank.scoring,
          accuracy: whole.bank.accuracy,
          bundle: tinyScoringBundle(whole),
        },
      },
    },
    out,
    { assets },
  );
  return serveSite(out);
}

/** `39.8% [35.5, 44.0]`: one decimal, as `llm-nrm score <package>` prints a prediction. */
const pctInterval = (p: { accuracy: number; low: number; high: number }) =>
  `${(100 * p.accuracy).toFixed(1)}% [${(100 * p.low).toFixed(1)}, ${(100 * p.high).toFixed(1)}]`;

beforeAll(async () => {
  tmp = tempDir('llm-nrm-leaderboard-tiny-');
  const assets = await ensureAppBuilt();
  mkdirSync(shots, { recursive: true });
  // 25 LLMs x 240 four-option items; the 25th is the visitor's model, not calibrated.
  const fleet = simulateFleet({ models: 25, items: 240, seed: 30 });
  const heldOut = fleet.bank.models[24]!;
  const labels = (k: number) => Array.from({ length: k }, (_, i) => ` ${String.fromCharCode(65 + i)}`);
  const records: ResponseRecord[] = [...bankRecords(fleet.bank)].map((r) => ({
    ...r,
    prompt: `Question about ${r.item}?\nAnswer:`,
    continuations: labels(r.probs!.length),
  }));
  const rest = records.filter((r) => r.model !== heldOut);
  const calibration = join(tmp.dir, 'calibration.jsonl');
  await writeResponses(rest, calibration);
  bundlePath = join(tmp.dir, 'bundle.json');
  cli('fit', calibration, '-o', bundlePath, '-q');
  pkg = join(tmp.dir, 'tiny-sim');
  cli('publish', bundlePath, '--responses', calibration, '--items', '41', '--name', 'sim', '--harness', 'lm-eval', '-o', pkg, '-q');

  // The site as `llm-nrm leaderboard bundle.json --responses calibration.jsonl --tiny <package>` composes it (its siteInput), with this build's app.
  const bundle = await readBundle(bundlePath);
  calibrated = bundle.llms.length;
  const whole = await readTinyPackage(pkg);
  expect(whole.bank.task).toBe(TASK);
  await buildSite(
    {
      bundle,
      bank: responsesBank(bundle, rest).bank,
      tiny: {
        bundle: whole.bank.bundle,
        source: pkg,
        scoring: {
          task: whole.bank.task,
          bankSha256: whole.bankSha256,
          scoring: whole.bank.scoring,
          accuracy: whole.bank.accuracy,
          bundle: tinyScoringBundle(whole),
        },
      },
    },
    join(tmp.dir, 'site'),
    { assets },
  );
  server = await serveSite(join(tmp.dir, 'site'));

  // The visitor's run of the package, as lm-eval writes it, and its full-bank answers as tidy records.
  const ids = new Set(whole.bank.bundle.items.map((it) => it.id));
  const mine = records.filter((r) => r.model === heldOut).map((r) => ({ ...r, model: RUN }));
  runFolder = join(tmp.dir, 'run');
  const written = await writeLmEvalHarness(
    mine.filter((r) => ids.has(r.item)),
    runFolder,
    { tinyTask: TASK, date: '2026-01-01T00-00-00.000001' },
  );
  samples = written.files.find((f) => /samples_/.test(f))!;
  fullRun = join(tmp.dir, 'full-run.jsonl');
  await writeResponses(mine, fullRun);
  chrome = await launchChromium();
}, 300_000);

afterAll(async () => {
  await chrome?.close();
  await server?.close();
  tmp?.cleanup();
});

describe('score page on a site with a tiny package (simulated fleet, headless Chromium)', () => {
  it("shows a tiny run's predicted full-bank accuracy and rank interval as llm-nrm score <package> prints them", async () => {
    const expected = cliScore(pkg, runFolder);
    expect(expected.items).toBe(41);
    const pred = expected.predictedAccuracy!['overall']!;
    // The CLI's own line for the run (text output), which the page repeats.
    const line = cli('score', pkg, runFolder, '--quiet')
      .split('\n')
      .find((l) => l.startsWith(`${RUN}: rank `))!;
    expect(line).toContain(`predicted full-bank accuracy overall ${pctInterval(pred)}`);
    // The subset accuracy differs from the prediction at the shown precision, so showing one for the other is seen.
    const subset = `${(100 * expected.accuracy).toFixed(1)}%`;
    expect(subset).not.toBe(`${(100 * pred.accuracy).toFixed(1)}%`);

    const w = await watchedPage(chrome.browser, server.url);
    await openRoute(w.page, server.url, '#/score');
    expect(await w.page.textContent('details.howto')).toContain(`tiny package ${TASK}`);
    await w.page.fill('#score-model', RUN);
    await w.page.setInputFiles('#score-file', { name: samples.split('/').pop()!, mimeType: 'application/json', buffer: readFileSync(samples) });
    await w.page.waitForSelector('#scored tbody tr', { timeout: 60_000 });
    const row = await w.page.$eval('#scored tbody tr', (tr) => ({
      theta: Number(tr.getAttribute('data-theta')),
      text: tr.textContent ?? '',
      rank: tr.querySelector('td.rank')?.textContent ?? '',
      accuracy: tr.querySelector('td.accuracy')?.textContent ?? '',
    }));
    expect(Math.abs(row.theta - expected.theta)).toBeLessThan(1e-6);
    expect(row.rank).toMatch(new RegExp(`^\\d+ \\(${expected.rankInterval[0]}–${expected.rankInterval[1]}\\) of ${calibrated + 1}$`));
    expect(row.accuracy).toBe(`${pctInterval(pred)}predicted`);
    expect(row.text).not.toContain(subset);
    expect(await w.page.textContent('#scored thead')).toContain('Predicted full-bank accuracy (90%)');
    expect(await w.page.textContent('pre.cli-line')).toBe(line);
    await w.page.screenshot({ path: join(shots, 'score-tiny-run.png'), fullPage: true });

    // On the board: the same predicted accuracy, marked; the same rank interval; no bias or fallback of the fleet's shown as the model's.
    await w.page.click('#see-board');
    await w.page.waitForSelector('body[data-ready="#/"]');
    const mine = await w.page.$eval('#board tbody tr.mine', (tr) => {
      const td = Array.from(tr.querySelectorAll('td'));
      return {
        rank: td[0]!.textContent ?? '',
        accuracy: td[5]!.textContent ?? '',
        fallback: td[7]!.textContent ?? '',
        bias: td[8]!.textContent ?? '',
        biasTitle: td[8]!.getAttribute('title') ?? '',
        sparkline: td[8]!.querySelector('svg') !== null,
      };
    });
    expect(mine.rank).toContain(`(${expected.rankInterval[0]}–${expected.rankInterval[1]})`);
    expect(mine.accuracy).toBe(`${pctInterval(pred)}predicted`);
    expect(mine.accuracy).not.toContain(subset);
    expect(mine.bias).toBe('–');
    expect(mine.sparkline).toBe(false);
    expect(mine.biasTitle).toMatch(/not fitted/);
    expect(mine.fallback).toBe('–');
    // The calibrated rows keep their sparklines.
    expect(await w.page.$$eval('#board tbody tr:not(.mine) svg.spark', (s) => s.length)).toBe(calibrated);
    await w.page.screenshot({ path: join(shots, 'leaderboard-with-tiny-run.png'), fullPage: true });
    expect(w.problems).toEqual([]);
    await w.page.close();
  });

  it('scores a full-bank run against the bank and shows its own accuracy, said to be that', async () => {
    const expected = cliScore(bundlePath, fullRun);
    expect(expected.predictedAccuracy).toBeUndefined();
    const w = await watchedPage(chrome.browser, server.url);
    await openRoute(w.page, server.url, '#/score');
    await w.page.setInputFiles('#score-file', { name: 'full-run.jsonl', mimeType: 'application/json', buffer: readFileSync(fullRun) });
    await w.page.waitForSelector('#scored tbody tr', { timeout: 60_000 });
    const row = await w.page.$eval('#scored tbody tr', (tr) => ({
      theta: Number(tr.getAttribute('data-theta')),
      rank: tr.querySelector('td.rank')?.textContent ?? '',
      accuracy: tr.querySelector('td.accuracy')?.textContent ?? '',
    }));
    expect(Math.abs(row.theta - expected.theta)).toBeLessThan(1e-6);
    expect(row.rank).toMatch(new RegExp(`^\\d+ \\(${expected.rankInterval[0]}–${expected.rankInterval[1]}\\) of ${calibrated + 1}$`));
    expect(row.accuracy).toBe(`${(100 * expected.accuracy).toFixed(1)}%`);
    expect(await w.page.textContent('#scored thead')).toContain('Accuracy (items answered)');
    expect(await w.page.textContent('#bank-run')).toContain('Scored against the full bank (240 items)');
    expect(await w.page.$$eval('pre.cli-line', (els) => els.length)).toBe(0);
    await w.page.screenshot({ path: join(shots, 'score-full-run.png'), fullPage: true });
    expect(w.problems).toEqual([]);
    await w.page.close();
  });
});

describe('score page on a site with a tiny package (real NAEP fixture, headless Chromium)', () => {
  const HELD = 'Qwen2.5-0.5B';
  let naep: { server: ServedSite; pkg: string; run: string; bundle: string };

  beforeAll(async () => {
    const assets = await ensureAppBuilt();
    const dir = join(tmp.dir, 'naep');
    mkdirSync(dir);
    const all = join(dir, 'all.jsonl');
    cli('convert', fixture('response-matrices/mainlp-llm-psychometrics'), '-o', all, '-q');
    const records = readFileSync(all, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as ResponseRecord);
    const rest = records.filter((r) => r.model !== HELD);
    expect(new Set(rest.map((r) => r.model)).size).toBe(17);
    const calibration = join(dir, 'calibration.jsonl');
    await writeResponses(rest, calibration);
    const bundle = join(dir, 'bundle.json');
    cli('fit', calibration, '-o', bundle, '-q');
    const pkg = join(dir, 'tiny-naep');
    // The fixture records no continuations: the package renders its prompts (flagged in its README).
    cli('publish', bundle, '--responses', calibration, '--items', '41', '--name', 'naep', '--harness', 'lm-eval', '--render-prompt', '-o', pkg, '-q');
    const ids = new Set((await readTinyPackage(pkg)).bank.bundle.items.map((it) => it.id));
    // The held-out LLM's 41-item run: one presentation per item (content order), as a tiny run shows them.
    const run = join(dir, 'run41.jsonl');
    await writeResponses(
      records.filter((r) => r.model === HELD && ids.has(r.item) && r.position!.every((p, k) => p === k)),
      run,
    );
    naep = { server: await buildTinySite(bundle, pkg, join(dir, 'site'), assets), pkg, run, bundle };
  }, 300_000);

  afterAll(async () => {
    await naep?.server.close();
  });

  it("shows Qwen2.5-0.5B's 41-item run with llm-nrm score's predicted full-bank accuracy and rank interval, not its 41-item accuracy", async () => {
    const expected = cliScore(naep.pkg, naep.run);
    expect(expected.id).toBe(HELD);
    expect(expected.items).toBe(41);
    const pred = expected.predictedAccuracy!['overall']!;
    const subset = `${(100 * expected.accuracy).toFixed(1)}%`;
    expect(subset).not.toBe(`${(100 * pred.accuracy).toFixed(1)}%`);
    const line = cli('score', naep.pkg, naep.run, '--quiet')
      .split('\n')
      .find((l) => l.startsWith(`${HELD}: rank `))!;

    const w = await watchedPage(chrome.browser, naep.server.url);
    await openRoute(w.page, naep.server.url, '#/score');
    await w.page.setInputFiles('#score-file', { name: 'run41.jsonl', mimeType: 'application/json', buffer: readFileSync(naep.run) });
    await w.page.waitForSelector('#scored tbody tr', { timeout: 60_000 });
    const row = await w.page.$eval('#scored tbody tr', (tr) => ({
      theta: Number(tr.getAttribute('data-theta')),
      text: tr.textContent ?? '',
      rank: tr.querySelector('td.rank')?.textContent ?? '',
      accuracy: tr.querySelector('td.accuracy')?.textContent ?? '',
    }));
    expect(Math.abs(row.theta - expected.theta)).toBeLessThan(1e-6);
    expect(row.rank).toMatch(new RegExp(`^\\d+ \\(${expected.rankInterval[0]}–${expected.rankInterval[1]}\\) of 18$`));
    expect(row.accuracy).toBe(`${pctInterval(pred)}predicted`);
    expect(row.text).not.toContain(subset);
    expect(await w.page.textContent('pre.cli-line')).toBe(line);
    await w.page.screenshot({ path: join(shots, 'score-tiny-run-naep.png'), fullPage: true });
    await w.page.click('#see-board');
    await w.page.waitForSelector('body[data-ready="#/"]');
    const mine = await w.page.$eval('#board tbody tr.mine', (tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent ?? ''));
    // The board's rank cell: "r (lo–hi)", or the rank alone where the interval is one rank.
    const [lo, hi] = expected.rankInterval;
    expect(mine[0]).toMatch(lo === hi ? new RegExp(`^${lo}$`) : new RegExp(`^\\d+ \\(${lo}–${hi}\\)$`));
    expect(mine[5]).toBe(`${pctInterval(pred)}predicted`);
    expect(mine[8]).toBe('–');
    await w.page.screenshot({ path: join(shots, 'leaderboard-with-tiny-run-naep.png'), fullPage: true });
    expect(w.problems).toEqual([]);
    await w.page.close();
  });
});
