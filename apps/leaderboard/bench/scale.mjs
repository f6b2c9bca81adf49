#!/usr/bin/env node
// Scale benchmark of the leaderboard site: a simulated fleet of 189 LLMs x 31,554 items (the
// paper's size; core's simulateFleet, seeded), its bundle made from the simulated TRUE parameters
// (no fit: a fit at this size takes far longer and is core's benchmark, not the site's), then
//   1. the site build (siteData + writing the shards), with the calibrated LLMs' responses, timed;
//   2. the same through the CLI from the bundle file alone (`llm-nrm leaderboard bundle.json -o`);
//   3. page timings in headless Chromium: navigation to "interactive" (the app's llm-nrm-ready mark:
//      data fetched, table drawn, handlers attached), for the leaderboard, a model, an item and the
//      benchmark page, median of --runs fresh loads.
// Usage: node bench/scale.mjs [--models 189] [--items 31554] [--runs 5] [--seed 1] [--skip-cli] [--skip-pages]   (npm run build first)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../test/launchChromium.mjs';
import { simulateFleet, toBundle } from '@llm-nrm/core';
import { llmParameterErrors } from '@llm-nrm/analysis';
import { buildSite, serveSite } from '@llm-nrm/site';

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : def;
};
const models = arg('models', 189);
const items = arg('items', 31554);
const runs = arg('runs', 5);
const seed = arg('seed', 1);
const skipCli = process.argv.includes('--skip-cli');
const skipPages = process.argv.includes('--skip-pages');
const median = (v) => {
  const s = v.slice().sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const say = (m) => process.stderr.write(`${m}\n`);
const cli = fileURLToPath(new URL('../../../packages/cli/dist/bin.js', import.meta.url));

const dir = mkdtempSync(join(tmpdir(), 'llm-nrm-leaderboard-bench-'));
try {
  let t = performance.now();
  const fleet = simulateFleet({ models, items, seed });
  say(`simulated ${models} x ${items} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  t = performance.now();
  // SEs of theta: the Fisher-information ones (one pass; fit's observed-information SEs,
  // thetaStandardErrors, take a pass per parameter per LLM, minutes at this size).
  const se = Float64Array.from(llmParameterErrors(fleet.bank, fleet.layout, fleet.truth), (e) => e.theta);
  const result = {
    model: 'llm-nrm',
    parts: fleet.options.parts,
    layout: fleet.layout,
    x: fleet.truth,
    se,
    loss: 0,
    iterations: 0,
    passes: 0,
    seconds: 0,
    converged: true,
    reason: 'simulated true parameters (no fit)',
    optimizer: 'lbfgs',
    engine: 'none',
    trace: [],
    traceSeconds: [],
    tracePasses: [],
    bank: fleet.bank,
    priors: {},
  };
  const bundle = toBundle(result, { version: 'bench', seed });
  const bundleFile = join(dir, 'bundle.json');
  writeFileSync(bundleFile, JSON.stringify(bundle));
  say(`bundle from the true parameters (Fisher SEs by llmParameterErrors) in ${((performance.now() - t) / 1000).toFixed(1)} s`);

  // 1. In-process build with the responses.
  const builds = [];
  const buildCpu = [];
  let res;
  for (let r = 0; r < Math.min(runs, 3); r++) {
    t = performance.now();
    const cpu0 = process.cpuUsage();
    res = await buildSite({ bundle, bank: fleet.bank }, join(dir, 'site'));
    const cpu = process.cpuUsage(cpu0);
    builds.push((performance.now() - t) / 1000);
    buildCpu.push((cpu.user + cpu.system) / 1e6);
    say(
      `build ${r + 1}: ${builds.at(-1).toFixed(1)} s wall, ${buildCpu.at(-1).toFixed(1)} s CPU (data ${res.seconds.data.toFixed(1)} s, write ${res.seconds.write.toFixed(1)} s), ${res.files} files, ${(res.bytes / 1e6).toFixed(0)} MB`,
    );
  }
  // 2. The CLI from the bundle file (no responses).
  const cliRuns = [];
  for (let r = 0; r < (skipCli ? 0 : Math.min(runs, 3)); r++) {
    t = performance.now();
    execFileSync(process.execPath, [cli, 'leaderboard', bundleFile, '-o', join(dir, 'site-cli'), '-q'], { stdio: 'ignore' });
    cliRuns.push((performance.now() - t) / 1000);
    say(`cli build ${r + 1}: ${cliRuns.at(-1).toFixed(1)} s`);
  }

  // 3. Page timings.
  const pages = {};
  if (!skipPages) {
    const server = await serveSite(join(dir, 'site'));
    const launched = await launchChromium();
    const browser = launched.browser;
    const firstItem = bundle.items[0].id;
    const routes = { leaderboard: '#/', model: '#/model/94', item: `#/item/0/0/${encodeURIComponent(firstItem)}`, benchmark: '#/benchmark/all' };
    for (const [name, hash] of Object.entries(routes)) {
      const times = [];
      for (let r = 0; r < runs; r++) {
        const page = await browser.newPage();
        await page.goto(`${server.url}${hash}`);
        await page.waitForSelector(`body[data-ready="${hash}"]`, { timeout: 120_000 });
        times.push(await page.evaluate(() => performance.getEntriesByName('llm-nrm-ready')[0].startTime));
        await page.close();
      }
      pages[name] = { medianMs: Math.round(median(times)), runsMs: times.map(Math.round) };
      say(`${name}: interactive at ${pages[name].medianMs} ms (median of ${runs}: ${pages[name].runsMs.join(', ')})`);
    }
    await launched.close();
    await server.close();
  }
  const out = {
    models,
    items,
    seed,
    cores: cpus().length,
    node: process.version,
    loadavg: loadavg(),
    build: { medianSeconds: median(builds), runs: builds, medianCpuSeconds: median(buildCpu), cpuRuns: buildCpu, files: res.files, megabytes: res.bytes / 1e6 },
    cliBuildBundleOnly: cliRuns.length > 0 ? { medianSeconds: median(cliRuns), runs: cliRuns } : null,
    pages,
  };
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
