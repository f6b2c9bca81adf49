#!/usr/bin/env node
// What `llm-nrm fit --se twin` adds to the whole command: a simulated fleet written as JSON Lines,
// then the built CLI (packages/cli/dist/bin.js) run with --se quasi and --se twin, alternated,
// --runs times each; prints per mode the median wall and CPU seconds (user + system of the child,
// every thread, by /usr/bin/time) and the twin's share over 'quasi'.
//   node bench/core/seModeCost.js [--models 189] [--items 2000] [--seed 7] [--runs 3]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as core from '@llm-nrm/core';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt);
const [models, items, seed, runs] = ['models', 'items', 'seed', 'runs'].map((k, i) => Number(opt(k, ['189', '2000', '7', '3'][i])));
const tmp = mkdtempSync(join(tmpdir(), 'llm-nrm-se-cost-'));
const file = join(tmp, 'fleet.jsonl');
const f = core.simulateFleet({ models, items, seed });
writeFileSync(file, [...core.bankRecords(f.bank)].map((r) => JSON.stringify(r)).join('\n') + '\n');
const bin = join(here, '../../packages/cli/dist/bin.js');
const times = { quasi: [], twin: [] };
for (let r = 0; r < runs; r++) {
  for (const mode of r % 2 === 0 ? ['quasi', 'twin'] : ['twin', 'quasi']) {
    const out = join(tmp, `${mode}.json`);
    const tf = join(tmp, 'time.txt');
    execFileSync('/usr/bin/time', ['-f', '%e %U %S', '-o', tf, process.execPath, bin, 'fit', file, '--se', mode, '-o', out, '-q'], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const [wall, user, sys] = readFileSync(tf, 'utf8').trim().split('\n').pop().split(' ').map(Number);
    times[mode].push([wall, user + sys]);
    const b = JSON.parse(readFileSync(out, 'utf8'));
    console.error(`run ${r + 1} ${mode}: ${wall.toFixed(2)} s wall, ${(user + sys).toFixed(2)} CPU-s; fit ${b.fit.passes} passes; seMode ${b.fit.seMode}`);
  }
}
const med = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const q = [med(times.quasi.map((t) => t[0])), med(times.quasi.map((t) => t[1]))];
const t = [med(times.twin.map((x) => x[0])), med(times.twin.map((x) => x[1]))];
console.log(
  `${models} x ${items} (seed ${seed}), median of ${runs}: --se quasi ${q[0].toFixed(2)} s wall / ${q[1].toFixed(2)} CPU-s; --se twin ${t[0].toFixed(2)} s / ${t[1].toFixed(2)} CPU-s; the twin adds ${(100 * (t[0] / q[0] - 1)).toFixed(1)}% wall, ${(100 * (t[1] / q[1] - 1)).toFixed(1)}% CPU`,
);
rmSync(tmp, { recursive: true, force: true });
