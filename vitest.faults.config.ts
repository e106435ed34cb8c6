/**
 * The fault suite (`npm run test:faults`): real bot processes, a real redis-server per test file, faults
 * injected on purpose. Slow by nature (takeovers wait out idle timeouts, Redis stays down 10 s, Slack 60 s), so it is
 * kept out of `npm test`. CI runs the files without a wall-clock bound beside the static checks and `npm test`, the
 * others after it (.ci/run). Four files at a time: the long ones mostly wait.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 60_000,
    pool: 'forks',
    setupFiles: ['test/support/refusal-guard.ts'],
    maxWorkers: 4,
  },
});
