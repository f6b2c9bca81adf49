// "Score your model" with an adaptive run, in real headless Chromium: a package published with
// `llm-nrm publish --adaptive`, its lm-eval/nrm_adaptive.py run in the real lm_eval 0.4.13
// (.venv-lmeval) by a small LM answering from a simulated held-out LLM's option probabilities; the
// site built with that package (`llm-nrm leaderboard --tiny <package>`). Dropping the run's samples
// and results files together must score it as `llm-nrm score <package> <run>` does and show the
// items it asked in order (right or wrong by core's rule) and how its SE fell to the stopping SE.
// The one Python run takes about a minute on the 2-core machine. `npm run test:e2e`.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bankRecords, simulateFleet, type ResponseRecord } from '@llm-nrm/core';
import { readBundle, readTinyPackage, tinyScoringBundle, writeResponses } from '@llm-nrm/adapters';
import { buildSite, responsesBank, serveSite, type ServedSite } from '@llm-nrm/site';
import { repoRoot, tempDir } from '@llm-nrm/tooling/test';
import { ensureAppBuilt } from './appBuild.js';
import { launchChromium, openRoute, watchedPage, type Launched } from './chromium.js';

const bin = join(repoRoot, 'packages/cli/dist/bin.js');
const python = join(repoRoot, '.venv-lmeval/bin/python');
const shots = join(tmpdir(), 'llm-nrm-leaderboard-screenshots');
const RUN = 'sim-held-out';
const TASK = 'tiny_toy';
const POOL = 120;

/** What `llm-nrm score --json` writes per LLM (the fields this test reads). */
interface CliScore {
  id: string;
  theta: number;
  se: number;
  items: number;
  rankInterval: [number, number];
  predictedAccuracy: Record<string, { accuracy: number; low: number; high: number }>;
}

/** The `nrm_adaptive` block nrm_adaptive.py writes into its results file (the fields this test reads). */
interface AdaptiveLog {
  stop: string;
  theta: number;
  se: number;
  items: string[];
  settings: { se: number; minItems: number; batch: number };
  rounds: { answered: number; se: number; next: string[] }[];
}

let tmp: ReturnType<typeof tempDir>;
let chrome: Launched;
let server: ServedSite;
/** The same calibration without the package (`llm-nrm leaderboard bundle.json --responses ...`): runs are scored against the full bank. */
let bankServer: ServedSite;
let pkg: string;
let out: string;
let samples: string;
let results: string;
let log: AdaptiveLog;
/** Whether the held-out LLM's most likely option is the key, per item. */
let right: Map<string, boolean>;
/** Items in the adaptive package's pool (its bank.json bundle). */
let poolItems = 0;

function cli(...args: string[]): string {
  return execFileSync(process.execPath, [bin, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

const findFiles = (dir: string, re: RegExp): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? findFiles(join(dir, e.name), re) : re.test(e.name) ? [join(dir, e.name)] : []));

/** The venv's python on `args`, asynchronously (a minute-long child must not block vitest's worker); its stdout. */
async function py(args: string[]): Promise<string> {
  expect(existsSync(python), `${python} is missing: .ci/run installs lm_eval 0.4.13 into .venv-lmeval before the tests`).toBe(true);
  const shim = join(tmp.dir, 'shim');
  mkdirSync(shim, { recursive: true });
  // lm-eval's table printer imports pytablewriter, which the local package index lacks: a minimal stand-in (as the CLI's e2e tests do).
  writeFileSync(join(shim, 'pytablewriter.py'), 'class _W:\n    pass\nMarkdownTableWriter = LatexTableWriter = _W\n');
  const child = spawn(python, args, {
    env: { ...process.env, PYTHONPATH: shim, HF_DATASETS_OFFLINE: '1', HF_HUB_OFFLINE: '1', TOKENIZERS_PARALLELISM: 'false' },
    timeout: 540_000,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(code, stderr.slice(-3000)).toBe(0);
  return stdout;
}

beforeAll(async () => {
  tmp = tempDir('llm-nrm-leaderboard-adaptive-');
  const assets = await ensureAppBuilt();
  mkdirSync(shots, { recursive: true });
  // 30 LLMs x 120 four-option items in two benchmarks (content balancing has something to balance); prompts recorded.
  const fleet = simulateFleet({ models: 30, items: POOL, seed: 4 });
  const labels = (k: number) => Array.from({ length: k }, (_, i) => ` ${String.fromCharCode(65 + i)}`);
  const records: ResponseRecord[] = [...bankRecords(fleet.bank)].map((r) => ({
    ...r,
    benchmark: Number(r.item.replace(/\D/g, '')) % 2 ? 'odd' : 'even',
    prompt: `Question about ${r.item}?\nAnswer:`,
    continuations: labels(r.probs!.length),
  }));
  // The held-out LLM: the fleet's median by accuracy (a mid-range model, whose SE the pool brings under 0.3).
  const argmax = (p: number[]) => p.indexOf(Math.max(...p));
  const accuracyOf = (m: string) => {
    const rs = records.filter((r) => r.model === m);
    return rs.filter((r) => argmax(r.probs!) === r.key).length / rs.length;
  };
  const byAccuracy = [...fleet.bank.models].sort((a, b) => accuracyOf(a) - accuracyOf(b) || a.localeCompare(b));
  const heldOut = byAccuracy[Math.floor(byAccuracy.length / 2)]!;
  const held = records.filter((r) => r.model === heldOut);
  right = new Map(held.map((r) => [r.item, argmax(r.probs!) === r.key]));
  const rest = records.filter((r) => r.model !== heldOut);
  const calibration = join(tmp.dir, 'calibration.jsonl');
  await writeResponses(rest, calibration);
  const recorded = join(tmp.dir, 'held-out.jsonl');
  writeFileSync(recorded, held.map((r) => JSON.stringify({ item_id: r.item, probs: r.probs })).join('\n') + '\n');
  const bundlePath = join(tmp.dir, 'bundle.json');
  cli('fit', calibration, '-o', bundlePath, '-q');
  pkg = join(tmp.dir, 'adaptive-toy');
  // --include-flagged: the whole simulated pool (the simulation's report flags many items).
  cli('publish', bundlePath, '--responses', calibration, '--adaptive', '--include-flagged', '--name', 'toy', '--harness', 'lm-eval', '-o', pkg, '-q');

  // The site as `llm-nrm leaderboard bundle.json --responses calibration.jsonl --tiny <adaptive package>` composes it, with this build's app.
  const bundle = await readBundle(bundlePath);
  const whole = await readTinyPackage(pkg);
  expect(whole.bank.task).toBe(TASK);
  expect(whole.bank.adaptive).toBeDefined();
  poolItems = whole.bank.bundle.items.length;
  await buildSite(
    {
      bundle,
      bank: responsesBank(bundle, rest).bank,
      tiny: {
        bundle: whole.bank.bundle,
        source: pkg,
        adaptive: true,
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
  await buildSite({ bundle, bank: responsesBank(bundle, rest).bank }, join(tmp.dir, 'bank-site'), { assets });
  bankServer = await serveSite(join(tmp.dir, 'bank-site'));

  // The live adaptive run: nrm_adaptive.run with an lm_eval LM that answers from the held-out LLM's probabilities.
  out = join(tmp.dir, 'run');
  const script = [
    'import json, math, sys',
    `sys.path.insert(0, ${JSON.stringify(join(pkg, 'lm-eval'))})`,
    'import nrm_adaptive, nrm_lmeval',
    'from lm_eval.api.model import LM',
    'recorded = {}',
    `for line in open(${JSON.stringify(recorded)}):`,
    '    r = json.loads(line)',
    '    recorded[r["item_id"]] = r["probs"]',
    'table = {}',
    'for doc in nrm_lmeval._docs():',
    '    for k, args in enumerate(nrm_adaptive.requests(doc)):',
    '        table[args] = recorded[doc["item_id"]][k]',
    'class SimLM(LM):',
    '    def loglikelihood(self, requests, disable_tqdm=False):',
    '        return [(math.log(max(table[r.arguments], 1e-300)), False) for r in requests]',
    '    def loglikelihood_rolling(self, requests, disable_tqdm=False):',
    '        raise NotImplementedError',
    '    def generate_until(self, requests, disable_tqdm=False):',
    '        raise NotImplementedError',
    `res = nrm_adaptive.run(SimLM(), ${JSON.stringify(out)}, ${JSON.stringify(RUN)})`,
    'print(json.dumps({"stop": res["stop"], "items": len(res["items"])}))',
  ].join('\n');
  const res = JSON.parse((await py(['-c', script])).trim().split('\n').pop()!) as { stop: string; items: number };
  // An adaptive run that stopped by its SE rule, well before the pool ran out.
  expect(res.stop).toBe('se');
  expect(res.items).toBeLessThan(POOL);
  samples = findFiles(out, new RegExp(`^samples_${TASK}_.*\\.jsonl$`))[0]!;
  results = findFiles(out, /^results_.*\.json$/)[0]!;
  log = (JSON.parse(readFileSync(results, 'utf8')) as { nrm_adaptive: AdaptiveLog }).nrm_adaptive;
  expect(log.items).toHaveLength(res.items);
  chrome = await launchChromium();
}, 600_000);

afterAll(async () => {
  await chrome?.close();
  await server?.close();
  await bankServer?.close();
  tmp?.cleanup();
});

const asFile = (p: string) => ({ name: p.split('/').pop()!, mimeType: 'application/json', buffer: readFileSync(p) });

describe('score page with an adaptive run (nrm_adaptive.py in the real lm_eval, headless Chromium)', () => {
  it('scores it as llm-nrm score <package> does and shows the items asked in order and how its SE fell to the stopping SE', async () => {
    const expected = JSON.parse(cli('score', pkg, out, '--json', '--quiet')) as { llms: CliScore[] };
    expect(expected.llms).toHaveLength(1);
    const l = expected.llms[0]!;
    expect(l.id).toBe(RUN);
    expect(l.items).toBe(log.items.length);

    const w = await watchedPage(chrome.browser, server.url);
    await openRoute(w.page, server.url, '#/score');
    // The how-to names the package as what it is: an adaptive pool, not a tiny benchmark every run answers whole.
    const howTo = (await w.page.locator('details').first().textContent()) ?? '';
    expect(howTo).toContain(`This site carries the adaptive package ${TASK} (a pool of ${poolItems} items its runner asks from)`);
    expect(howTo).not.toContain('carries the tiny package');
    // Both files at once; the model id comes from the results file (the form's default id is left as it is).
    await w.page.setInputFiles('#score-file', [asFile(samples), asFile(results)]);
    await w.page.waitForSelector('#adaptive-run', { timeout: 60_000 });
    const row = await w.page.$eval('#scored tbody tr', (tr) => ({
      model: tr.getAttribute('data-model'),
      theta: Number(tr.getAttribute('data-theta')),
      text: tr.textContent ?? '',
      accuracy: tr.querySelector('td.accuracy')?.textContent ?? '',
    }));
    expect(row.model).toBe(RUN);
    expect(Math.abs(row.theta - l.theta)).toBeLessThan(1e-6);
    expect(row.text).toContain(`±${l.se.toFixed(4)}`);
    const pred = l.predictedAccuracy['overall']!;
    expect(row.accuracy).toBe(`${(100 * pred.accuracy).toFixed(1)}% [${(100 * pred.low).toFixed(1)}, ${(100 * pred.high).toFixed(1)}]predicted`);
    // The site's SE is the runner's final SE (the same rule), which the stop line repeats.
    expect(Math.abs(l.se - log.se)).toBeLessThan(1e-4);
    expect(await w.page.textContent('#adaptive-stop')).toBe(
      `Stopped by the SE rule: SE ${log.se.toFixed(3)} ≤ ${log.settings.se} after ${log.items.length} items (at least ${log.settings.minItems} asked first).`,
    );

    expect(await w.page.textContent('#adaptive-own')).toBe(
      `The runner's own estimate (its results file): θ ${log.theta.toFixed(4)}, SE ${log.se.toFixed(4)}, the θ and SE above.`,
    );
    expect(await w.page.textContent('#package-run')).toContain(
      `Scored as a run of the adaptive package ${TASK} (${log.items.length} of its ${POOL} items asked)`,
    );

    // The items asked, in the order asked, with the round that asked each and whether the held-out LLM's answer was right.
    const items = await w.page.$$eval('#adaptive-items tbody tr', (trs) =>
      trs.map((tr) => ({
        id: tr.getAttribute('data-item'),
        right: tr.getAttribute('data-right'),
        cells: Array.from(tr.querySelectorAll('td')).map((td) => td.textContent),
      })),
    );
    expect(items.map((r) => r.id)).toEqual(log.items);
    expect(items.map((r) => r.right)).toEqual(log.items.map((id) => String(right.get(id))));
    expect(new Set(items.map((r) => r.right))).toEqual(new Set(['true', 'false']));
    const roundOf = new Map(log.rounds.flatMap((r, n) => r.next.map((id) => [id, n + 1] as const)));
    items.forEach((r, n) => {
      expect(r.cells[0]).toBe(String(n + 1));
      expect(r.cells[1]).toBe(String(roundOf.get(r.id!)));
      expect(r.cells[3]).toBe(Number(r.id!.replace(/\D/g, '')) % 2 ? 'odd' : 'even');
      expect(r.cells[4]).toBe(right.get(r.id!) ? '✓ right' : '✗ wrong');
    });

    // The SE chart: one dot per answered round (and the last one ringed), its axes named, the stopping SE drawn and labelled.
    const fig = await w.page.$eval('#adaptive-se', (f) => ({
      caption: f.querySelector('figcaption')?.textContent ?? '',
      text: Array.from(f.querySelectorAll('svg text')).map((t) => t.textContent ?? ''),
      dots: f.querySelectorAll('svg circle').length,
      dashed: Array.from(f.querySelectorAll('svg line, svg path')).filter(
        (e) => e.closest('[stroke-dasharray="6 4"]') !== null || e.getAttribute('stroke-dasharray') === '6 4',
      ).length,
      tips: Array.from(f.querySelectorAll('svg circle title')).map((t) => t.textContent ?? ''),
    }));
    const answeredRounds = log.rounds.filter((r) => r.answered > 0);
    expect(fig.dots).toBe(answeredRounds.length + 1);
    expect(fig.text).toContain(`stopping SE ${log.settings.se}`);
    expect(fig.text.join(' ')).toMatch(/Items answered/);
    expect(fig.text.join(' ')).toMatch(/SE of θ/);
    expect(fig.dashed).toBeGreaterThan(0);
    expect(fig.tips.at(-1)).toMatch(new RegExp(`^after ${log.items.length} items: SE ${log.se.toFixed(3)}, θ `));
    // The SE fell: the last round's is the smallest and under the target, the first round's above it.
    expect(answeredRounds[0]!.se).toBeGreaterThan(log.settings.se);
    expect(log.se).toBeLessThanOrEqual(log.settings.se);

    // Nothing overflows a 1280 px window: the page does not scroll sideways and the chart fits its column.
    const layout = await w.page.evaluate(() => {
      const svg = document.querySelector('#adaptive-se svg')!.getBoundingClientRect();
      const wrap = document.querySelector('#adaptive-items')!.closest('.table-wrap')!.getBoundingClientRect();
      return { scroll: document.documentElement.scrollWidth, inner: window.innerWidth, svgRight: svg.right, wrapLeft: wrap.left, wrapRight: wrap.right };
    });
    expect(layout.inner).toBe(1280);
    expect(layout.scroll).toBeLessThanOrEqual(layout.inner);
    expect(layout.svgRight).toBeLessThanOrEqual(layout.wrapLeft);
    expect(layout.wrapRight).toBeLessThanOrEqual(layout.inner);
    await w.page.locator('#adaptive-run').screenshot({ path: join(shots, 'score-adaptive-run.png') });
    await w.page.screenshot({ path: join(shots, 'score-adaptive-page.png'), fullPage: true });
    expect(w.problems).toEqual([]);
    await w.page.close();
  });

  it("on a site without the run's package: scored against the full bank, the same items and SE shown, the runner's own estimate said to differ where it does", async () => {
    const w = await watchedPage(chrome.browser, bankServer.url);
    await openRoute(w.page, bankServer.url, '#/score');
    await w.page.setInputFiles('#score-file', [asFile(samples), asFile(results)]);
    await w.page.waitForSelector('#adaptive-run', { timeout: 60_000 });
    expect(await w.page.textContent('#bank-run')).toContain(`Scored against the full bank (${POOL} items)`);
    const row = await w.page.$eval('#scored tbody tr', (tr) => ({ model: tr.getAttribute('data-model'), theta: Number(tr.getAttribute('data-theta')) }));
    expect(row.model).toBe(RUN);
    expect(await w.page.$$eval('#adaptive-items tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-item')))).toEqual(log.items);
    expect(await w.page.$$eval('#adaptive-se svg circle', (c) => c.length)).toBe(log.rounds.filter((r) => r.answered > 0).length + 1);
    const own = (await w.page.textContent('#adaptive-own'))!;
    expect(own).toMatch(new RegExp(`^The runner's own estimate \\(its results file\\): θ ${log.theta.toFixed(4)}, SE ${log.se.toFixed(4)}`));
    // Said to differ exactly where the page's score is not the runner's (1e-4), and why.
    const scoredSe = Number(await w.page.getAttribute('#scored tbody tr', 'data-se'));
    const differs = Math.abs(row.theta - log.theta) > 1e-4 || Math.abs(scoredSe - log.se) > 1e-4;
    expect(own.includes('this site does not carry the package the run asked from')).toBe(differs);
    await w.page.locator('#adaptive-run').screenshot({ path: join(shots, 'score-adaptive-run-bank-site.png') });
    expect(w.problems).toEqual([]);
    await w.page.close();
  });

  it('names the file when the results file comes alone or with samples of another run', async () => {
    const w = await watchedPage(chrome.browser, server.url);
    await openRoute(w.page, server.url, '#/score');
    const name = results.split('/').pop()!;
    await w.page.setInputFiles('#score-file', [asFile(results)]);
    await w.page.waitForSelector('p.status.error');
    expect(await w.page.textContent('p.status')).toContain(`${name}: an lm-eval results file holds no answers to score`);
    // The samples less their last item: not the run the results file records.
    const lines = readFileSync(samples, 'utf8').trim().split('\n');
    const short = { name: samples.split('/').pop()!, mimeType: 'application/json', buffer: Buffer.from(lines.slice(0, -1).join('\n') + '\n') };
    await w.page.setInputFiles('#score-file', [short, asFile(results)]);
    await w.page.waitForFunction(() => /not of one adaptive run/.test(document.querySelector('p.status')?.textContent ?? ''));
    expect(await w.page.textContent('p.status')).toContain(
      `${name}: ${short.name} and ${name} are not of one adaptive run: the results file lists item ${JSON.stringify(log.items.at(-1))}, which the samples do not answer`,
    );
    expect(await w.page.$$eval('#adaptive-run', (e) => e.length)).toBe(0);
    await w.page.close();
  });
});
