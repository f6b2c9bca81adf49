// The leaderboard site in real headless Chromium, built from bundles fitted on the NAEP fixture
// (18 real LLMs x 297 items, 4 rotations) and served on 127.0.0.1 with the site's CSP.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bankFromRecords, fit, toBundle, type CalibrationBundle, type ResponseRecord } from '@llm-nrm/core';
import { newReport, readLmEvalHarness, readNaepRotations, writeLmEvalHarness, writeResponses } from '@llm-nrm/adapters';
import { fixture, repoRoot, tempDir } from '@llm-nrm/tooling/test';
import { buildSite, responsesBank, serveSite, type ServedSite } from '@llm-nrm/site';
import type { LeaderboardShard, ModelShard } from '@llm-nrm/site';
import { ensureAppBuilt } from './appBuild.js';
import { launchChromium, openRoute, watchedPage, type Launched, type WatchedPage } from './chromium.js';

const XSS = '<img src=x onerror=alert(1)>';
const HELD_OUT = 'Phi-3-7B';
const bin = join(repoRoot, 'packages/cli/dist/bin.js');
/** Screenshots of every page, kept after the run to be looked at. */
const shots = join(tmpdir(), 'llm-nrm-leaderboard-screenshots');

let tmp: ReturnType<typeof tempDir>;
let chrome: Launched;
let full: { bundle: CalibrationBundle; server: ServedSite };
let heldOut: { bundle: CalibrationBundle; server: ServedSite; samples: string; tidy: string };
let xssItem: { b: number; s: number; id: string };

async function naepRecords(): Promise<ResponseRecord[]> {
  const out: ResponseRecord[] = [];
  for await (const r of readNaepRotations(fixture('response-matrices/mainlp-llm-psychometrics'), { report: newReport() })) out.push(r);
  // lm-eval samples name items <task>/<doc_id>: give the bank such ids so a samples file of a new
  // model addresses the same items.
  const ids = new Map<string, string>();
  const per = new Map<string, number>();
  for (const r of out) {
    if (!ids.has(r.item)) {
      const n = per.get(r.benchmark!) ?? 0;
      per.set(r.benchmark!, n + 1);
      ids.set(r.item, `${r.benchmark}/${n}`);
    }
    r.item = ids.get(r.item)!;
  }
  return out;
}

function fitBundle(records: ResponseRecord[]): CalibrationBundle {
  const { bank } = bankFromRecords(records);
  return toBundle(fit(bank), { version: 'test', createdAt: '2026-01-01T00:00:00.000Z' });
}

/** theta of `llm-nrm score <bundle> <tidy file> --json`. */
function cliTheta(bundleFile: string, tidy: string): number {
  const out = execFileSync(process.execPath, [bin, 'score', bundleFile, tidy, '--json', '--quiet'], { encoding: 'utf8' });
  const res = JSON.parse(out) as { llms: { id: string; theta: number }[] };
  expect(res.llms.length).toBe(1);
  return res.llms[0]!.theta;
}

beforeAll(async () => {
  expect(existsSync(bin), 'the CLI is built (npm run build)').toBe(true);
  tmp = tempDir('llm-nrm-leaderboard-');
  const assets = await ensureAppBuilt();
  mkdirSync(shots, { recursive: true });
  const records = await naepRecords();

  // Site 1: all 18 LLMs, with one option text replaced by an HTML payload (in the records, so the
  // bundle and the responses agree on it).
  const victim = records.find((r) => r.benchmark === 'history')!.item;
  for (const r of records) {
    if (r.item !== victim) continue;
    r.options = r.options!.slice();
    r.options[1] = XSS;
  }
  const bundle = fitBundle(records);
  const target = bundle.items.find((it) => it.id === victim)!;
  expect(target.options![1]).toBe(XSS);
  const histIndex = bundle.items.filter((it) => it.benchmark === 'history').indexOf(target);
  xssItem = { b: bundle.items[0]!.benchmark === 'history' ? 0 : 1, s: Math.floor(histIndex / 200), id: target.id };
  // A published tiny subset beside it (publish's bank.json: the bundle restricted to some items).
  const tiny = { ...bundle, items: bundle.items.filter((_, i) => i % 10 === 0) };
  await buildSite({ bundle, bank: responsesBank(bundle, records).bank, tiny: { bundle: tiny, source: 'tiny/' } }, join(tmp.dir, 'site-full'), { assets });
  full = { bundle, server: await serveSite(join(tmp.dir, 'site-full')) };

  // Site 2: calibrated on 17 LLMs; the 18th is dropped on the score page.
  const rest = records.filter((r) => r.model !== HELD_OUT);
  const mine = records.filter((r) => r.model === HELD_OUT);
  const bundle17 = fitBundle(rest);
  const bundleFile = join(tmp.dir, 'bundle17.json');
  writeFileSync(bundleFile, JSON.stringify(bundle17));
  await buildSite({ bundle: bundle17, bank: responsesBank(bundle17, rest).bank }, join(tmp.dir, 'site-17'), { assets });
  // Its lm-eval samples: one presentation per item (lm-eval samples hold no display order).
  const identity = mine.filter((r) => r.position!.every((p, k) => p === k));
  const written = await writeLmEvalHarness(identity, join(tmp.dir, 'lm-eval'), { date: '2026-01-01T00-00-00.000000' });
  const samples = written.files.find((f) => /samples_history_/.test(f))!;
  const tidy = join(tmp.dir, 'held-out.jsonl');
  await writeResponses(mine, tidy);
  heldOut = { bundle: bundle17, server: await serveSite(join(tmp.dir, 'site-17')), samples, tidy };
  // What `llm-nrm score` gives for the same samples: read back by the Node lm-eval reader, as tidy.
  const back: ResponseRecord[] = [];
  for await (const r of readLmEvalHarness(samples, { report: newReport() })) back.push(r);
  await writeResponses(back, join(tmp.dir, 'held-out-samples.jsonl'));
  chrome = await launchChromium();
}, 120_000);

afterAll(async () => {
  await chrome?.close();
  await full?.server.close();
  await heldOut?.server.close();
  tmp?.cleanup();
});

/** Two decimals as the pages print them: a value that rounds to zero shows without a sign ("0.00", not "-0.00"). */
function two(v: number): string {
  const s = v.toFixed(2);
  return s === '-0.00' ? '0.00' : s;
}

async function visit(w: WatchedPage, base: string, hash: string, shot: string): Promise<void> {
  await openRoute(w.page, base, hash);
  await w.page.screenshot({ path: join(shots, `${shot}.png`), fullPage: true });
}

describe('leaderboard site (NAEP, headless Chromium)', () => {
  it('loads every page with no console error, CSP violation or request off the page', async () => {
    const w = await watchedPage(chrome.browser, full.server.url);
    const base = full.server.url;
    await visit(w, base, '#/', 'leaderboard');
    await visit(w, base, '#/model/0', 'model-top');
    await visit(w, base, '#/model/9', 'model-middle');
    // A model whose fallback gate is shut gets a sentence instead of a chart of its prior.
    for (let r = 0; r < full.bundle.llms.length; r++) {
      await openRoute(w.page, base, `#/model/${r}`);
      const use = (JSON.parse(readFileSync(join(tmp.dir, 'site-full', 'data', 'models', `${r}.json`), 'utf8')) as ModelShard).fallbackUse!;
      expect(use).toBeGreaterThanOrEqual(0);
      expect(await w.page.$$eval('#fallback-unused', (els) => els.length)).toBe(use < 0.01 ? 1 : 0);
    }
    await visit(w, base, `#/item/0/0/${encodeURIComponent(full.bundle.items[0]!.id)}`, 'item');
    await visit(w, base, '#/benchmark/all', 'benchmark-all');
    await visit(w, base, '#/benchmark/0', 'benchmark-0');
    await visit(w, base, '#/score', 'score');
    expect(w.problems).toEqual([]);
    // The CSP reaches the page both ways: header and meta tag.
    const res = await fetch(base);
    expect(res.headers.get('content-security-policy')).toMatch(/^default-src 'none'; script-src 'self';.*frame-ancestors 'none'$/);
    expect(await res.text()).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'self';/);
    await w.page.close();
  });

  it('shows all 18 LLMs in theta order, each with its 95% interval', async () => {
    const w = await watchedPage(chrome.browser, full.server.url);
    await openRoute(w.page, full.server.url, '#/');
    const rows = await w.page.$$eval('#board tbody tr', (trs) =>
      trs.map((tr) => ({
        id: tr.getAttribute('data-model'),
        theta: Number(tr.getAttribute('data-theta')),
        text: tr.textContent ?? '',
        interval: tr.querySelector('svg.interval line.ci') !== null,
      })),
    );
    const expected = full.bundle.llms.slice().sort((a, b) => b.theta - a.theta);
    expect(rows.map((r) => r.id)).toEqual(expected.map((l) => l.id));
    expect(rows.length).toBe(18);
    rows.forEach((r, t) => {
      const l = expected[t]!;
      expect(r.theta).toBe(l.theta);
      expect(r.interval).toBe(true);
      expect(r.text).toContain(`[${two(l.theta - 1.959964 * l.se!)}, ${two(l.theta + 1.959964 * l.se!)}]`);
    });
    // The Fallback column says "unused" exactly where the model's page does (mean gate below 1%),
    // not a range that is only the prior's; leaderboard.json and the model shards agree on the gate.
    const board = JSON.parse(readFileSync(join(tmp.dir, 'site-full', 'data', 'leaderboard.json'), 'utf8')) as LeaderboardShard;
    const fallbackCells = await w.page.$$eval('#board tbody tr', (trs) => trs.map((tr) => tr.querySelectorAll('td')[7]?.textContent ?? ''));
    let unused = 0;
    board.llms.forEach((l, r) => {
      const shard = JSON.parse(readFileSync(join(tmp.dir, 'site-full', 'data', 'models', `${r}.json`), 'utf8')) as ModelShard;
      expect(l.fallbackUse).toBe(shard.fallbackUse);
      const cell = fallbackCells[rows.findIndex((row) => row.id === l.id)]!;
      if (l.fallbackUse! < 0.01) {
        unused++;
        expect(cell).toBe('unused');
      } else {
        expect(cell).toBe(two(l.fallbackStrength));
      }
    });
    expect(unused).toBeGreaterThan(0);
    // Sorting by a column and searching change the table; the keyboard reaches the sort buttons.
    await w.page.getByRole('button', { name: 'Model' }).focus();
    await w.page.keyboard.press('Enter');
    const sorted = await w.page.$$eval('#board tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-model')));
    expect(sorted).toEqual(expected.map((l) => l.id).sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1)));
    await w.page.fill('input[type="search"]', 'qwen');
    expect(await w.page.$$eval('#board tbody tr', (trs) => trs.length)).toBe(expected.filter((l) => /qwen/i.test(l.id)).length);
    expect(w.problems).toEqual([]);
    await w.page.close();
  });

  it('draws one option curve per option, and shows an HTML option text as text that runs nothing', async () => {
    const w = await watchedPage(chrome.browser, full.server.url);
    const it0 = full.bundle.items.find((i) => i.id === xssItem.id)!;
    await visit(w, full.server.url, `#/item/${xssItem.b}/${xssItem.s}/${encodeURIComponent(xssItem.id)}`, 'item-xss');
    expect(await w.page.$$eval('#occ svg g[aria-label="line"] path', (ps) => ps.length)).toBe(it0.nOptions);
    // One label per option, and no two overprint (history/0: three distractor curves start
    // together at the left edge), as laid out by the browser's own text metrics.
    const boxes = await w.page.$$eval('#occ svg g[aria-label="text"] text', (ts) =>
      ts.map((t) => {
        const r = (t as SVGGraphicsElement).getBoundingClientRect();
        return { text: t.textContent ?? '', x0: r.left, x1: r.right, y0: r.top, y1: r.bottom };
      }),
    );
    expect(boxes.map((b) => b.text[0]).sort()).toEqual(Array.from({ length: it0.nOptions }, (_, k) => String.fromCharCode(65 + k)));
    for (const p of boxes) {
      for (const q of boxes) {
        if (p === q) continue;
        const apart = p.x1 <= q.x0 || q.x1 <= p.x0 || p.y1 <= q.y0 || q.y1 <= p.y0;
        expect(apart, `labels ${JSON.stringify(p.text)} and ${JSON.stringify(q.text)} overlap`).toBe(true);
      }
    }
    const texts = await w.page.$$eval('ul.options li .txt', (els) => els.map((e) => e.textContent));
    expect(texts).toEqual(it0.options);
    expect(await w.page.$$eval('img', (els) => els.length)).toBe(0);
    expect(await w.page.evaluate(() => document.body.innerHTML.includes('<img src=x'))).toBe(false);
    expect(w.problems).toEqual([]);
    await w.page.close();
  });

  it('scores a dropped lm-eval samples file (and a tidy file) in the browser as llm-nrm score does', async () => {
    const w = await watchedPage(chrome.browser, heldOut.server.url);
    const base = heldOut.server.url;
    await openRoute(w.page, base, '#/');
    expect(await w.page.$$eval('#board tbody tr', (trs) => trs.length)).toBe(17);
    await openRoute(w.page, base, '#/score');
    const bundleFile = join(tmp.dir, 'bundle17.json');
    const expectedSamples = cliTheta(bundleFile, join(tmp.dir, 'held-out-samples.jsonl'));
    const expectedTidy = cliTheta(bundleFile, heldOut.tidy);

    await w.page.fill('#score-model', HELD_OUT);
    const name = heldOut.samples.split('/').pop()!;
    await w.page.setInputFiles('#score-file', { name, mimeType: 'application/json', buffer: readFileSync(heldOut.samples) });
    await w.page.waitForSelector('#scored tbody tr', { timeout: 30_000 });
    const fromSamples = Number(await w.page.getAttribute('#scored tbody tr', 'data-theta'));
    expect(Math.abs(fromSamples - expectedSamples)).toBeLessThan(1e-6);
    await w.page.screenshot({ path: join(shots, 'score-result.png'), fullPage: true });

    await w.page.setInputFiles('#score-file', { name: 'held-out.jsonl', mimeType: 'application/json', buffer: readFileSync(heldOut.tidy) });
    await w.page.waitForFunction(() => /^Scored .* tidy records/.test(document.querySelector('.status')?.textContent ?? ''), null, { timeout: 30_000 });
    const fromTidy = Number(await w.page.getAttribute('#scored tbody tr', 'data-theta'));
    expect(Math.abs(fromTidy - expectedTidy)).toBeLessThan(1e-6);

    // A model id is untrusted text too: an HTML id shows as text on the score table and the board,
    // and a bidi override in it is shown escaped (it would show `txt.exe` as `exe.txt`).
    const evil = '<img src=y onerror=alert(2)> \u202etxt.exe';
    await w.page.fill('#score-model', evil);
    await w.page.setInputFiles('#score-file', { name, mimeType: 'application/json', buffer: readFileSync(heldOut.samples) });
    await w.page.waitForFunction((id) => document.querySelector('#scored tbody tr')?.getAttribute('data-model') === id, evil, { timeout: 30_000 });
    expect(await w.page.textContent('#scored tbody tr td')).toBe('<img src=y onerror=alert(2)> \\u202etxt.exe');
    expect(await w.page.$$eval('img', (els) => els.length)).toBe(0);

    // All three now sit on the board, marked as the visitor's, in theta order among the 17.
    await w.page.click('#see-board');
    await w.page.waitForSelector('body[data-ready="#/"]');
    const rows = await w.page.$$eval('#board tbody tr', (trs) =>
      trs.map((tr) => ({ id: tr.getAttribute('data-model'), theta: Number(tr.getAttribute('data-theta')), mine: tr.classList.contains('mine') })),
    );
    expect(rows.length).toBe(20);
    expect(
      rows
        .filter((r) => r.mine)
        .map((r) => r.id)
        .sort(),
    ).toEqual([evil, HELD_OUT, HELD_OUT].sort());
    expect(await w.page.$$eval('img', (els) => els.length)).toBe(0);
    expect(rows.map((r) => r.theta)).toEqual(rows.map((r) => r.theta).sort((a, b) => b - a));
    await w.page.screenshot({ path: join(shots, 'leaderboard-with-yours.png'), fullPage: true });
    expect(w.problems).toEqual([]);
    await w.page.close();
  });
});
