// One vitest run over every package: tests import workspace packages from their TypeScript
// sources (aliases below), so `npm test` needs no build for library tests; CLI tests spawn the
// built bin, which the root `test` script builds first. `npm test` runs the unit and property tests;
// `*.e2e.test.ts` (real lm_eval, Chromium, the readers' fuzz, study-sized experiments) run under
// `npm run test:e2e` (vitest.e2e.config.ts, these aliases).
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (pkg: string) => fileURLToPath(new URL(`./packages/${pkg}/src/index.ts`, import.meta.url));

export default defineConfig({
  resolve: {
    alias: {
      '@llm-nrm/core/engine': fileURLToPath(new URL('./packages/core/src/engine.ts', import.meta.url)),
      '@llm-nrm/core/record': fileURLToPath(new URL('./packages/core/src/record/index.ts', import.meta.url)),
      '@llm-nrm/core': src('core'),
      '@llm-nrm/analysis': src('analysis'),
      '@llm-nrm/adapters/browser': fileURLToPath(new URL('./packages/adapters/src/browser.ts', import.meta.url)),
      '@llm-nrm/adapters': src('adapters'),
      '@llm-nrm/engine-tfjs': src('engine-tfjs'),
      '@llm-nrm/site/types': fileURLToPath(new URL('./packages/site/src/types.ts', import.meta.url)),
      '@llm-nrm/site': src('site'),
      '@llm-nrm/engine-wasm/browser': fileURLToPath(new URL('./packages/engine-wasm/src/browser.ts', import.meta.url)),
      '@llm-nrm/engine-wasm': src('engine-wasm'),
      '@llm-nrm/tooling/test': fileURLToPath(new URL('./tooling/src/test.ts', import.meta.url)),
      '@llm-nrm/tooling/gradient': fileURLToPath(new URL('./tooling/src/gradient.ts', import.meta.url)),
      '@llm-nrm/tooling/quadratic': fileURLToPath(new URL('./tooling/src/quadratic.ts', import.meta.url)),
    },
  },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'apps/*/src/**/*.test.ts', 'apps/*/test/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**', '**/*.e2e.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Every core: vitest's default for `run` leaves one idle (a single fork on a 2-core machine).
    maxWorkers: availableParallelism(),
    minWorkers: 1,
  },
});
