// The project's guard rails (DESIGN.md "package direction", STYLE.md), in one place. Run by every
// package's `lint` script (`npm run lint`, and `npm test` through turbo): a violation fails it.
// - package direction: core imports no other @llm-nrm package; analysis, adapters and the engines
//   only core (analysis and adapters never each other); site core, analysis and adapters; cli and
//   apps/* anything; tests may also import @llm-nrm/tooling. No relative import leaves its package.
//   A package's benches (bench/) run in Node and may import the package itself and what it may
//   import (the root bench/ package: what it declares).
// - core and analysis library code (and every file a browser entry reaches: adapters/browser,
//   engine-wasm/browser, the leaderboard's page, the site's shard types) import nothing from
//   node:* and use no Node globals.
// - explicit export lists (no `export *`), no Math.random in library code (every random path takes
//   a seed), no focused or skipped tests.
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { browserClosure } from './tooling/eslint/browserClosure.mjs';
import { noImportOutsidePackage } from './tooling/eslint/noImportOutsidePackage.mjs';

const root = fileURLToPath(new URL('.', import.meta.url));

/** The package.json of the package folder `dir`. */
function readPackage(dir) {
  return JSON.parse(readFileSync(`${root}${dir}/package.json`, 'utf8'));
}

/** Which @llm-nrm packages each package may import (absent: any). */
const ALLOWED = {
  'packages/core': [],
  'packages/analysis': ['@llm-nrm/core'],
  'packages/adapters': ['@llm-nrm/core'],
  'packages/engine-tfjs': ['@llm-nrm/core'],
  'packages/engine-wasm': ['@llm-nrm/core'],
  // The site builder (Node): the data every page shows comes from core's and analysis' functions;
  // its folder is written under adapters' output policy.
  'packages/site': ['@llm-nrm/core', '@llm-nrm/analysis', '@llm-nrm/adapters'],
  // Test helpers: imported by tests only, and need core's types.
  tooling: ['@llm-nrm/core'],
  // Core's benches (the private @llm-nrm/bench package): what it declares.
  bench: Object.keys(readPackage('bench').dependencies),
};
/** Packages whose library code must run in a browser as it is. */
const NODE_FREE = ['packages/core', 'packages/analysis'];
/** Browser entries: they and everything they import must be free of node:. */
const BROWSER_ENTRIES = [
  'packages/adapters/src/browser.ts',
  'packages/engine-wasm/src/browser.ts',
  'apps/leaderboard/src/app/main.ts',
  // The shard types the app imports from @llm-nrm/site/types.
  'packages/site/src/types.ts',
];

const TESTS = ['**/*.test.ts', '**/test/**/*.ts'];
const SOURCES = ['**/*.{ts,mts,js,mjs}'];
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Regex of the workspace package names (and subpaths) a file may not import. */
function forbiddenPackages(allowed) {
  const ok = allowed.map((name) => `${escape(name.slice('@llm-nrm/'.length))}(?:/|$)`);
  const scoped = ok.length === 0 ? '@llm-nrm/' : `@llm-nrm/(?!${ok.join('|')})`;
  return `^(?:${scoped}|llm-nrm(?:/|$))`;
}

const nodeMessage = 'node: imports are not allowed here: this code must also run in a browser (DESIGN.md, package direction)';
const directionMessage =
  'package direction (DESIGN.md): analysis/adapters/engines -> core only, site -> core, analysis, adapters, core -> nothing; cli and apps/* compose';

/** The restricted-import and restricted-syntax rules for one kind of file. */
function rules({ allowed, nodeFree, test }) {
  const patterns = [];
  const syntax = [{ selector: 'ExportAllDeclaration[exported=null]', message: 'no `export *`: use an explicit export list' }];
  if (allowed !== undefined) {
    const regex = forbiddenPackages(test ? [...allowed, '@llm-nrm/tooling'] : allowed);
    patterns.push({ regex, message: directionMessage });
    // esquery regexes cannot hold a slash: \u002F is one to RegExp.
    syntax.push({ selector: `ImportExpression[source.value=/${regex.replaceAll('/', '\\u002F')}/]`, message: directionMessage });
  }
  if (nodeFree) {
    patterns.push({ regex: '^node:', message: nodeMessage });
    syntax.push({ selector: 'ImportExpression[source.value=/^node:/]', message: nodeMessage });
  }
  if (test) {
    syntax.push(
      { selector: 'CallExpression[callee.object.name=/^(it|test|describe)$/][callee.property.name=/^(only|skip|todo)$/]', message: 'focused or skipped test' },
      { selector: 'CallExpression[callee.name=/^x(it|describe)$/]', message: 'focused or skipped test' },
    );
  }
  const out = {
    'no-restricted-imports': [
      'error',
      { paths: nodeFree ? builtinModules.filter((m) => !m.startsWith('_')).map((name) => ({ name, message: nodeMessage })) : [], patterns },
    ],
    'no-restricted-syntax': ['error', ...syntax],
  };
  if (nodeFree)
    out['no-restricted-globals'] = ['error', ...['process', 'Buffer', 'require', '__dirname', '__filename'].map((name) => ({ name, message: nodeMessage }))];
  return out;
}

/** Config blocks for the package folder `dir`: library code, then its tests, then its benches. */
function packageBlocks(dir) {
  const allowed = ALLOWED[dir];
  const nodeFree = NODE_FREE.includes(dir);
  const files = SOURCES.map((g) => `${dir}/${g}`);
  const tests = TESTS.map((g) => `${dir}/${g}`);
  const own = readPackage(dir).name;
  const bench = SOURCES.map((g) => `${dir}/bench/${g}`);
  // Build scripts run in Node at build time only (core's bundle validator generator): direction kept.
  const scripts = SOURCES.map((g) => `${dir}/scripts/${g}`);
  return [
    { files, rules: rules({ allowed, nodeFree, test: false }) },
    { files: tests, rules: { 'no-restricted-globals': 'off', ...rules({ allowed, nodeFree: false, test: true }) } },
    { files: bench, rules: { 'no-restricted-globals': 'off', ...rules({ allowed: [...allowed, own], nodeFree: false, test: false }) } },
    { files: scripts, rules: { 'no-restricted-globals': 'off', ...rules({ allowed, nodeFree: false, test: false }) } },
  ];
}

/** The files the browser entries reach, each with its own package's direction rules. */
function browserBlocks() {
  const byPackage = new Map();
  for (const file of browserClosure(root, BROWSER_ENTRIES)) {
    const dir = file.startsWith('tooling/') ? 'tooling' : file.split('/').slice(0, 2).join('/');
    byPackage.set(dir, [...(byPackage.get(dir) ?? []), file]);
  }
  return [...byPackage].map(([dir, files]) => ({ files, rules: rules({ allowed: ALLOWED[dir], nodeFree: true, test: false }) }));
}

export default tseslint.config(
  {
    // Generated and built code is not ours to lint.
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/src/generated/**',
      'packages/engine-wasm/assembly/**',
      '.venv-lmeval/**',
      '.turbo/**',
      'coverage/**',
      'tmp/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: SOURCES,
    plugins: { local: { rules: { 'no-import-outside-package': noImportOutsidePackage } } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'local/no-import-outside-package': 'error',
      'no-restricted-syntax': ['error', { selector: 'ExportAllDeclaration[exported=null]', message: 'no `export *`: use an explicit export list' }],
      'no-restricted-properties': ['error', { object: 'Math', property: 'random', message: 'no Math.random in library code: take a seed (randomSource)' }],
    },
  },
  {
    // Build scripts and this config run in Node (TypeScript files get their globals from tsc).
    files: ['**/*.{js,mjs}'],
    languageOptions: {
      globals: Object.fromEntries(
        ['process', 'Buffer', 'URL', 'console', 'setTimeout', 'clearTimeout', 'TextEncoder', 'TextDecoder', 'performance', 'WebAssembly'].map((g) => [
          g,
          'readonly',
        ]),
      ),
    },
  },
  {
    // Tests run in Node only; they mutate parsed JSON freely.
    files: TESTS,
    rules: {
      'no-restricted-properties': 'off',
      'no-restricted-globals': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      ...rules({ allowed: undefined, nodeFree: false, test: true }),
    },
  },
  ...Object.keys(ALLOWED).flatMap(packageBlocks),
  ...browserBlocks(),
);
