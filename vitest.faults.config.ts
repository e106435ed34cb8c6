/**
 * The fault suite (`npm run test:faults`): real bot processes, a real redis-server per test file, faults
 * injected on purpose. Slow by nature (takeovers wait out idle timeouts, Redis stays down 10 s, Slack 60 s), so it is
 * kept out of `npm test` and run by CI after it. Four files at a time: the long ones mostly wait.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';

/**
 * The files that take longest, longest first (seconds in a full run on CI's two cores, four at a time): each
 * starts before the short ones, so none of them starts last and holds up the end of the run.
 */
const LONGEST_FIRST = [
  'slack-outage', // 85
  'slack-unavailable', // 75
  'cluster', // 66
  'stalled-log-reader', // 47
  'platform-faults', // 45
  'redis-outage', // 41
  'slack-429', // 40
  'takeover', // 38
  'lost-answers', // 25
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const at = LONGEST_FIRST.findIndex((name) => file.moduleId.endsWith(`/${name}.test.ts`));
      return at === -1 ? LONGEST_FIRST.length : at;
    };
    // The rest keep vitest's own order (the last run's durations when it has them, else the larger files first).
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 60_000,
    pool: 'forks',
    setupFiles: ['test/support/refusal-guard.ts'],
    maxWorkers: 4,
    sequence: { sequencer: LongestFirst },
  },
});
