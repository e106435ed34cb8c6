/**
 * The Events API Request URL check. After the app is created from manifest.yml, Slack sends no events until
 * that URL has answered a signed `url_verification` with its challenge — the operator starts the bot, then
 * presses Retry/Verify under Event Subscriptions (README › Set up the Slack app).
 * https://api.slack.com/events/url_verification and https://api.slack.com/apis/http (Request URL
 * configuration and verification: "use the Retry button").
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startHarness, useHarness } from '../support/harness.js';

describe.each([
  { mode: 'one workspace (bot token)', oauth: false },
  { mode: 'several workspaces (OAuth)', oauth: true },
])('Request URL verification — $mode', ({ oauth }) => {
  const h = useHarness(() => startHarness({ oauth }));

  it('answers a signed url_verification with the challenge, touching nothing else', async () => {
    const challenge = randomBytes(24).toString('base64url');
    const res = await h.signer.urlVerification(challenge);
    expect(res.status).toBe(200);
    // Slack takes the challenge as plain text or as JSON `{ challenge }`.
    const answered = res.json === undefined ? res.body : (res.json as { challenge?: unknown }).challenge;
    expect(answered).toBe(challenge);
    expect(h.slack.calls.filter((c) => c.method !== 'auth.test')).toEqual([]);
    expect(h.platform.requests).toHaveLength(0);
  });

  it('refuses one with a forged signature, without echoing the challenge', async () => {
    const challenge = randomBytes(24).toString('base64url');
    const res = await h.signer.raw(
      JSON.stringify({ token: 'x', challenge, type: 'url_verification' }),
      {},
      { signature: `v0=${'0'.repeat(64)}` },
    );
    expect(res.status).toBe(401);
    expect(res.body).not.toContain(challenge);
  });
});
