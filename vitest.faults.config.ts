/**
 * The fault suite (`npm run test:faults`): real bot processes, a real redis-server per test file, faults
 * injected on purpose. Slow by nature (Slack stays down 60 s, Redis 10 s, a Redis Cluster fails over), so it is
 * kept out of `npm test`; CI runs it after the unit suite. Four files at a time, the longest first: they mostly wait.
 */
import { defineConfig } from 'vitest/config';
import { slowFirst } from './test/support/slow-first.js';

export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 60_000,
    pool: 'forks',
    setupFiles: ['test/support/refusal-guard.ts'],
    maxWorkers: 4,
    sequence: {
      sequencer: slowFirst([
        'faults/slack-outage.test.ts',
        'faults/slack-ok-false.test.ts',
        'faults/cluster.test.ts',
        'faults/platform-faults.test.ts',
        'faults/redis-outage.test.ts',
        'faults/stalled-log-reader.test.ts',
        'faults/slack-429.test.ts',
        'faults/stalled-forged-bodies.test.ts',
        'faults/lost-answers.test.ts',
      ]),
    },
  },
});
