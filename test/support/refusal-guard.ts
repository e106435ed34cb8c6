/**
 * Fails any test during which the bot got an answer from the Slack stand-in that real Slack would give a
 * broken app: a non-ok Web API answer or a non-2xx response_url answer. Faults a test injects are expected
 * by construction; any other refusal a test means to provoke it declares with `slack.expectRefusal(…)`.
 * Registered for every test file (vitest.config.ts and vitest.faults.config.ts `setupFiles`).
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import { liveRefusalLedgers, type RefusalLedger } from '../../fakes/slack/refusals.js';

/**
 * Stand-ins listening before this file began: a worker runs its files one after another in one module graph
 * (vitest.config.ts `isolate: false`), so they are an earlier file's, and its refusals are not this file's.
 */
let earlier = new Set<RefusalLedger>();
beforeAll(() => {
  earlier = new Set(liveRefusalLedgers());
});

afterEach(() => {
  const problems: string[] = [];
  for (const ledger of liveRefusalLedgers()) {
    if (earlier.has(ledger)) continue;
    for (const line of ledger.takeUnexpected()) problems.push(`${ledger.name}: ${line}`);
  }
  if (problems.length > 0) {
    throw new Error(
      `Slack refused ${problems.length} call(s) the test did not declare (slack.expectRefusal(method, error)):\n  ${problems.join('\n  ')}`,
    );
  }
});

// A stand-in stopped in an `afterAll` stays listed until its refusals are taken (`RefusalLedger.close`): taken
// here, after the file's own hooks, so the next file of the worker starts with none of this file's.
afterAll(() => {
  for (const ledger of liveRefusalLedgers()) if (!earlier.has(ledger)) ledger.takeUnexpected();
});
