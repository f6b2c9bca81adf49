// Shared helpers for tests across packages. Imported from TypeScript sources by vitest.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

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
