/**
 * Fails any test during which the bot got an answer from the Slack stand-in that real Slack would give a
 * broken app: a non-ok Web API answer or a non-2xx response_url answer. Faults a test injects are expected
 * by construction; any other refusal a test means to provoke it declares with `slack.expectRefusal(…)`.
 * Registered for every test file (vitest.config.ts and vitest.faults.config.ts `setupFiles`).
 */
import { afterEach } from 'vitest';
import { liveRefusalLedgers } from '../../fakes/slack/refusals.js';

afterEach(() => {
  const problems: string[] = [];
  for (const ledger of liveRefusalLedgers()) {
    for (const line of ledger.takeUnexpected()) problems.push(`${ledger.name}: ${line}`);
  }
  if (problems.length > 0) {
    throw new Error(
      `Slack refused ${problems.length} call(s) the test did not declare (slack.expectRefusal(method, error)):\n  ${problems.join('\n  ')}`,
    );
  }
});
