// The README's first example, run as written (STYLE.md: a README's first example runs in CI).
import { readmeExample, tempDir } from '@llm-nrm/tooling/test';
import { afterAll, expect, it, vi } from 'vitest';

const { dir, cleanup } = tempDir('llm-nrm-engine-wasm-readme-');
afterAll(cleanup);

it('README first example runs on two threads and prints matching float32 and float64 losses', async () => {
  const { file, code } = readmeExample(new URL('../README.md', import.meta.url), dir);
  expect(code).toContain('wasmLlmNrmObjective');
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  try {
    await import(/* @vite-ignore */ file);
    expect(log).toHaveBeenCalledTimes(1);
    const [threads, loss, loss64] = log.mock.calls[0]! as [number, number, number];
    expect(threads).toBe(2);
    expect(Math.abs(loss - loss64)).toBeLessThan(1e-6 * loss64);
  } finally {
    log.mockRestore();
  }
});
