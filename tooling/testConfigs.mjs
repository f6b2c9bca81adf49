#!/usr/bin/env node
// Every package's tests are typechecked: its tsconfig.test.json must say `"exclude": []` (or an
// exclude without test files), because TypeScript inherits `exclude` from the extended config, whose
// exclude of `src/**/*.test.ts` once left all of core's tests out of `npm run typecheck` unnoticed.
//   node tooling/testConfigs.mjs   (exit 1 naming each config that would leave tests out)
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bad = [];
let checked = 0;
for (const group of ['packages', 'apps']) {
  for (const name of readdirSync(join(root, group))) {
    const file = join(root, group, name, 'tsconfig.test.json');
    if (!existsSync(file)) continue;
    checked++;
    const config = JSON.parse(readFileSync(file, 'utf8'));
    if (!Array.isArray(config.exclude))
      bad.push(`${group}/${name}/tsconfig.test.json: no "exclude" of its own, so the base config's (test files left out) applies`);
    else if (config.exclude.some((p) => /test/.test(p))) bad.push(`${group}/${name}/tsconfig.test.json: excludes ${JSON.stringify(config.exclude)}`);
  }
}
if (bad.length > 0) {
  console.error(bad.join('\n'));
  process.exit(1);
}
console.log(`test tsconfigs: ${checked} include their tests`);
