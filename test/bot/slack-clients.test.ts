/**
 * The bot's Slack clients for queued work follow the workspace's bot token (OAuth mode): after a reinstall
 * gives the workspace a new token, the next card goes out with it and the old token's client is let go (the
 * bot keeps no more clients than before); uninstalling lets the workspace's clients go.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TEAM_ID, type Harness } from '../support/harness.js';
import { installApp } from '../support/oauth.js';
import { waitFor } from '../support/wait.js';
import { CALL_COMPLETED_FULL } from '../events/fixtures.js';
import { deliver, routeTo, startEventsHarness } from '../events/support.js';

const CHANNEL = 'C0CLIENTS1';

let h: Harness;
beforeAll(async () => {
  h = await startEventsHarness({ oauth: true });
});
afterAll(async () => {
  await h.close();
});

/** Delivers a completed call routed to CHANNEL; resolves with the token its card was posted with. */
async function cardToken(hook: string): Promise<string | undefined> {
  const callId = `call-${randomBytes(4).toString('hex')}`;
  expect((await deliver(hook, [{ ...CALL_COMPLETED_FULL, callId }])).status).toBe(200);
  const post = await h.slack.waitFor(() =>
    h.slack
      .callsTo('chat.postMessage')
      .find((c) => c.args.channel === CHANNEL && c.status === 200 && JSON.stringify(c.args).includes(callId)),
  );
  return post.token;
}

it('posts with the workspace’s current token after a reinstall, keeping no client for the old one', async () => {
  const first = await installApp(h, TEAM_ID);
  const hook = await routeTo(h, [
    { campaignId: CALL_COMPLETED_FULL.campaignId, triggerName: 'call_completed', channelId: CHANNEL },
  ]);
  expect(await cardToken(hook)).toBe(first);
  const kept = h.bot.deps.slack.size;
  expect(kept).toBeGreaterThan(0);

  const second = await installApp(h, TEAM_ID);
  expect(second).not.toBe(first);
  expect(await cardToken(hook)).toBe(second);
  expect(h.bot.deps.slack.size).toBe(kept);

  expect((await h.signer.event({ type: 'app_uninstalled' })).status).toBe(200);
  await waitFor(() => h.bot.deps.slack.size === 0, 'the uninstalled workspace’s clients let go');
});
