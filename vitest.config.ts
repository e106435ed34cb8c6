import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The fault suite runs real processes for minutes: `npm run test:faults` (vitest.faults.config.ts).
    exclude: [...configDefaults.exclude, 'test/faults/**'],
    // Bounds on a hang, not waits: a test ends when its conditions hold. The whole suite on a busy 2-core machine
    // makes a test of a few seconds take several times that.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most tests wait on sockets, Redis and timers, not the CPU: three files at a time on CI's two cores
    // (vitest's default there is one).
    maxWorkers: 3,
    setupFiles: ['test/support/refusal-guard.ts'],
  },
});
