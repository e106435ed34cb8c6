import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The fault suite runs real processes for minutes: `npm run test:faults` (vitest.faults.config.ts).
    exclude: [...configDefaults.exclude, 'test/faults/**'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    setupFiles: ['test/support/refusal-guard.ts'],
  },
});
