// `npm run test:e2e`: the tests that need the real lm_eval (.venv-lmeval), Chromium, the readers'
// fuzz or study-sized fits (`*.e2e.test.ts`), with the unit config's aliases. `.ci/run` runs both.
import { defineConfig } from 'vitest/config';
import unit from './vitest.config.ts';

export default defineConfig({
  ...unit,
  test: {
    ...unit.test,
    include: ['packages/*/src/**/*.e2e.test.ts', 'packages/*/test/**/*.e2e.test.ts', 'apps/*/src/**/*.e2e.test.ts', 'apps/*/test/**/*.e2e.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    testTimeout: 600_000,
    // One file at a time: several of these block their worker for tens of seconds (study-sized fits,
    // publish scoring a fleet in-process) while others run Python and Chromium; side by side on two
    // cores a block passed a minute and vitest's worker RPC timed out (an unhandled error, exit 1).
    fileParallelism: false,
  },
});
