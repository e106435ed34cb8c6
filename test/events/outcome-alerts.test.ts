/**
 * `/campaign alert`: signed slash commands, webhooks in as the platform sends them, a fake clock for the window
 * (timers fired with `runDue`, never waited for), in memory and on Redis. Asserts what the Slack stand-in
 * accepted: one top-level post per incident, updated while it lasts, its end in its own thread.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { SlackMessage } from '../fakes/slack.js';
import { MEMBER_ID, TEAM_ID, type Harness, harnessesPerTest, storeOn } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { waitFor } from '../support/wait.js';
import { startFakePlatform } from '../fakes/platform.js';
import { startFakeSlack } from '../fakes/slack.js';
import { CALL_COMPLETED_FULL } from './fixtures.js';
import { FAST_WORKER, PUBLIC_URL, deliver, fireTimers, posts, queueDrained, run } from './support.js';

const redis = await requireRedis();
const ALERTS = 'C0ALERTS01';
const SALES = '<!subteam^S0SALES01|@sales>';
const at = (iso: string) => Date.parse(iso);

const started = harnessesPerTest();
let n = 0;
function start(
  backend: 'memory' | 'redis',
  clock: { now: number },
  extra: {
    keyPrefix?: string;
    fakes?: Pick<Harness, 'slack' | 'platform'>;
    calls?: { maxWaitingPerChannel: number };
    unlimitedSlackBecause?: string;
    /** The same key after a restart: stored secrets (the hook token) must still open. */
    secretsKey?: string;
  } = {},
): Promise<Harness> {
  return started({
    ...storeOn(backend, redis, extra.keyPrefix ?? `${redis.prefix}alerts:${++n}:`),
    ...(extra.fakes ? { fakes: extra.fakes } : {}),
    env: { PUBLIC_URL, ...(extra.secretsKey ? { SECRETS_KEY: extra.secretsKey } : {}) },
    ...(extra.unlimitedSlackBecause ? { unlimitedSlackBecause: extra.unlimitedSlackBecause } : {}),
    bot: {
      now: () => clock.now,
      events: { worker: FAST_WORKER, calls: { rollupAfterMs: 60_000, ...extra.calls }, delivery: { scanMs: 50 } },
    },
  });
}

let callSeq = 0;
const call = (status: string, fields: Record<string, unknown> = {}) => ({
  ...CALL_COMPLETED_FULL,
  callId: `call-alert-${Date.now().toString(36)}-${++callSeq}`,
  status,
  ...fields,
});

/** Delivers the calls as the platform does and waits until the worker has handled every one. */
async function deliverCalls(h: Harness, calls: readonly object[]): Promise<void> {
  const url = `${h.url}/hooks/${await h.bot.deps.store.workspaces.getHookToken(TEAM_ID)}`;
  for (const c of calls) expect((await deliver(url, [c])).status).toBe(200);
  await queueDrained(h);
}

const failed = (count: number) => Array.from({ length: count }, () => call('failed'));
const good = (count: number) => Array.from({ length: count }, () => call('completed'));

/** The alert posts (not the notice the command posted). */
const incidentPosts = (h: Harness) => posts(h, ALERTS).filter((m) => !m.text.startsWith('🚨 This channel now'));
const replies = (h: Harness, post: SlackMessage) => h.slack.thread(ALERTS, post.ts).slice(1);

describe.each(['memory', 'redis'] as const)('outcome alerts (%s)', (backend) => {
  it('opens one post at 50 % failed, updates it while it lasts, and resolves it in its thread after enough good calls', async () => {
    const clock = { now: at('2024-03-08T12:00:00Z') };
    const h = await start(backend, clock);

    const { text } = await run(h, `alert camp-1 status:failed above:50 notify:${SALES}`, { channelId: ALERTS });
    expect(text).toContain('Alert set');
    expect(text).toContain('calls that failed reach 50 % (of at least 10 calls in 15 min) for campaign `camp-1`');
    expect(text).toContain('whether or not this channel gets their cards');
    // The platform sends the campaign's completed calls to the bot, though no channel routes their cards.
    expect(
      h.platform.requests.filter((r) => r.path === '/events-gateway/trigger/subscribe').map((r) => r.body),
    ).toEqual([expect.objectContaining({ campaignId: 'camp-1', triggerName: 'call_completed' })]);
    expect(await h.bot.deps.store.routes.listForTeam(TEAM_ID)).toEqual([]);

    // 6 of 12 failed, and a call of another campaign that does not count.
    await deliverCalls(h, [...failed(6), ...good(6), call('failed', { campaignId: 'camp-2' })]);
    clock.now += 30_000;
    await fireTimers(h);
    expect(incidentPosts(h)).toHaveLength(1);
    const post = incidentPosts(h)[0]!;
    expect(post.text).toBe(
      '<!subteam^S0SALES01> 🚨 6 of 12 calls failed (50 %) in the last 15 min — campaign `camp-1`',
    );
    expect(JSON.stringify(post.blocks)).toContain('Alert at 50 % of at least 10 calls in 15 min');

    // Two more failures: the same post shows 8 of 14; nothing new is posted.
    await deliverCalls(h, failed(2));
    clock.now += 30_000;
    await fireTimers(h);
    expect(incidentPosts(h)).toHaveLength(1);
    expect(incidentPosts(h)[0]!.text).toContain('8 of 14 calls failed (57 %)');
    expect(JSON.stringify(incidentPosts(h)[0]!.blocks)).toContain('peak 57 %');
    expect(replies(h, post)).toEqual([]);
    // Figures unchanged: no update at all.
    const updates = () => h.slack.callsTo('chat.update').length;
    const before = updates();
    clock.now += 30_000;
    await fireTimers(h);
    expect(updates()).toBe(before);
    expect((await run(h, 'alert', { channelId: ALERTS, userId: MEMBER_ID })).text).toContain('incident open since');

    // Ten good calls: 8 of 24 (33 %) is under 50 %: resolved in the thread, the post says so.
    await deliverCalls(h, good(10));
    clock.now += 30_000;
    await fireTimers(h);
    expect(incidentPosts(h)).toHaveLength(1);
    expect(replies(h, post).map((m) => m.text)).toEqual([
      expect.stringMatching(
        /^✅ Resolved: 8 of 24 calls failed \(33 %\) in the last 15 min — under the alert’s 50 %\. Open for 2 min; peak 57 %\.$/,
      ),
    ]);
    expect(incidentPosts(h)[0]!.text).toBe('✅ Resolved: calls that failed are back under 50 % — campaign `camp-1`');
    expect(
      await h.bot.deps.store.outcomeAlerts.incident(TEAM_ID, { channelId: ALERTS, campaignId: 'camp-1' }),
    ).toBeUndefined();

    // Still over later on: a new incident is a new post; nothing else is posted meanwhile.
    clock.now += 30_000;
    await fireTimers(h);
    expect(incidentPosts(h)).toHaveLength(1);
    expect(replies(h, post)).toHaveLength(1);
  });

  it('opens one post though Slack’s answer to it was lost and the alert fired again meanwhile', async () => {
    const clock = { now: at('2024-03-08T12:00:00Z') };
    const h = await start(backend, clock);
    await run(h, 'alert camp-1 status:failed above:50 min:4', { channelId: ALERTS });
    await deliverCalls(h, failed(4));
    // Slack carries the opening post out, but its answer never comes back.
    h.slack.loseAnswer('chat.postMessage');
    clock.now += 30_000;
    await h.bot.deps.timers.runDue();
    await waitFor(() => incidentPosts(h).length === 1, 'the opening post to reach Slack');
    // The next firing comes while the opening's outcome is still unknown.
    clock.now += 30_000;
    await fireTimers(h, 30_000);
    expect(incidentPosts(h).map((m) => m.text)).toEqual([
      '🚨 4 of 4 calls failed (100 %) in the last 15 min — campaign `camp-1`',
    ]);
    const incident = await h.bot.deps.store.outcomeAlerts.incident(TEAM_ID, {
      channelId: ALERTS,
      campaignId: 'camp-1',
    });
    expect(incident?.ts).toBe(incidentPosts(h)[0]!.ts);
    // It resolves in the thread of that one post.
    await deliverCalls(h, good(6));
    clock.now += 30_000;
    await fireTimers(h);
    expect(incidentPosts(h)).toHaveLength(1);
    expect(replies(h, incidentPosts(h)[0]!).map((m) => m.text)).toEqual([expect.stringContaining('✅ Resolved')]);
  }, 60_000);

  it('opens nothing below `min` calls, nor for calls that left the window', async () => {
    const clock = { now: at('2024-03-08T12:00:00Z') };
    const h = await start(backend, clock);
    await run(h, 'alert * status:failed,busy above:50 window:10m', { channelId: ALERTS });

    await deliverCalls(h, failed(9));
    clock.now += 30_000;
    await fireTimers(h);
    expect(incidentPosts(h)).toEqual([]);

    // Ten minutes on, those nine have left the window: with one more failure it holds 1 call, not 10.
    clock.now += 10 * 60_000;
    await deliverCalls(h, failed(1));
    await fireTimers(h);
    expect(incidentPosts(h)).toEqual([]);
    // Nine more in the window (of any campaign: the alert is for `*`) make ten: it opens.
    await deliverCalls(h, [...failed(4), ...Array.from({ length: 5 }, () => call('busy', { campaignId: 'camp-2' }))]);
    clock.now += 30_000;
    await fireTimers(h);
    expect(incidentPosts(h).map((m) => m.text)).toEqual([
      '🚨 10 of 10 calls were busy or failed (100 %) in the last 10 min — every campaign (`*`)',
    ]);
  });

  it('`off` ends the open incident in its thread; the platform hook stays while a route or an alert needs it', async () => {
    const clock = { now: at('2024-03-08T12:00:00Z') };
    const h = await start(backend, clock);
    const hookCalls = (path: string) => h.platform.requests.filter((r) => r.path === `/events-gateway/trigger/${path}`);
    await run(h, 'alert camp-1 status:failed above:50 min:2', { channelId: ALERTS });
    // The alert made the hook: subscribing cards of the same campaign needs no second one.
    await run(h, 'subscribe camp-1 call_completed', { channelId: 'C0CARDS001' });
    expect(hookCalls('subscribe')).toHaveLength(1);
    await deliverCalls(h, failed(2));
    clock.now += 30_000;
    await fireTimers(h);
    const [post] = incidentPosts(h);
    expect(post!.text).toContain('2 of 2 calls failed (100 %)');

    clock.now += 5_000;
    expect((await run(h, 'alert off camp-2', { channelId: ALERTS })).text).toContain('no alert for campaign `camp-2`');
    const off = await run(h, 'alert off', { channelId: ALERTS });
    expect(off.text).toContain('Removed this channel’s alert for campaign `camp-1`');
    expect(off.text).toContain('The open incident’s post says it is no longer followed');
    await fireTimers(h);
    expect(replies(h, post!).map((m) => m.text)).toEqual([
      expect.stringContaining('removed the alert: this incident is no longer followed'),
    ]);
    expect(incidentPosts(h)[0]!.text).toContain('No longer followed');
    // The cards' route still needs the hook; once it goes, so does the hook.
    expect(hookCalls('unsubscribe')).toEqual([]);
    await run(h, 'unsubscribe camp-1', { channelId: 'C0CARDS001' });
    expect(hookCalls('unsubscribe')).toHaveLength(1);
    expect((await run(h, 'alert', { channelId: ALERTS, userId: MEMBER_ID })).text).toContain('no outcome alerts');
    clock.now += 60_000;
    await fireTimers(h);
    // The incident is over: nothing more in its thread, and no new post.
    expect(replies(h, post!)).toHaveLength(1);
    expect(incidentPosts(h)).toHaveLength(1);
  });

  it('refuses a bare @name for notify:, bad terms, members, and a campaign the platform does not know (its notice taken back)', async () => {
    const clock = { now: at('2024-03-08T12:00:00Z') };
    const h = await start(backend, clock);
    const bare = await run(h, 'alert camp-1 status:failed above:50 notify:@sales', { channelId: ALERTS });
    expect(bare.text).toContain('`notify:` needs the person or user group picked from Slack’s list');
    expect(bare.text).toContain('`@sales` typed out is only text');
    expect((await run(h, 'alert camp-1 status:failed', { channelId: ALERTS })).text).toContain(
      '`above:&lt;percent&gt;`',
    );
    expect((await run(h, 'alert camp-1 above:50', { channelId: ALERTS })).text).toContain('with a filter');
    expect((await run(h, 'alert camp-1 status:failed above:150', { channelId: ALERTS })).text).toContain(
      '`above:` takes a percentage from 1 to 100',
    );
    expect((await run(h, 'alert camp-1 status:failed above:50 window:30s', { channelId: ALERTS })).text).toContain(
      '`window:` takes a duration from `1m` to `24h`',
    );
    expect((await run(h, 'alert camp-1 status:failed above:50 compact:off', { channelId: ALERTS })).text).toContain(
      '`compact:` is an option of `/campaign subscribe`',
    );
    // A campaign neither the bot nor the platform knows: told before anything is posted or registered.
    const unknown = await run(h, 'alert camp-404 status:failed above:50', { channelId: ALERTS });
    expect(unknown.text).toContain('I don’t know a campaign “camp-404” — check its id');
    expect(h.slack.messages(ALERTS)).toEqual([]);
    // One the platform then refuses to send events for: its notice in the channel is taken back.
    h.platform.inject({ path: '/events-gateway/trigger/subscribe', status: 404, code: 'NOT_FOUND', times: 1 });
    const missing = await run(h, 'alert camp-1 status:failed above:50', { channelId: ALERTS });
    expect(missing.text).toContain('The platform has no campaign `camp-1` — check the id. No alert was set.');
    expect(h.slack.messages(ALERTS)).toEqual([]);
    expect(
      (await run(h, 'alert camp-1 status:failed above:50', { channelId: ALERTS, userId: MEMBER_ID })).text,
    ).toContain('Only Slack workspace admins');
    expect(await h.bot.deps.store.outcomeAlerts.list(TEAM_ID)).toEqual([]);
    expect(h.slack.messages(ALERTS)).toEqual([]);
  });
});

describe('outcome alerts across a restart (redis)', () => {
  it('carries on with the same post: updated, then resolved in its thread, never posted twice', async () => {
    const slack = await startFakeSlack({ teamId: TEAM_ID });
    const platform = await startFakePlatform();
    // Closed after the bots that share them (afterEach).
    onTestFinished(() => Promise.all([slack.close(), platform.close()]).then(() => undefined));
    const clock = { now: at('2024-03-08T12:00:00Z') };
    const keyPrefix = `${redis.prefix}alerts-restart:${++n}:`;
    const fakes = { slack, platform };
    const secretsKey = randomBytes(32).toString('base64');
    const first = await start('redis', clock, { keyPrefix, fakes, secretsKey });
    await run(first, 'alert camp-1 reason:no-answer,voicemail above:40 min:5', { channelId: ALERTS });
    await deliverCalls(first, [
      call('failed', { endedReason: 'no-answer' }),
      call('failed', { endedReason: 'voicemail' }),
      ...good(3),
    ]);
    clock.now += 30_000;
    await fireTimers(first);
    expect(incidentPosts(first).map((m) => m.text)).toEqual([
      '🚨 2 of 5 calls ended with no-answer or voicemail (40 %) in the last 15 min — campaign `camp-1`',
    ]);
    await first.close(); // (closing it again after the test does nothing)

    const second = await start('redis', clock, { keyPrefix, fakes, secretsKey });
    await deliverCalls(second, [call('failed', { endedReason: 'no_answer' })]);
    clock.now += 30_000;
    await fireTimers(second);
    expect(incidentPosts(second).map((m) => m.text)).toEqual([
      '🚨 3 of 6 calls ended with no-answer or voicemail (50 %) in the last 15 min — campaign `camp-1`',
    ]);
    await deliverCalls(second, good(4));
    clock.now += 30_000;
    await fireTimers(second);
    const [post] = incidentPosts(second);
    expect(incidentPosts(second)).toHaveLength(1);
    expect(post!.text).toContain('✅ Resolved');
    expect(replies(second, post!).map((m) => m.text)).toEqual([
      expect.stringContaining('✅ Resolved: 3 of 10 calls ended with no-answer or voicemail (30 %)'),
    ]);
  });
});
