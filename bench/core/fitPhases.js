#!/usr/bin/env node
// Where the time of `llm-nrm fit <file.jsonl>` goes: the CLI's fit pipeline (packages/cli/src/
// commands/fit.ts) phase by phase, in one process, wall and CPU seconds (process.cpuUsage: this
// thread and every worker: the engine's, the reader's, the hash's), and this (main) thread's own CPU
// seconds (Linux /proc, 10 ms ticks; "-" elsewhere), median of --runs. The fit runs with the CLI's
// default engine. As in the CLI, a checkout whose provenance hashes off the main thread
// (startHashInputs) starts the input hash after the read and waits for it before the bundle:
// its "input hash" row is that wait.
//   node bench/core/fitPhases.js --file fleet.jsonl [--runs 3] [--root /path/to/other/checkout]
// Without --file, simulates 189 x 2,000 (seed 7, as packages/engine-wasm/bench/vs-torch.js does).
// --root: time another checkout's built packages (before/after on the same machine and load).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt);
const root = opt('root', join(here, '../..'));
const core = await import(join(root, 'packages/core/dist/index.js'));
const { readAnyBank, writeFileAtomic } = await import(join(root, 'packages/adapters/dist/index.js'));
const cli = join(root, 'packages/cli/dist');
const { loadEngine } = await import(join(cli, 'engines.js'));
const provenance = await import(join(cli, 'provenance.js'));
const { hashInputs } = provenance;
const hashOffThread = provenance.startHashInputs !== undefined;
const runs = Number(opt('runs', '3'));
const tmp = mkdtempSync(join(tmpdir(), 'llm-nrm-fit-phases-'));
let file = opt('file', null);
if (file === null) {
  file = join(tmp, 'fleet.jsonl');
  execFileSync(process.execPath, [join(cli, 'bin.js'), 'simulate', '-o', file, '--seed', '7', '-q']);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
// This thread's CPU seconds (utime + stime of its /proc task, in clock ticks of 10 ms).
const mainStat = `/proc/self/task/${process.pid}/stat`;
const mainCpu = () => {
  try {
    const f = readFileSync(mainStat, 'utf8');
    const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return (Number(rest[11]) + Number(rest[12])) / 100;
  } catch {
    return NaN;
  }
};
const table = new Map();
let m0 = mainCpu();
function phase(name, t0, c0, m = m0) {
  const wall = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  if (!table.has(name)) table.set(name, { wall: [], cpu: [], main: [] });
  table.get(name).wall.push(wall);
  table.get(name).cpu.push((c.user + c.system) / 1e6);
  table.get(name).main.push(mainCpu() - m);
}
const start = () => {
  m0 = mainCpu();
  return [performance.now(), process.cpuUsage()];
};
const engine = await loadEngine('auto');
let failed = false;
try {
  for (let r = 0; r < runs; r++) {
    let [t, c] = start();
    const [tAll, cAll] = [t, c];
    const mAll = m0;
    // As the CLI reads (responsesInput.ts): records stream into the bank, none kept.
    const { bank } = await readAnyBank(file, {});
    phase('read into the bank (readAnyBank)', t, c);
    const hashing = hashOffThread ? (await provenance.startHashInputs(file, { tidyOnly: true })).done : undefined;
    [t, c] = start();
    core.checkDesign(bank);
    phase('design checks', t, c);
    [t, c] = start();
    const res = core.fit(bank, { engine, maxIterations: 3000 });
    phase('fit with SEs (twin)', t, c);
    [t, c] = start();
    const inputs = await (hashing ?? hashInputs(file, { tidyOnly: true }));
    phase(hashOffThread ? 'input hash (provenance; wait)' : 'input hash (provenance)', t, c);
    [t, c] = start();
    const bundle = core.toBundle(res, { version: '0', inputs, command: 'bench' });
    phase('bundle', t, c);
    [t, c] = start();
    await writeFileAtomic(join(tmp, 'b.json'), JSON.stringify(bundle, null, 2) + '\n');
    phase('write bundle', t, c);
    phase('total', tAll, cAll, mAll);
    process.stderr.write(`run ${r + 1}: ${res.passes} passes, loss ${res.loss.toFixed(2)}, SE[0] ${res.se[0].toPrecision(12)}\n`);
  }
  console.log(`phase`.padEnd(42), 'wall s'.padStart(8), 'CPU s'.padStart(8), 'main CPU'.padStart(9), `(median of ${runs}; ${root})`);
  for (const [name, v] of table) {
    const main = median(v.main);
    console.log(
      name.padEnd(42),
      median(v.wall).toFixed(2).padStart(8),
      median(v.cpu).toFixed(2).padStart(8),
      (Number.isNaN(main) ? '-' : main.toFixed(2)).padStart(9),
    );
  }
} catch (e) {
  // A bench that fails says so (it once exited 0 silently after an API change).
  failed = true;
  console.error(e);
} finally {
  rmSync(tmp, { recursive: true, force: true });
  engine.dispose?.();
  process.exit(failed ? 1 : 0);
}
