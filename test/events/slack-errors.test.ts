/**
 * Slack's answers beyond 429, held to its documented errors (src/delivery/slack-errors.ts): `ok:false` errors that heal,
 * answers lost after Slack acted, a channel that refuses posts, and a 429 on one method that must not hold a
 * person's form. What each test asserts is what a user sees in Slack, and what is kept.
 */
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_ID, TEAM_ID, useHarness } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { CALL_COMPLETED_FULL, CALL_STARTED_FULL, MESSAGE_RECEIVED_FULL } from './fixtures.js';
import { slackLimits } from '../../src/delivery/pace.js';
import { installApp } from '../support/oauth.js';
import { deliver, localHookUrl, posts, queueDrained, routeTo, run, startEventsHarness } from './support.js';
import { openConversation, reactions } from '../handoff/support.js';
import { waitFor } from '../support/wait.js';

const redis = await requireRedis();
const uid = () => randomBytes(4).toString('hex');

describe.each(['memory', 'redis'] as const)('Slack answers more than 429 (%s store)', (backend) => {
  /** How far a test moved the bot's clock (past its wait for Slack's event about a post whose outcome is unknown). */
  let botSkewMs = 0;
  beforeEach(() => {
    botSkewMs = 0;
  });
  /** Slack's event about a post would have come by now: the post is looked up in history (idempotent-posts.ts). */
  const noEventCame = () => (botSkewMs += 6_000);
  const h = useHarness(
    () =>
      startEventsHarness({
        ...(backend === 'redis' ? { redisUrl: redis.url, keyPrefix: `${redis.prefix}slack-errors:` } : {}),
        unlimitedSlackBecause:
          'Slack errors, not pace: each test posts a handful of cards into one channel (pacing: pacing.test.ts)',
        bot: {
          events: { calls: { rollupAfterMs: 60_000 }, delivery: { scanMs: 50, probeEveryMs: 60_000 } },
          now: () => Date.now() + botSkewMs,
        },
      }),
    ['slack', 'platform'],
  );

  const cardsOf = (channel: string, callIds: readonly string[]) =>
    callIds.map((id) => posts(h, channel).filter((m) => JSON.stringify(m.blocks ?? []).includes(id)).length);
  const deadLetters = async () => (await h.bot.deps.store.queue.deadLetters(TEAM_ID)).count;

  async function callsEnd(channel: string, count: number): Promise<string[]> {
    const campaignId = `camp-${uid()}`;
    const hook = await routeTo(h, [{ campaignId, triggerName: 'call_completed', channelId: channel }]);
    const ids = Array.from({ length: count }, () => `call-${uid()}`);
    for (const callId of ids) {
      const res = await deliver(hook, [{ ...CALL_COMPLETED_FULL, campaignId, callId }]);
      expect(res.status).toBe(200);
    }
    return ids;
  }

  it('shows every call once when Slack answers ok:false service_unavailable for a while, and keeps no failed event', async () => {
    const channel = `C0OK${uid().toUpperCase()}`;
    // https://docs.slack.dev/reference/methods/chat.postMessage › Errors: service_unavailable heals by itself.
    h.slack.failMethod('chat.postMessage', 'service_unavailable', 3);
    const ids = await callsEnd(channel, 5);
    await queueDrained(h, 30_000);
    expect(cardsOf(channel, ids)).toEqual([1, 1, 1, 1, 1]);
    expect(await deadLetters()).toBe(0);
  });

  it('shows a call once when Slack carried out its post but the answer was lost, found from Slack’s event', async () => {
    const channel = `C0LOST${uid().toUpperCase()}`;
    h.slack.loseAnswer('chat.postMessage', 2);
    const ids = await callsEnd(channel, 3);
    await queueDrained(h, 30_000);
    expect(cardsOf(channel, ids)).toEqual([1, 1, 1]);
    // The post carried its idempotency key; Slack's message_metadata_posted said where it landed: no history read.
    const card = posts(h, channel).find((m) => JSON.stringify(m.blocks).includes(ids[0]!));
    expect(card?.metadata).toMatchObject({ event_type: 'campaign_post', event_payload: { key: expect.any(String) } });
    expect(h.slack.callsTo('conversations.history')).toEqual([]);
  });

  it('posts once when Slack answers fatal_error (the outcome is unknown): looked up first, then posted', async () => {
    const channel = `C0FATAL${uid().toUpperCase()}`;
    h.slack.failMethod('chat.postMessage', 'fatal_error', 1);
    const ids = await callsEnd(channel, 1);
    await h.slack.waitFor(() => h.slack.callsTo('chat.postMessage').some((c) => c.response.error === 'fatal_error'));
    noEventCame();
    await queueDrained(h, 30_000);
    expect(cardsOf(channel, ids)).toEqual([1]);
    expect(await deadLetters()).toBe(0);
  });

  it('a read-only channel: one refused post, its admin told once, the calls kept and shown once it takes posts again', async () => {
    const channel = `C0NEWS${uid().toUpperCase()}`;
    const campaignId = 'camp-1'; // one the platform knows: subscribe asks it to send the events
    await run(h, `subscribe ${campaignId} call_completed`, { channelId: channel });
    const sub = h.platform.state.subscriptions.find((s) => s.campaignId === campaignId);
    const hook = localHookUrl(h, sub!.hookUrl);
    h.slack.failMethod('chat.postMessage', 'restricted_action_read_only_channel', 1);
    const ids = Array.from({ length: 3 }, () => `call-${uid()}`);
    for (const callId of ids)
      expect((await deliver(hook, [{ ...CALL_COMPLETED_FULL, campaignId, callId }])).status).toBe(200);

    const dm = await h.slack.waitFor(() =>
      h.slack.messages().find((m) => m.channel.startsWith('D') && m.text.includes('stopped posting')),
    );
    expect(JSON.stringify(dm.blocks)).toContain('lets only some people post');
    // Nothing more is sent there while it is paused, and nothing became a failed event.
    await h.slack.waitFor(
      async () => (await h.bot.deps.store.outbox.size({ teamId: TEAM_ID, channelId: channel })) === 3,
    );
    const tried = h.slack.callsTo('chat.postMessage').filter((c) => c.args.channel === channel);
    expect(tried.filter((c) => c.response.ok !== true)).toHaveLength(1);
    expect(posts(h, channel).filter((m) => m.text.startsWith('Call completed'))).toEqual([]);
    expect(await deadLetters()).toBe(0);

    // The admin allows the app to post and runs subscribe there again: the waiting calls go out, once each.
    noEventCame();
    await run(h, `subscribe ${campaignId} call_completed`, { channelId: channel });
    await queueDrained(h, 30_000);
    expect(cardsOf(channel, ids)).toEqual([1, 1, 1]);
    const told = h.slack.messages().filter((m) => m.channel.startsWith('D') && m.text.includes('stopped posting'));
    expect(told).toHaveLength(1);
  });

  it('no_permission pauses only that channel: another channel of the workspace still shows its calls', async () => {
    const refused = `C0NOPERM${uid().toUpperCase()}`;
    const open = `C0OPEN${uid().toUpperCase()}`;
    // https://docs.slack.dev/reference/methods/conversations.history › Errors: no_permission — the token may not
    // act there; it is that conversation's, not the workspace's.
    h.slack.failMethod('chat.postMessage', 'no_permission', 1);
    await callsEnd(refused, 1);
    await h.slack.waitFor(() => h.bot.deps.store.channelPauses.get(TEAM_ID, refused));
    const ids = await callsEnd(open, 2);
    await h.slack.waitFor(() => cardsOf(open, ids).every((n) => n === 1), 15_000);
    expect((await h.bot.deps.store.channelPauses.get(TEAM_ID, refused))?.reason).toBe('no_permission');
    expect(await h.bot.deps.store.channelPauses.get(TEAM_ID, open)).toBeUndefined();
    expect(await deadLetters()).toBe(0);
    // Someone lets the app in again (Resume): the waiting call is shown there, once.
    noEventCame();
    await h.bot.deps.store.channelPauses.resume(TEAM_ID, refused);
    await queueDrained(h, 30_000);
    expect(posts(h, refused)).toHaveLength(1);
  });

  it('a channel that takes no thread replies: the card is posted there, its transcript top-level naming its thread', async () => {
    const channel = `C0FLAT${uid().toUpperCase()}`;
    // https://docs.slack.dev/reference/methods/chat.postMessage › Errors: restricted_action_non_threadable_channel,
    // "Cannot post thread replies into a non_threadable channel" — top-level posts still go.
    h.slack.restrictChannel(channel, 'non-threadable');
    const ids = await callsEnd(channel, 1);
    await h.slack.waitFor(() => posts(h, channel).length >= 2, 15_000);
    await queueDrained(h, 30_000);

    const [card, transcript] = posts(h, channel);
    expect(cardsOf(channel, ids)).toEqual([1]);
    expect(JSON.stringify(transcript?.blocks)).toContain('In reply to');
    expect(JSON.stringify(transcript?.blocks)).toContain(`p${card!.ts.replace('.', '')}`);
    expect(h.slack.messages(channel).filter((m) => m.thread_ts && m.thread_ts !== m.ts)).toEqual([]);
    // One refused reply, and the channel is not paused: its next calls go on.
    expect(await h.bot.deps.store.channelPauses.get(TEAM_ID, channel)).toBeUndefined();
    expect(await deadLetters()).toBe(0);
  });

  it('metadata Slack drops with a warning is an error in the log and counted on /metrics', async () => {
    const slack = await h.bot.deps.slack.forTeam(TEAM_ID, 'urgent');
    // https://docs.slack.dev/messaging/message-metadata: an event_type with punctuation "returns an
    // `invalid_metadata_schema` warning and is ignored" — the message goes out without its key.
    await slack!.chat.postMessage({
      channel: `C0WARN${uid().toUpperCase()}`,
      text: 'warned',
      metadata: { event_type: 'campaign.post', event_payload: { key: 'k' } },
    });
    const metric = await h.bot.deps.metrics.registry.getSingleMetricAsString('campaign_slack_warnings_total');
    expect(metric).toMatch(
      /campaign_slack_warnings_total\{method="chat.postMessage",warning="invalid_metadata_schema"\} [1-9]/,
    );
    expect(h.logs()).toMatch(/"level":"error"[^\n]*Slack dropped a post’s metadata/);
  });

  it('a thread-only channel holds only top-level posts: a call waits, the open conversation goes on in its thread', async () => {
    const conv = await openConversation(h);
    await conv.customer('Hello?');
    await conv.waitThread(1);
    const channel = conv.channels[0]!;
    // https://docs.slack.dev/reference/methods/chat.postMessage › Errors: restricted_action_thread_only_channel,
    // "Cannot post top-level messages into a thread-only channel" — replies still go.
    h.slack.restrictChannel(channel, 'thread-only');
    const ids = await callsEnd(channel, 1);
    await h.slack.waitFor(() => h.bot.deps.store.channelPauses.get(TEAM_ID, channel));

    await conv.customer('Are you there?');
    await conv.waitThread(2);
    expect(cardsOf(channel, ids)).toEqual([0]);
    // The reply left the channel's outbox; the call still waits there.
    await h.slack.waitFor(
      async () => (await h.bot.deps.store.outbox.size({ teamId: TEAM_ID, channelId: channel })) === 1,
    );
    // The channel takes top-level posts again: the call is shown, once.
    h.slack.unrestrictChannel(channel);
    noEventCame();
    await h.bot.deps.store.channelPauses.resume(TEAM_ID, channel);
    await queueDrained(h, 30_000);
    expect(cardsOf(channel, ids)).toEqual([1]);
  });

  it('counts a customer message shown in two channels once on /metrics, though one channel made it wait', async () => {
    const campaignId = `camp-${uid()}`;
    const channels = [`C0CNTA${uid().toUpperCase()}`, `C0CNTB${uid().toUpperCase()}`];
    const hook = await routeTo(
      h,
      channels.map((channelId) => ({ campaignId, triggerName: 'message_received', channelId })),
    );
    const counted = async () => {
      const metric = await h.bot.deps.metrics.registry.getSingleMetric('campaign_events_posted_total')?.get();
      return metric?.values.find((v) => v.labels.trigger === 'message_received')?.value ?? 0;
    };
    const before = await counted();
    const tries = h.slack.callsTo('chat.postMessage').length;
    h.slack.rateLimit({ method: 'chat.postMessage', times: 1, retryAfterSec: 1 });
    const text = `counted once ${uid()}`;
    const event = { ...MESSAGE_RECEIVED_FULL, campaignId, customerNumber: '+14155550142', messageContent: text };
    expect((await deliver(hook, [event])).status).toBe(200);
    await queueDrained(h);

    // One channel's first post was refused (429) and waited in its outbox; both channels show the customer.
    expect(
      h.slack
        .callsTo('chat.postMessage')
        .slice(tries)
        .filter((c) => c.status === 429),
    ).toHaveLength(1);
    for (const channel of channels)
      expect(h.slack.messages(channel).filter((m) => JSON.stringify(m).includes(text)).length).toBeGreaterThan(0);
    expect(await counted()).toBe(before + 1);
  });

  it('a 429 on reactions.add holds only reactions: an admin’s form opens at once, and the ✅ comes after Retry-After', async () => {
    const conv = await openConversation(h);
    await conv.customer('Hello?');
    await conv.waitThread(1);
    await conv.linkSession(conv.session());
    h.slack.rateLimit({ method: 'reactions.add', retryAfterSec: 5, times: 1 });
    const ts = await conv.reply('Hi, how can I help?');
    await h.slack.waitFor(() => h.slack.callsTo('reactions.add').find((c) => c.status === 429));

    // A trigger_id lives 3 s: the form opens only if views.open does not queue behind the reaction's wait.
    const opened = h.slack.callsTo('views.open').length;
    await h.signer.command({ text: 'connect', userId: ADMIN_ID });
    // Opened: Slack took the trigger, so views.open did not wait out the reaction's 5 s.
    await h.slack.waitFor(() => h.slack.views('connect_modal')[0]);
    expect(
      h.slack
        .callsTo('views.open')
        .slice(opened)
        .map((c) => c.response.ok),
    ).toEqual([true]);
    await h.slack.waitFor(() => reactions(h, conv.channels[0]!, ts).includes('white_check_mark'), 15_000);
  });
});

describe.each(['memory', 'redis'] as const)('a workspace over its Slack message limit (%s store)', (backend) => {
  const OTHER_TEAM = 'T0OTHERLIM1';
  /**
   * The bot's hold, far longer than the test's steps take on a loaded machine (a hold ending before the test moves
   * the clocks would show a second refusal), and shorter than a waiting customer's SLA, which the move must not pass.
   */
  const HOLD_MS = 3 * 60_000;
  let slackNow = Date.now();
  /** How far the test moved the bot's clock: past its hold, instead of waiting it out. */
  let botSkewMs = 0;
  /** The posts Slack took in the channel (each test's channels are its own). */
  const shown = (channel: string) => posts(h, channel).length;
  // Its own bot, with a second workspace installed; the bot and the stand-in's faults on clocks the test moves.
  const h = useHarness(async () => {
    const started = await startEventsHarness({
      oauth: true,
      defaultApiKey: false,
      publicUrl: null,
      ...(backend === 'redis' ? { redisUrl: redis.url, keyPrefix: `${redis.prefix}message-limit:${uid()}:` } : {}),
      slack: { rateLimitClock: () => slackNow },
      bot: {
        slackLimits: { ...slackLimits(1), messageLimitHoldMs: HOLD_MS },
        now: () => Date.now() + botSkewMs,
        // One channel posted at a time: the next channel is tried only once Slack's answer to the first is read
        // (several at once, a post already on its way when the refusal comes back is refused too).
        events: { calls: { rollupAfterMs: 60_000 }, delivery: { scanMs: 50, concurrency: 1 } },
      },
    });
    await installApp(started, TEAM_ID);
    await installApp(started, OTHER_TEAM);
    return started;
  });

  it('message_limit_exceeded holds the whole workspace: one refused post, not one per channel or thread; then each post once, its admin told once, another workspace unheld', async () => {
    const { store } = h.bot.deps;
    const channels = ['A', 'B', 'C'].map((l) => `C0LIM${l}${uid().toUpperCase()}`);
    for (const channel of channels) await store.channelPauses.setSubscriber(TEAM_ID, channel, ADMIN_ID);
    // A customer's open conversation, its card and first line already in Slack.
    const conv = await openConversation(h);
    await conv.customer('Hello?');
    await conv.waitThread(1);
    const campaignId = `camp-${uid()}`;
    const hook = await routeTo(
      h,
      channels.map((channelId) => ({ campaignId, triggerName: 'call_started', channelId })),
    );
    // https://docs.slack.dev/reference/methods/chat.postMessage › Errors: message_limit_exceeded, "Members on this
    // team are sending too many messages" — a free workspace's message limit: every post of that workspace is
    // refused until it passes, and only that workspace's.
    h.slack.failMethodFor('chat.postMessage', 'message_limit_exceeded', 60 * 60_000, TEAM_ID);
    const callId = `call-${uid()}`;
    expect((await deliver(hook, [{ ...CALL_STARTED_FULL, campaignId, callId }])).status).toBe(200);

    const refused = () =>
      h.slack.callsTo('chat.postMessage').filter((c) => c.response.error === 'message_limit_exceeded');
    await h.slack.waitFor(() => refused()[0]);
    // Every channel's post waits in its outbox for the workspace's hold, not due before it ends.
    await waitFor(async () => {
      const due = await store.outbox.due(Date.now(), 1_000);
      for (const channelId of channels)
        if (
          (await store.outbox.size({ teamId: TEAM_ID, channelId })) !== 1 ||
          due.some((c) => c.channelId === channelId)
        )
          return false;
      return true;
    }, 'every channel to wait for the workspace');

    // The customer writes again: the reply into the thread waits too (Slack would refuse it the same), untried.
    await conv.customer('Still there?');
    await waitFor(
      async () => (await store.outbox.size({ teamId: TEAM_ID, channelId: conv.channels[0]! })) === 1,
      'the customer’s line to wait for the workspace',
    );

    // Another workspace posts meanwhile.
    const otherChannel = `C0LIMOTHER${uid().toUpperCase()}`;
    await store.routes.add({
      teamId: OTHER_TEAM,
      campaignId: '*',
      triggerName: 'call_started',
      channelId: otherChannel,
    });
    const otherToken = await store.workspaces.createHookToken(OTHER_TEAM);
    const otherCall = `call-${uid()}`;
    expect((await deliver(`${h.url}/hooks/${otherToken}`, [{ ...CALL_STARTED_FULL, callId: otherCall }])).status).toBe(
      200,
    );
    await h.slack.waitFor(() => shown(otherChannel) === 1);
    expect(refused()).toHaveLength(1);

    // The limit passes (the stand-in's clock) and so does the bot's hold (its clock): every post goes out once, and
    // the admin's notice.
    slackNow += 2 * 60 * 60_000;
    botSkewMs += HOLD_MS + 1_000;
    const notices = () =>
      h.slack.messages().filter((m) => m.channel.startsWith('D') && JSON.stringify(m.blocks).includes('message limit'));
    await h.slack.waitFor(() => channels.every((c) => shown(c) === 1) && notices().length === 1);
    await conv.waitThread(2);
    await waitFor(async () => {
      for (const channelId of [...channels, conv.channels[0]!, ADMIN_ID])
        if ((await store.outbox.size({ teamId: TEAM_ID, channelId })) !== 0) return false;
      return true;
    }, 'every outbox to be empty');
    expect(refused()).toHaveLength(1);
    expect(channels.map(shown)).toEqual([1, 1, 1]);
    expect(shown(otherChannel)).toBe(1);
    expect(conv.thread().filter((m) => JSON.stringify(m).includes('Still there?'))).toHaveLength(1);
    expect(notices()).toHaveLength(1);
    expect(JSON.stringify(notices()[0]!.blocks)).toContain('nothing was lost');
    expect((await store.queue.deadLetters(TEAM_ID)).count).toBe(0);
  });
});

describe.each(['memory', 'redis'] as const)('Slack’s workspace-wide posting limit (%s store)', (backend) => {
  const h = useHarness(
    () =>
      startEventsHarness({
        ...(backend === 'redis' ? { redisUrl: redis.url, keyPrefix: `${redis.prefix}workspace-posts:${uid()}:` } : {}),
        bot: { events: { calls: { rollupAfterMs: 60_000 }, delivery: { scanMs: 50 } } },
      }),
    ['slack', 'platform'],
  );

  it('holds every channel’s posts once two channels are refused: the third channel is not tried until the Retry-After', async () => {
    // Slack: chat.postMessage "allows posting one message per second per channel" and a workspace as a whole
    // "several hundred messages per minute" (https://docs.slack.dev/apis/web-api/rate-limits): the stand-in's
    // workspace limit is set low so its 429 comes after five posts.
    h.slack.workspacePostLimit(5);
    const channels = Array.from({ length: 8 }, (_, i) => `C0WSLIM${i}${uid().toUpperCase().slice(0, 3)}`);
    for (const [i, channel] of channels.entries()) {
      const campaignId = `camp-ws-${i}`;
      const hook = await routeTo(h, [{ campaignId, triggerName: 'call_completed', channelId: channel }]);
      const callId = `call-${uid()}`;
      expect((await deliver(hook, [{ ...CALL_COMPLETED_FULL, campaignId, callId, callTranscript: '' }])).status).toBe(
        200,
      );
      const at = { teamId: TEAM_ID, channelId: channel };
      if (i < 7) {
        // Each call in its turn: tried in Slack (taken, or refused by the workspace's limit).
        await h.slack.waitFor(() => h.slack.callsTo('chat.postMessage').some((c) => c.args.channel === channel));
      } else {
        // The last one waits in its channel for the workspace's Retry-After, without a try.
        await waitFor(
          async () =>
            (await h.bot.deps.store.outbox.size(at)) === 1 &&
            !(await h.bot.deps.store.outbox.due(Date.now(), 100)).some((c) => c.channelId === channel),
          'the last channel to wait for the workspace',
        );
      }
    }
    const posted = h.slack.callsTo('chat.postMessage').filter((c) => channels.includes(String(c.args.channel)));
    expect(posted.filter((c) => c.status === 200 && c.response.ok === true)).toHaveLength(5);
    expect(posted.filter((c) => c.status === 429).map((c) => c.args.channel)).toEqual([channels[5], channels[6]]);
    expect(posted.some((c) => c.args.channel === channels[7])).toBe(false);
    // Kept, not failed: the three wait for the workspace's limit to pass.
    expect((await h.bot.deps.store.queue.deadLetters(TEAM_ID)).count).toBe(0);
    // Each post that went out was measured: its lane's delivery lag, on /metrics.
    const lag = await h.bot.deps.metrics.registry.getSingleMetricAsString('campaign_delivery_lag_seconds');
    expect(lag).toMatch(/campaign_delivery_lag_seconds_count\{lane="routine"\} [5-9]/);
  });
});
