/**
 * Socket Mode: Slack traffic over the app-level WebSocket (no public Slack URL, no signing secret),
 * while health, metrics and webhooks are still served on PORT.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEMBER_ID, startHarness, type Harness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ socketMode: true });
});
afterAll(async () => {
  await h.close();
});

describe('Socket Mode', () => {
  it('starts without a signing secret and serves /healthz and /metrics on PORT', async () => {
    expect(h.config.slack.signingSecret).toBeUndefined();
    expect(h.config.slack.appToken).toBe(h.slack.appToken);
    expect((await fetch(`${h.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${h.url}/metrics`)).status).toBe(200);
    expect(h.slack.callsTo('apps.connections.open')[0]?.token).toBe(h.slack.appToken);
  });

  it('answers /campaign over the socket: ack on the socket, answer through response_url', async () => {
    const ack = await h.socket!.command({ text: 'stats', userId: MEMBER_ID, responseUrlId: 'sm-stats' });
    expect(ack.timedOut).toBe(false);
    const answer = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === 'sm-stats'));
    expect(JSON.stringify(answer.body)).toContain('Campaign dashboard');
    expect(h.platform.requests.some((r) => r.path === '/dashboard/dashboard-stats')).toBe(true);
  });
});
