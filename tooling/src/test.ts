// Shared helpers for tests across packages. Imported from TypeScript sources by vitest.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

const here = dirname(fileURLToPath(import.meta.url));

/** Repository root (the folder holding the root package.json). */
export const repoRoot = resolve(here, '../..');

/** The read-only shared fixtures folder beside the checkout (`../shared/fixtures`). */
export const fixturesDir = resolve(repoRoot, '../shared/fixtures');

/** Path of a file under the shared fixtures folder. */
export function fixture(...parts: string[]): string {
  return join(fixturesDir, ...parts);
}

/** A fresh temporary directory; call the returned `cleanup` in afterAll/afterEach. */
export function tempDir(prefix = 'llm-nrm-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Largest elementwise difference, scaled: |a - b| / (atol + rtol * |b|). Throws with the index and
 * both values when it exceeds 1, so a failing numeric test says where it failed.
 */
export function expectArraysClose(
  actual: ArrayLike<number>,
  expected: ArrayLike<number>,
  { atol = 1e-6, rtol = 1e-5 }: { atol?: number; rtol?: number } = {},
): void {
  if (actual.length !== expected.length) {
    throw new Error(`length mismatch: ${actual.length} vs ${expected.length}`);
  }
  for (let i = 0; i < actual.length; i++) {
    const a = actual[i]!;
    const b = expected[i]!;
    const err = Math.abs(a - b) / (atol + rtol * Math.abs(b));
    if (!(err <= 1)) {
      throw new Error(`arrays differ at index ${i}: actual ${a}, expected ${b} (atol ${atol}, rtol ${rtol})`);
    }
  }
}

/**
 * The first ```ts block of a README written to a temporary .ts file, ready to `import()` (STYLE.md:
 * a README's first example runs in CI). Returns its path and the code.
 */
export function readmeExample(readmeUrl: URL, dir: string): { file: string; code: string } {
  const readme = readFileSync(readmeUrl, 'utf8');
  const code = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  if (code === undefined) throw new Error(`no \`\`\`ts block in ${readmeUrl.pathname}`);
  const file = join(dir, 'readme-example.ts');
  writeFileSync(file, code);
  return { file, code };
}

/**
 * Runs `body`, the body of an async JavaScript function, on a worker thread and resolves with what it
 * returns (structured-cloned). In it, `await load('analysis')` imports a package's built entry
 * (`packages/<name>/dist/index.js`: e2e tests run after `turbo run build`). For the studies that
 * compute for minutes without awaiting: on vitest's own worker they block its event loop, and a
 * task update left unanswered for 60 s fails the whole run ("Timeout calling onTaskUpdate", an
 * unhandled error, exit 1) though every test passed.
 */
export function inWorkerThread<T>(body: string): Promise<T> {
  const dist = JSON.stringify(pathToFileURL(join(repoRoot, 'packages')).href);
  const code = [
    "const { parentPort } = require('node:worker_threads');",
    `const load = (name) => import(${dist} + '/' + name + '/dist/index.js');`,
    `(async () => {\n${body}\n})().then((v) => parentPort.postMessage(v), (e) => { throw e; });`,
  ].join('\n');
  return new Promise((done, fail) => {
    const w = new Worker(code, { eval: true });
    let answered = false;
    w.once('message', (v: T) => {
      answered = true;
      done(v);
    });
    w.once('error', fail);
    w.once('exit', (c) => {
      if (!answered) fail(new Error(`the worker thread exited with code ${c} before answering`));
    });
  });
}
