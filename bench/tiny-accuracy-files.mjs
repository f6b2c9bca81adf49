// Issue 30's NAEP accuracy targets the way users meet them: leave-one-LLM-out through the built CLI
// on files. Per LLM: `llm-nrm fit` on the other 17 (a JSON Lines file), `llm-nrm publish --items 41
// --render-prompt`, the held-out LLM's answers to those items written as lm-eval samples (one
// presentation each, the package's prompts), `llm-nrm score <package> <output> --json`; its
// predicted full-bank accuracy against the observed one (argmax over every presentation).
//   node bench/tiny-accuracy-files.mjs      (build first: npm run build; about 6 minutes)
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { bankFromRecords } from '@llm-nrm/core';
import { naepRecords } from './benchFleet.mjs';
import { packageItems, scoreThroughLmEval } from './packageRun.mjs';

const run = promisify(execFile);
const bin = new URL('../packages/cli/dist/bin.js', import.meta.url).pathname;
const cli = async (...args) => (await run(process.execPath, [bin, ...args], { maxBuffer: 1 << 28 })).stdout;
const budget = String(process.env.BUDGET ?? 41);
const records = await naepRecords();
const { bank } = bankFromRecords(records);
const work = mkdtempSync(join(tmpdir(), 'llm-nrm-tiny-accuracy-files-'));
const t0 = performance.now();
let sum = 0;
let worst = 0;
let covered = 0;
console.log(`NAEP, leave-one-LLM-out through the CLI, ${budget} items: | LLM | observed | predicted [90%] | error |`);
try {
  for (const m of bank.models) {
    process.stderr.write(`${m}\n`);
    const dir = join(work, m);
    mkdirSync(dir);
    const calib = join(dir, 'calibration.jsonl');
    writeFileSync(
      calib,
      `${records
        .filter((r) => r.model !== m)
        .map((r) => JSON.stringify(r))
        .join('\n')}\n`,
    );
    await cli('fit', calib, '-o', join(dir, 'bundle.json'), '-q');
    const pkg = join(dir, 'pkg');
    await cli('publish', join(dir, 'bundle.json'), '--responses', calib, '--items', budget, '--render-prompt', '--harness', 'lm-eval', '-o', pkg, '-q');
    const { items, task } = packageItems(pkg);
    const held = records.filter((r) => r.model === m);
    const p = (await scoreThroughLmEval(cli, pkg, held, new Set(items.keys()), task, items, join(dir, 'run')))[0].predictedAccuracy.overall;
    let right = 0;
    for (const r of held) {
      const s = r.probs ?? r.logprobs;
      let best = 0;
      for (let k = 1; k < s.length; k++) if (s[k] > s[best]) best = k;
      if (best === r.key) right++;
    }
    const observed = right / held.length;
    const err = Math.abs(p.accuracy - observed);
    sum += err;
    worst = Math.max(worst, err);
    if (observed >= p.low && observed <= p.high) covered++;
    const pct = (v) => (100 * v).toFixed(1);
    console.log(`| ${m} | ${pct(observed)} | ${pct(p.accuracy)} [${pct(p.low)}, ${pct(p.high)}] | ${pct(err)} |`);
    rmSync(dir, { recursive: true, force: true });
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
const J = bank.models.length;
console.log(
  `MAE ${((100 * sum) / J).toFixed(1)} points, worst ${(100 * worst).toFixed(1)}, 90% intervals cover ${covered}/${J} (${((performance.now() - t0) / 1000).toFixed(0)} s)`,
);
