#!/usr/bin/env node
// The same bits, the way users meet them: every family's default fit (with its SEs) and the scores of
// the calibration responses against the bundle, through the CLI on files, in this checkout and in
// another (a refactor's base), compared number by number with Object.is. Inputs: the real NAEP
// fixture and seeded simulated fleets (soft, and sparse with hard answers). Both checkouts built.
//   node bench/sameBits.mjs --root /path/to/other/checkout [--families llm-nrm,nrm,...] [--keep DIR] [--except field,...]
// Prints one row per (input, family, output) with the hash of each side and, on a difference, the
// first differing paths; exits 1 if anything differs.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt);
const here = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const other = opt('root', null);
if (other === null) throw new Error('give --root /path/to/other/checkout (built)');
const families = opt('families', 'llm-nrm,nrm,nrm-hard,1pl,2pl,3pl,4pl').split(',');
const keep = opt('keep', null);
const work = keep ?? mkdtempSync(join(tmpdir(), 'llm-nrm-samebits-'));
const naep = resolve(here, '../shared/fixtures/response-matrices/mainlp-llm-psychometrics');

const cli = (root, argv) =>
  execFileSync(process.execPath, [join(root, 'packages/cli/dist/bin.js'), ...argv, '-q'], { cwd: work, maxBuffer: 1 << 28, encoding: 'utf8' });

// Inputs, written once by this checkout's CLI so both sides read the same bytes.
const inputs = {
  naep: join(work, 'naep.jsonl'),
  soft: join(work, 'soft.jsonl'),
  sparse: join(work, 'sparse.jsonl'),
};
cli(here, ['convert', naep, '-o', inputs.naep]);
cli(here, ['simulate', '--models', '30', '--items', '300', '--seed', '3', '-o', inputs.soft]);
cli(here, ['simulate', '--models', '24', '--items', '200', '--seed', '5', '--missing', '0.2', '--hard', '0.3', '-o', inputs.sparse]);

// Fields that are not results: timings, the tool's version and the run's own paths and times.
const VOLATILE = new Set([
  'seconds',
  'wallSeconds',
  'createdAt',
  'toolVersion',
  'version',
  'command',
  'argv',
  'cwd',
  'path',
  'paths',
  'elapsed',
  'traceSeconds',
  'bundle',
  'file',
  'source',
  'sources',
]);
// --except a,b: fields a change is known to alter (named in the note that runs this), left out so that
// everything else is still compared bit for bit.
for (const k of String(opt('except', '')).split(',').filter(Boolean)) VOLATILE.add(k);
const strip = (v) => {
  if (Array.isArray(v)) return v.map(strip);
  if (v !== null && typeof v === 'object') {
    const out = {};
    for (const k of Object.keys(v).sort()) if (!VOLATILE.has(k)) out[k] = strip(v[k]);
    return out;
  }
  return v;
};
const hash = (v) => createHash('sha256').update(JSON.stringify(v)).digest('hex').slice(0, 16);
function diffs(a, b, path = '', out = []) {
  if (out.length >= 5) return out;
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) diffs(a[k], b[k], `${path}.${k}`, out);
  } else if (!Object.is(a, b)) out.push(`${path}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
  return out;
}

let differ = 0;
const rows = [];
for (const [name, file] of Object.entries(inputs)) {
  for (const family of families) {
    const sides = [here, other].map((root, s) => {
      const bundle = join(work, `${name}-${family}-${s}.json`);
      cli(root, ['fit', file, '--model', family, '-o', bundle, '--skip-invalid']);
      const b = strip(JSON.parse(readFileSync(bundle, 'utf8')));
      const scored = strip(JSON.parse(cli(root, ['score', bundle, file, '--json', '--skip-invalid'])));
      return { bundle: b, scored };
    });
    for (const part of ['bundle', 'scored']) {
      const [a, b] = sides.map((s) => s[part]);
      const same = hash(a) === hash(b);
      if (!same) differ++;
      rows.push({ input: name, family, part, here: hash(a), other: hash(b), same });
      if (!same) for (const d of diffs(a, b)) console.log(`  ${name} ${family} ${part}${d}`);
    }
    console.error(`${name} ${family} done`);
  }
}
console.table(rows);
console.log(differ === 0 ? `same bits: ${rows.length} of ${rows.length}` : `${differ} of ${rows.length} differ`);
if (keep === null) rmSync(work, { recursive: true, force: true });
process.exit(differ === 0 ? 0 : 1);
