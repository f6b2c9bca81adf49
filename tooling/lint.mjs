#!/usr/bin/env node
// Project lint: the rules of DESIGN.md and STYLE.md that a type checker does not enforce.
//   node ../../tooling/lint.mjs [--browser]   (run from a package folder; --browser for core/analysis)
// - no `export *` (explicit export lists);
// - no Math.random in library code (every random path takes a seed);
// - no focused or skipped tests (.only, .skip, .todo, xit, xdescribe);
// - with --browser: no `node:` imports and no Node globals (process, Buffer) in library code.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const browser = process.argv.includes('--browser');
const root = process.cwd();
const problems = [];

function walk(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (/\.(ts|tsx|mts)$/.test(name) && !name.endsWith('.d.ts')) check(p);
  }
}

function check(file) {
  const text = readFileSync(file, 'utf8');
  const isTest = /\.test\.tsx?$/.test(file);
  text.split('\n').forEach((line, i) => {
    const at = `${relative(root, file)}:${i + 1}`;
    const code = line.replace(/\/\/.*$/, '');
    if (/^\s*export\s*\*\s*from/.test(code)) problems.push(`${at}: export * (use an explicit export list)`);
    if (isTest) {
      if (/\b(it|test|describe)\.(only|skip|todo)\(|\bx(it|describe)\(/.test(code)) problems.push(`${at}: focused or skipped test`);
      return;
    }
    if (/\bMath\.random\(/.test(code)) problems.push(`${at}: Math.random in library code (take a seed; see randomSource)`);
    if (browser) {
      if (/from\s+['"]node:|import\(['"]node:|require\(['"]node:/.test(code)) problems.push(`${at}: node: import in a browser-safe package`);
      if (/\b(process\.|Buffer\.)/.test(code)) problems.push(`${at}: Node global in a browser-safe package`);
    }
  });
}

walk(join(root, 'src'));
if (problems.length > 0) {
  process.stderr.write(`${problems.join('\n')}\n${problems.length} lint problem(s)\n`);
  process.exit(1);
}
process.stdout.write(`lint: ${relative(join(root, '..', '..'), root) || '.'} clean\n`);
