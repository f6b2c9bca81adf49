// The README's first example, run as written (STYLE.md: a README's first example runs in CI).
import { readmeExample, tempDir } from '@llm-nrm/tooling/test';
import { afterAll, expect, it, vi } from 'vitest';

const { dir, cleanup } = tempDir('llm-nrm-engine-tfjs-readme-');
afterAll(cleanup);

it('README first example runs and prints matching float32 and float64 losses', async () => {
  const { file, code } = readmeExample(new URL('../README.md', import.meta.url), dir);
  expect(code).toContain('createTfjsObjective');
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  try {
    await import(/* @vite-ignore */ file);
    expect(log).toHaveBeenCalledTimes(1);
    const [backend, loss, loss64, detail] = log.mock.calls[0]! as [string, number, number, string];
    expect(['tfjs-node-gpu', 'tfjs-node', 'tfjs-cpu']).toContain(backend);
    expect(typeof detail).toBe('string');
    expect(Math.abs(loss - loss64)).toBeLessThan(1e-5 * loss64);
  } finally {
    log.mockRestore();
  }
});
