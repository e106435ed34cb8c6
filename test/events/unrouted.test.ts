/**
 * Nothing arrives to no one: a route is stored before the platform is asked to send its events (and taken back
 * when the platform refuses), and an event that finds no route is kept among the workspace's recent unrouted
 * events, which `/campaign subscriptions` shows. Driven through signed commands and webhooks, against the
 * platform simulator and the Slack stand-in, in memory and on Redis.
 */
import { describe, expect, it } from 'vitest';
import { TEAM_ID, storeOn, useHarness } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { waitFor } from '../support/wait.js';
import { CALL_COMPLETED_FULL, MESSAGE_RECEIVED_FULL } from './fixtures.js';
import { deliver, posts, queueDrained, run, startEventsHarness } from './support.js';

const redis = await requireRedis();
const CHANNEL = 'C0ROUTES01';
const SUBSCRIBE = '/events-gateway/trigger/subscribe';

describe.each(['memory', 'redis'] as const)('routes and unrouted events (%s)', (backend) => {
  const h = useHarness(
    () => startEventsHarness(storeOn(backend, redis, `${redis.prefix}unrouted:${backend}:`)),
    ['platform', 'slack', 'routes'],
  );
  const routes = () => h.bot.deps.store.routes.listForTeam(TEAM_ID);
  const hook = async () => `${h.url}/hooks/${await h.bot.deps.store.workspaces.getHookToken(TEAM_ID)}`;

  it('stores the route before the platform is asked, so a call ending meanwhile is posted', async () => {
    h.platform.inject({ method: 'POST', path: SUBSCRIBE, hold: true });
    const answer = run(h, 'subscribe camp-1 call_completed', { channelId: CHANNEL });
    await waitFor(() => h.platform.held().length === 1, 'the platform to be asked for call_completed');
    // The platform has the hook (its answer is on its way): the route is there already.
    expect((await routes()).map((r) => [r.campaignId, r.triggerName, r.channelId])).toEqual([
      ['camp-1', 'call_completed', CHANNEL],
    ]);
    const res = await deliver(await hook(), { ...CALL_COMPLETED_FULL, callId: 'call-meanwhile' });
    expect(res.status).toBe(200);
    await waitFor(
      () => posts(h, CHANNEL).some((m) => m.text.startsWith('Call completed')),
      'the call to be posted while the subscribe is under way',
    );
    h.platform.release();
    expect((await answer).text).toContain('This channel now receives `call_completed`');
    expect((await h.bot.deps.store.unroutedEvents.summary(TEAM_ID)).count).toBe(0);
  });

  it('takes the route back when the platform refuses, and says so', async () => {
    h.platform.inject({ method: 'POST', path: SUBSCRIBE, status: 500, times: 1 });
    const { text } = await run(h, 'subscribe camp-1 call_completed', { channelId: CHANNEL });
    expect(h.platform.requests.filter((r) => r.path === SUBSCRIBE)).toHaveLength(1);
    expect(text).toMatch(/platform/i);
    expect(text).not.toContain('now receives');
    expect(await routes()).toEqual([]);
    // The channel's notice was taken back: it does not claim a route that is not there.
    expect(h.slack.messages(CHANNEL)).toHaveLength(0);
  });

  it('keeps events that arrived for no channel and shows them in `subscriptions`; filtered-out ones are not', async () => {
    // A route whose filter leaves a completed call out: that call had a route, and is not "for no channel".
    await run(h, 'subscribe camp-1 call_completed status:failed', { channelId: CHANNEL });
    const url = await hook();
    for (const body of [
      { ...CALL_COMPLETED_FULL, callId: 'call-filtered', status: 'completed' },
      { ...CALL_COMPLETED_FULL, campaignId: 'spring-promo', callId: 'call-nobody-1' },
      { ...CALL_COMPLETED_FULL, campaignId: 'spring-promo', callId: 'call-nobody-2' },
      MESSAGE_RECEIVED_FULL,
    ])
      expect((await deliver(url, body)).status).toBe(200);
    await queueDrained(h);

    const { text } = await run(h, 'subscriptions', { channelId: CHANNEL });
    expect(text).toContain('*3* events arrived for no channel in the last 7 days');
    expect(text).toContain('`message_received` for campaign `camp-chat`, `call_completed` for campaign `spring-promo`');
    expect(text).toContain('`/campaign subscribe camp-chat` in a channel to receive them');
    expect(posts(h, CHANNEL).filter((m) => m.text.startsWith('Call completed'))).toHaveLength(0);
  });
});
