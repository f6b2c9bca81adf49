// The README's first example, run as written (STYLE.md: a README's first example runs in CI).
import { readmeExample, tempDir } from '@llm-nrm/tooling/test';
import { afterAll, expect, it, vi } from 'vitest';

const { dir, cleanup } = tempDir('llm-nrm-core-readme-');
afterAll(cleanup);

it('README first example fits, bundles and scores held-out LLMs', async () => {
  const { file, code } = readmeExample(new URL('../README.md', import.meta.url), dir);
  expect(code).toContain('scoreResponses');
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  try {
    await import(/* @vite-ignore */ file);
    expect(log).toHaveBeenCalledTimes(1);
    const [converged, lines] = log.mock.calls[0]! as [boolean, string[]];
    expect(converged).toBe(true);
    expect(lines).toHaveLength(5);
    for (const l of lines) expect(l).toMatch(/^sim-llm-02[5-9] -?\d+\.\d\d ± \d+\.\d\d$/);
  } finally {
    log.mockRestore();
  }
});
