#!/usr/bin/env node
// Where the time of `llm-nrm fit <file.jsonl>` goes: the CLI's fit pipeline (packages/cli/src/
// commands/fit.ts) phase by phase, in one process, wall and CPU seconds (process.cpuUsage: this
// thread and the engine's workers), median of --runs. The fit runs with the CLI's default engine.
//   node bench/core/fitPhases.js --file fleet.jsonl [--runs 3] [--root /path/to/other/checkout]
// Without --file, simulates 189 x 2,000 (seed 7, as packages/engine-wasm/bench/vs-torch.js does).
// --root: time another checkout's built packages (before/after on the same machine and load).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt);
const root = opt('root', join(here, '../..'));
const core = await import(join(root, 'packages/core/dist/index.js'));
const { readAnyResponses, writeFileAtomic } = await import(join(root, 'packages/adapters/dist/index.js'));
const cli = join(root, 'packages/cli/dist');
const { loadEngine } = await import(join(cli, 'engines.js'));
const { hashInputs } = await import(join(cli, 'provenance.js'));
const runs = Number(opt('runs', '3'));
const tmp = mkdtempSync(join(tmpdir(), 'llm-nrm-fit-phases-'));
let file = opt('file', null);
if (file === null) {
  file = join(tmp, 'fleet.jsonl');
  execFileSync(process.execPath, [join(cli, 'bin.js'), 'simulate', '-o', file, '--seed', '7', '-q']);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const table = new Map();
function phase(name, t0, c0) {
  const wall = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  if (!table.has(name)) table.set(name, { wall: [], cpu: [] });
  table.get(name).wall.push(wall);
  table.get(name).cpu.push((c.user + c.system) / 1e6);
}
const engine = await loadEngine('auto');
try {
  for (let r = 0; r < runs; r++) {
    let t = performance.now();
    let c = process.cpuUsage();
    const tAll = t;
    const cAll = c;
    const input = await readAnyResponses(file, {});
    phase('read + check records (readAnyResponses)', t, c);
    ((t = performance.now()), (c = process.cpuUsage()));
    const { bank } = core.bankFromRecords(input.records, { sources: input.sources, checked: true });
    phase('bank (bankFromRecords)', t, c);
    ((t = performance.now()), (c = process.cpuUsage()));
    core.checkDesign(bank);
    phase('design checks', t, c);
    ((t = performance.now()), (c = process.cpuUsage()));
    const res = core.fit(bank, { engine, standardErrors: false });
    phase('fit (optimizer)', t, c);
    ((t = performance.now()), (c = process.cpuUsage()));
    const x = res.x;
    // fit's SEs run on the engine's curvature of the fit's own objective (the CLI pays no second
    // kernel): a second objective stands in for it, its set-up timed apart. (A checkout whose
    // thetaStandardErrors predates `curvature` ignores it: core's TypeScript curvature.)
    const objective = engine.curvature ? engine.objective(res.bank, res.family, res.priors) : null;
    const curvature = objective !== null ? engine.curvature(res.bank, res.family, res.priors, objective) : null;
    phase("(the SEs' engine objective; the CLI reuses the fit's)", t, c);
    ((t = performance.now()), (c = process.cpuUsage()));
    const se = core.thetaStandardErrors(res.family, res.bank, res.layout, x, core.freeMask(res.layout), res.priors, 0, {
      profileItems: true,
      errorModel: 'quasi',
      ...(curvature ? { curvature } : {}),
    });
    objective?.dispose?.();
    res.se = se.se;
    phase('standard errors', t, c);
    ((t = performance.now()), (c = process.cpuUsage()));
    const inputs = await hashInputs(file, { tidyOnly: true });
    phase('input hash (provenance)', t, c);
    ((t = performance.now()), (c = process.cpuUsage()));
    const bundle = core.toBundle(res, { version: '0', inputs, command: 'bench' });
    phase('bundle', t, c);
    ((t = performance.now()), (c = process.cpuUsage()));
    await writeFileAtomic(join(tmp, 'b.json'), JSON.stringify(bundle, null, 2) + '\n');
    phase('write bundle', t, c);
    phase('total', tAll, cAll);
    process.stderr.write(`run ${r + 1}: ${res.passes} passes, loss ${res.loss.toFixed(2)}, SE[0] ${se.se[0].toPrecision(12)}\n`);
  }
  console.log(`phase`.padEnd(42), 'wall s'.padStart(8), 'CPU s'.padStart(8), `(median of ${runs})`);
  for (const [name, v] of table) console.log(name.padEnd(42), median(v.wall).toFixed(2).padStart(8), median(v.cpu).toFixed(2).padStart(8));
} finally {
  rmSync(tmp, { recursive: true, force: true });
  engine.dispose?.();
  process.exit(0);
}
