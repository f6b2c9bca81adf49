// What npm users get (issue 27): pack every published package, install the tarballs into an empty
// folder with a plain `npm install` (no workspaces, no root `overrides`), and check that install:
// its size, that arquero gets the pinned flechette, the CLI (help, demo, simulate + fit, a site,
// `--engine tfjs` without engine-tfjs), the READMEs' first examples; every tarball's README.md,
// LICENSE and package.json fields. Then `changeset version` on a throwaway copy of the repository
// (it consumes .changeset/*.md) and `npm publish --dry-run` of every tarball. Prints sizes and times.
//
//   node tooling/pack-check.mjs [--no-build] [--runs N] [--keep]
//
// engine-tfjs is left out of that install (the CLI does not depend on it; its TensorFlow.js, about
// 270 MB, is what the 60 MB budget keeps out), and added after the size check, as its message says.
import { execFileSync, spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const runs = Number(args[args.indexOf('--runs') + 1] || 3) || 3;
const MAX_NODE_MODULES_MB = 60;
const FLECHETTE = '2.6.0';
const REQUIRED_FIELDS = ['engines', 'license', 'repository', 'homepage', 'bugs'];
/** Packages the install leaves out (optional for the CLI, too big for the budget). */
const NOT_INSTALLED = new Set(['@llm-nrm/engine-tfjs']);
/**
 * Packages whose README's first ```ts example is run in the install (STYLE.md: a README's first
 * example runs in CI): after the fit, which writes the bundle.json site's reads, and after
 * engine-tfjs is added.
 */
const README_EXAMPLES = ['@llm-nrm/core', '@llm-nrm/analysis', '@llm-nrm/adapters', '@llm-nrm/engine-wasm', '@llm-nrm/engine-tfjs', '@llm-nrm/site'];

const failures = [];
const fail = (message) => {
  failures.push(message);
  console.error(`FAIL ${message}`);
};
const log = (message) => console.log(message);

function run(cmd, argv, options = {}) {
  const t = performance.now();
  const r = spawnSync(cmd, argv, { encoding: 'utf8', maxBuffer: 64 << 20, ...options, env: { ...process.env, ...options.env } });
  const seconds = (performance.now() - t) / 1000;
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', seconds };
}

function mustRun(label, cmd, argv, options) {
  const r = run(cmd, argv, options);
  if (r.code !== 0) fail(`${label}: exit ${r.code}\n${r.stdout.slice(-2000)}${r.stderr.slice(-4000)}`);
  return r;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mb = (bytes) => (bytes / 2 ** 20).toFixed(1);

// The published packages: every workspace under packages/ that is not private.
const packages = readdirSync(join(root, 'packages'), { withFileTypes: true })
  .filter((e) => e.isDirectory() && existsSync(join(root, 'packages', e.name, 'package.json')))
  .map((e) => ({ dir: join(root, 'packages', e.name), json: JSON.parse(readFileSync(join(root, 'packages', e.name, 'package.json'), 'utf8')) }))
  .filter((p) => !p.json.private);

if (!args.includes('--no-build')) {
  log('building (npm run build)');
  mustRun('npm run build', 'npm', ['run', 'build', '--silent'], { cwd: root, env: { TURBO_TELEMETRY_DISABLED: '1' } });
}

const work = mkdtempSync(join(tmpdir(), 'llm-nrm-pack-check-'));
const tgzDir = join(work, 'tarballs');
const app = join(work, 'app');
mkdirSync(tgzDir);
mkdirSync(join(app, 'tmp'), { recursive: true });
log(`work folder: ${work}`);

// 1. Pack, and check every tarball's contents and manifest.
const tarballs = [];
log('\npackage                  tarball    unpacked  files');
for (const p of packages) {
  const r = mustRun(`npm pack ${p.json.name}`, 'npm', ['pack', '--json', '--pack-destination', tgzDir], { cwd: p.dir });
  if (r.code !== 0) continue;
  const [info] = JSON.parse(r.stdout);
  const files = new Set(info.files.map((f) => f.path));
  for (const need of ['README.md', 'LICENSE', 'package.json']) if (!files.has(need)) fail(`${p.json.name}: the tarball has no ${need}`);
  for (const field of REQUIRED_FIELDS) if (p.json[field] === undefined) fail(`${p.json.name}: package.json has no "${field}"`);
  if (p.json.engines?.node === undefined) fail(`${p.json.name}: package.json has no engines.node`);
  if (p.json.repository?.directory === undefined) fail(`${p.json.name}: package.json's repository has no directory`);
  // A README link must resolve inside the tarball (or be absolute).
  const readme = readFileSync(join(p.dir, 'README.md'), 'utf8');
  for (const [, target] of readme.matchAll(/\]\(([^)#\s]+)[^)]*\)/g)) {
    if (/^[a-z]+:/.test(target)) continue;
    if (![...files].some((f) => f === target || f.startsWith(`${target.replace(/\/$/, '')}/`)))
      fail(`${p.json.name}: README links ${target}, which the tarball does not hold`);
  }
  tarballs.push({ name: p.json.name, file: join(tgzDir, info.filename) });
  log(`${p.json.name.padEnd(24)} ${mb(info.size).padStart(5)} MB  ${mb(info.unpackedSize).padStart(5)} MB  ${String(info.entryCount).padStart(5)}`);
}

// 2. A plain install of the tarballs in an empty folder: what `npm install llm-nrm` does.
writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'llm-nrm-pack-check', private: true }, null, 2));
const toInstall = tarballs.filter((t) => !NOT_INSTALLED.has(t.name)).map((t) => t.file);
const install = mustRun('npm install <tarballs>', 'npm', ['install', '--no-audit', '--no-fund', ...toInstall], { cwd: app });
const kib = Number(execFileSync('du', ['-sk', join(app, 'node_modules')], { encoding: 'utf8' }).split(/\s/)[0]);
log(
  `\nnpm install of ${toInstall.length} tarballs (not ${[...NOT_INSTALLED].join(', ')}): ${install.seconds.toFixed(1)} s, node_modules ${(kib / 1024).toFixed(1)} MB (at most ${MAX_NODE_MODULES_MB})`,
);
if (kib / 1024 > MAX_NODE_MODULES_MB) fail(`node_modules is ${(kib / 1024).toFixed(1)} MB, over ${MAX_NODE_MODULES_MB} MB`);
if (existsSync(join(app, 'node_modules/@tensorflow'))) fail('the install holds @tensorflow packages');
// arquero must get the flechette that adapters pins (2.7.0 needs a package that 404s).
const nested = join(app, 'node_modules/arquero/node_modules/@uwdata/flechette/package.json');
const top = join(app, 'node_modules/@uwdata/flechette/package.json');
const flechette = JSON.parse(readFileSync(existsSync(nested) ? nested : top, 'utf8')).version;
log(`arquero's @uwdata/flechette: ${flechette}${existsSync(nested) ? ' (nested under arquero)' : ''}`);
if (flechette !== FLECHETTE) fail(`arquero resolves @uwdata/flechette ${flechette}, not ${FLECHETTE}`);

// 3. The CLI there, through npx, as a user runs it (TMPDIR inside the folder: the demo's site goes there).
const env = { TMPDIR: join(app, 'tmp'), NO_COLOR: '1' };
const npx = (label, argv) => mustRun(label, 'npx', ['llm-nrm', ...argv], { cwd: app, env });
const helpTimes = [];
for (let i = 0; i < Math.max(runs, 5); i++) {
  const r = npx('npx llm-nrm --help', ['--help']);
  helpTimes.push(r.seconds);
  if (i === 0) {
    for (const word of ['convert', 'fit', 'score', 'demo', 'leaderboard']) if (!r.stdout.includes(`llm-nrm ${word}`)) fail(`--help does not list ${word}`);
    if (!r.stdout.includes('https://github.com/llm-nrm/llm-nrm')) fail('--help does not point at the docs that ship');
  }
}
// The same without npx (its own start-up is part of what a user waits for, but not the CLI's).
const nodeHelpTimes = [];
for (let i = 0; i < Math.max(runs, 5); i++)
  nodeHelpTimes.push(mustRun('node llm-nrm --help', process.execPath, [join(app, 'node_modules/llm-nrm/bin/llm-nrm.js'), '--help'], { cwd: app, env }).seconds);
const demoTimes = [];
for (let i = 0; i < runs; i++) {
  const r = npx('npx llm-nrm demo', ['demo']);
  demoTimes.push(r.seconds);
  if (i === 0 && !/converged\s+yes/.test(r.stdout)) fail(`the demo did not converge:\n${r.stdout.slice(-1500)}`);
}
npx('npx llm-nrm simulate', ['simulate', '--models', '20', '--items', '150', '--seed', '3', '-o', 'sim.jsonl.gz']);
const fit = npx('npx llm-nrm fit', ['fit', 'sim.jsonl.gz', '-o', 'bundle.json']);
if (!existsSync(join(app, 'bundle.json'))) fail('fit wrote no bundle.json');
npx('npx llm-nrm leaderboard', ['leaderboard', 'bundle.json', '-o', 'site']);
if (!existsSync(join(app, 'site/index.html'))) fail('leaderboard wrote no site/index.html');
const tfjs = run('npx', ['llm-nrm', 'fit', 'sim.jsonl.gz', '-o', 'tfjs.json', '--engine', 'tfjs'], { cwd: app, env });
if (tfjs.code === 0 || !tfjs.stderr.includes('npm install @llm-nrm/engine-tfjs') || !tfjs.stderr.includes('tfjs-node-gpu'))
  fail(`--engine tfjs without engine-tfjs should fail saying how to add it; exit ${tfjs.code}:\n${tfjs.stderr.slice(-1500)}`);
// What that message says works: engine-tfjs added beside the CLI (its tfjs-node optional
// dependencies are dropped where libtensorflow cannot download), then a small fit on it.
const tfjsTgz = tarballs.find((t) => t.name === '@llm-nrm/engine-tfjs');
let tfjsFit;
if (tfjsTgz !== undefined) {
  const added = mustRun('npm install <engine-tfjs tarball>', 'npm', ['install', '--no-audit', '--no-fund', tfjsTgz.file], { cwd: app });
  npx('npx llm-nrm simulate (small)', ['simulate', '--models', '8', '--items', '40', '--seed', '5', '-o', 'small.jsonl']);
  tfjsFit = npx('npx llm-nrm fit --engine tfjs', ['fit', 'small.jsonl', '-o', 'tfjs.json', '--engine', 'tfjs']);
  const engine = existsSync(join(app, 'tfjs.json')) ? JSON.parse(readFileSync(join(app, 'tfjs.json'), 'utf8')).fit?.engine : undefined;
  if (!/tfjs/.test(String(engine))) fail(`fit --engine tfjs after installing engine-tfjs ran engine ${engine}`);
  tfjsFit.install = added.seconds;
}
for (const name of README_EXAMPLES) {
  const readme = readFileSync(join(root, 'packages', name.split('/')[1], 'README.md'), 'utf8');
  const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  if (example === undefined) {
    fail(`${name}: README has no ts example`);
    continue;
  }
  const file = join(app, `readme-${name.split('/')[1]}.mjs`);
  writeFileSync(file, example);
  mustRun(`${name} README example`, process.execPath, [file], { cwd: app, env });
}
log(`npx llm-nrm --help: median ${median(helpTimes).toFixed(2)} s of ${helpTimes.length} (${helpTimes.map((t) => t.toFixed(2)).join(', ')})`);
log(`node node_modules/llm-nrm/bin/llm-nrm.js --help: median ${median(nodeHelpTimes).toFixed(2)} s of ${nodeHelpTimes.length}`);
log(`npx llm-nrm demo:   median ${median(demoTimes).toFixed(1)} s of ${demoTimes.length} (${demoTimes.map((t) => t.toFixed(1)).join(', ')})`);
log(`npx llm-nrm fit (20 x 150 simulated): ${fit.seconds.toFixed(1)} s; --engine tfjs without it: exit ${tfjs.code}, says how to add it`);
log(`README first examples run there: ${README_EXAMPLES.join(', ')}`);
if (tfjsFit !== undefined)
  log(`npm install <engine-tfjs tarball> there: ${tfjsFit.install.toFixed(1)} s; then npx llm-nrm fit --engine tfjs (8 x 40): ${tfjsFit.seconds.toFixed(1)} s`);

// 4. `changeset version` on a throwaway copy of the repository's files (tracked and new, not ignored).
const copy = join(work, 'repo');
const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
  .split('\0')
  .filter(Boolean);
for (const f of listed) {
  if (!existsSync(join(root, f))) continue; // deleted in the work tree
  mkdirSync(dirname(join(copy, f)), { recursive: true });
  cpSync(join(root, f), join(copy, f));
}
const pending = readdirSync(join(copy, '.changeset')).filter((f) => f.endsWith('.md') && f !== 'README.md').length;
const version = mustRun('changeset version', process.execPath, [join(root, 'node_modules/@changesets/cli/bin.js'), 'version'], { cwd: copy });
if (version.code === 0) {
  const left = readdirSync(join(copy, '.changeset')).filter((f) => f.endsWith('.md') && f !== 'README.md').length;
  if (left !== 0) fail(`changeset version left ${left} changesets`);
  const versions = packages.map((p) => {
    const rel = p.dir.slice(root.length);
    const j = JSON.parse(readFileSync(join(copy, rel, 'package.json'), 'utf8'));
    if (!existsSync(join(copy, rel, 'CHANGELOG.md'))) fail(`changeset version wrote no CHANGELOG.md for ${j.name}`);
    return `${j.name} ${j.version}`;
  });
  log(`\nchangeset version (on a copy): ${pending} changesets -> ${versions.join(', ')}`);
}

// 5. `npm publish --dry-run` of every tarball (what `changeset publish` runs, without the upload).
for (const t of tarballs) mustRun(`npm publish --dry-run ${t.name}`, 'npm', ['publish', '--dry-run', t.file], { cwd: work });
log(`npm publish --dry-run: ${tarballs.length} tarballs`);

if (!args.includes('--keep')) rmSync(work, { recursive: true, force: true });
if (failures.length > 0) {
  console.error(`\npack-check: ${failures.length} failure(s)`);
  process.exit(1);
}
log('\npack-check: ok');
