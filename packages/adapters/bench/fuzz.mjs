// Fuzz every reader with N mutated real fixture records (default 10,000 per reader), through the
// same seeded property as test/fuzz.e2e.test.ts, and print per reader: cases, seconds, and how the
// cases ended (every record out / loss listed as skipped / typed error / valid shorter input).
// Usage (from the repo root or packages/adapters): node packages/adapters/bench/fuzz.mjs [--cases 10000] [--seed 20261201]
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const arg = (name, def) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : def;
};
const cases = Number(arg('cases', '10000'));
const seed = Number(arg('seed', '20261201'));
const root = fileURLToPath(new URL('../../..', import.meta.url));
const started = Date.now();
const res = spawnSync('npx', ['vitest', 'run', '--config', 'vitest.e2e.config.ts', 'packages/adapters/test/fuzz.e2e.test.ts', '--reporter=dot'], {
  cwd: root,
  encoding: 'utf8',
  env: { ...process.env, LLM_NRM_FUZZ_CASES: String(cases), LLM_NRM_FUZZ_SEED: String(seed), LLM_NRM_FUZZ_REPORT: '1' },
  maxBuffer: 1 << 28,
});
const rows = (res.stdout + res.stderr)
  .split('\n')
  .filter((l) => l.includes('FUZZ {'))
  .map((l) => JSON.parse(l.slice(l.indexOf('FUZZ ') + 5)));
console.log(`fuzz: ${cases} cases per reader, seed ${seed}, ${((Date.now() - started) / 1000).toFixed(0)} s in all (node ${process.version})`);
console.log('| reader | cases | seconds | cases/s | all records out | loss listed | typed error | valid shorter input |');
console.log('|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(
    `| ${r.target} | ${r.cases} | ${r.seconds.toFixed(1)} | ${(r.cases / r.seconds).toFixed(0)} | ${r.clean} | ${r.listedLoss} | ${r.typedErrors} | ${r.validShorter} |`,
  );
}
if (res.status !== 0) {
  const all = (res.stdout + res.stderr).split('\n');
  const found = all.filter((l) => /Counterexample|Caused by|FAIL|×|Assertion failed|untyped|silent loss/.test(l));
  console.log('\nPROPERTY FAILURES:\n' + (found.length > 0 ? found : all.slice(-40)).join('\n'));
  process.exit(1);
}
