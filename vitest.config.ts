import { configDefaults, defineConfig } from 'vitest/config';
import { slowFirst } from './test/support/slow-first.js';

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
    // A worker runs its files one after another in one module graph instead of loading the bot's dependencies
    // anew per file: half the suite's CPU time. Each file starts its own bot, stand-ins and store keys.
    isolate: false,
    // Most tests wait on sockets, Redis and timers, not the CPU: three files at a time on CI's two cores
    // (vitest's default there is one).
    maxWorkers: 3,
    setupFiles: ['test/support/refusal-guard.ts'],
    sequence: {
      sequencer: slowFirst([
        'playground/as-slack-shows.browser.test.ts',
        'events/pacing.test.ts',
        'events/slack-errors.test.ts',
        'events/delivery.test.ts',
        'events/recordings.test.ts',
        'events/tenants.test.ts',
        'events/leaked-hook-flood.test.ts',
        'events/outcome-alerts.test.ts',
        'bot/secrets-in-logs.test.ts',
      ]),
    },
  },
});
