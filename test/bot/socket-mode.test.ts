/**
 * Socket Mode: Slack traffic over the app-level WebSocket (no public Slack URL, no signing secret),
 * while health, metrics, webhooks and file links are still served on PORT — with the same route hygiene and limits as
 * in HTTP mode (every request answered, hook bodies capped, timeouts and a connection cap).
 */
import { describe, expect, it } from 'vitest';
import { MEMBER_ID, TEAM_ID, startHarness, useHarness } from '../support/harness.js';
import { deliver, routeTo } from '../events/support.js';

const h = useHarness(() => startHarness({ socketMode: true }));

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

  it('answers a path it cannot decode with 404 (the router’s URIError), never leaving the request unanswered', async () => {
    const res = await fetch(`${h.url}/hooks/%E0%A4%A`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
    expect((await fetch(`${h.url}/nothing-here`)).status).toBe(404);
    expect(h.logs()).not.toContain('unhandled promise rejection');
    expect(h.logs()).not.toContain('%E0%A4%A');
  });

  it('caps a webhook body at 256 KB (413), and reads one within it', async () => {
    const hook = await routeTo(h, [{ campaignId: '*', triggerName: 'call_completed', channelId: 'C0SOCKET01' }]);
    const big = await deliver(hook, JSON.stringify({ padding: 'x'.repeat(300 * 1024) }));
    expect(big.status).toBe(413);
    const malformed = await deliver(hook, '{"trigger":');
    expect(malformed.status).toBe(400);
  });

  it('serves a file link an agent sent a customer on PORT, and 404 for one that opens nothing', async () => {
    const data = Buffer.from('%PDF-1.4 socket mode');
    const file = h.slack.addFile({ name: 'terms.pdf', mimetype: 'application/pdf', data });
    const link = { id: file.id, name: file.name, mimetype: file.mimetype, size: file.size };
    const token = await h.bot.deps.store.attachments.create(TEAM_ID, link, 60_000);
    const res = await fetch(`${h.url}/attachments/${token}`);
    expect([res.status, Buffer.from(await res.arrayBuffer()).equals(data)]).toEqual([200, true]);
    expect((await fetch(`${h.url}/attachments/${token.slice(1)}x`)).status).toBe(404);
  });

  it('serves PORT with a connection cap and header/request timeouts', () => {
    const s = h.server;
    expect(s.listening).toBe(true);
    expect(s.maxConnections).toBeGreaterThanOrEqual(500);
    expect(s.headersTimeout).toBeLessThanOrEqual(10_000);
    expect(s.requestTimeout).toBeLessThanOrEqual(30_000);
    expect(s.keepAliveTimeout).toBeLessThan(s.headersTimeout);
    expect(Reflect.get(s, 'connectionsCheckingInterval')).toBeLessThanOrEqual(1_000);
  });
});
