/**
 * What an admin sees of events that could not be posted, in both store modes: the calls of a channel the bot
 * was removed from wait (one refused post, no retry storm, nothing a failed event); `/campaign failed` names the
 * channel, what to do and how many calls wait; once the bot is invited back, Resume posts them there once.
 * A chat message that fails in one of its two channels keeps that channel's cause, and its retry posts only
 * where it was missing. An event Slack refuses in two channels is one failed event with both causes, counted once,
 * and a Retry that Slack refuses again leaves it one, still counted once.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_ID, MEMBER_ID, TEAM_ID, useHarness } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { waitFor } from '../support/wait.js';
import { CALL_COMPLETED_FULL, MESSAGE_RECEIVED_FULL } from './fixtures.js';
import { deliver, posts, queueDrained, routeTo, run, startEventsHarness } from './support.js';

const redis = await requireRedis();
let n = 0;
const uid = () => `${Date.now().toString(36)}${++n}`;

/**
 * How far a test moved the bots' clock: past their wait for Slack's event about a refused post before it is sent
 * again (idempotent-posts.ts), instead of waiting it out.
 */
let botSkewMs = 0;
beforeEach(() => {
  botSkewMs = 0;
});
const noEventCame = () => (botSkewMs += 6_000);
const bot = { now: () => Date.now() + botSkewMs };

describe.each(['memory', 'redis'] as const)('/campaign failed (%s)', (mode) => {
  const h = useHarness(
    () =>
      startEventsHarness({
        ...(mode === 'redis' ? { redisUrl: redis.url, keyPrefix: `${redis.prefix}failed:${mode}:` } : {}),
        bot,
      }),
    ['slack'],
  );

  const deadLetters = async () => (await h.bot.deps.store.queue.deadLetters(TEAM_ID, 50)).entries;

  it('keeps the calls of a channel the bot was removed from, tells its admin once, and Resume posts them once invited back', async () => {
    const channel = `C0GONE${uid().toUpperCase().slice(-4)}`;
    h.slack.addChannel({ id: channel, name: 'removed', is_member: false });
    h.slack.expectRefusal('chat.postMessage', 'not_in_channel');
    const hook = await routeTo(h, [{ campaignId: '*', triggerName: 'call_completed', channelId: channel }]);
    // The admin who subscribed the channel (as `/campaign subscribe` records it) is the one told.
    await h.bot.deps.store.channelPauses.setSubscriber(TEAM_ID, channel, ADMIN_ID);
    const waiting = () => h.bot.deps.store.outbox.size({ teamId: TEAM_ID, channelId: channel });
    const callId = `call-${uid()}`;
    expect((await deliver(hook, [{ ...CALL_COMPLETED_FULL, callId, callTranscript: '' }])).status).toBe(200);
    await waitFor(async () => (await h.bot.deps.store.channelPauses.get(TEAM_ID, channel)) !== undefined, 'the pause');
    // The channel is paused: the next call waits too, without a call to Slack; nothing is a failed event.
    const laterId = `call-${uid()}`;
    expect((await deliver(hook, [{ ...CALL_COMPLETED_FULL, callId: laterId, callTranscript: '' }])).status).toBe(200);
    await waitFor(async () => (await waiting()) === 2, 'both calls waiting for the channel');
    // One refused post: retrying cannot help until someone acts, so the bot did not try again.
    expect(h.slack.callsTo('chat.postMessage').filter((c) => c.args.channel === channel)).toHaveLength(1);
    expect(await deadLetters()).toEqual([]);
    const told = h.slack.callsTo('chat.postMessage').filter((c) => c.args.channel === ADMIN_ID && c.status === 200);
    expect(told).toHaveLength(1);
    expect(JSON.stringify(told[0]!.args.blocks)).toContain('/invite @Campaign');

    // A member may not see it; an admin sees the channel, what to do, how many calls wait, and Resume.
    expect((await run(h, 'failed', { userId: MEMBER_ID })).text).toMatch(/admin/i);
    const answer = await run(h, 'failed', { userId: ADMIN_ID });
    expect(answer.text).toContain(`<#${channel}>`);
    expect(answer.text).toContain('/invite @Campaign');
    expect(answer.text).toContain('is paused');
    expect(answer.text).toContain('2 posts wait for it');
    expect(answer.text).toContain('"action_id":"channel_resume"');

    // Invited back: Resume posts the waiting calls there, once each, and lifts the pause.
    h.slack.addChannel({ id: channel, name: 'removed', is_member: true });
    noEventCame();
    const resumed = await h.signer.blockAction({
      actionId: 'channel_resume',
      value: channel,
      userId: ADMIN_ID,
      responseUrlId: `resume-${channel}`,
      ephemeral: true,
    });
    expect(resumed.status).toBe(200);
    const said = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === `resume-${channel}`));
    expect(JSON.stringify(said.body)).toContain('resumes');
    await queueDrained(h, 15_000);
    for (const id of [callId, laterId])
      expect(posts(h, channel).filter((m) => JSON.stringify(m.blocks).includes(id))).toHaveLength(1);
    expect(await h.bot.deps.store.channelPauses.get(TEAM_ID, channel)).toBeUndefined();
    expect(await deadLetters()).toEqual([]);
  });

  it('keeps a customer’s message for a channel the bot was removed from, and posts it there once, on Resume', async () => {
    const ok = 'C0CHATOK01';
    const gone = `C0CHATX${uid().toUpperCase().slice(-3)}`;
    h.slack.addChannel({ id: gone, name: 'support-old', is_member: false });
    h.slack.expectRefusal('chat.postMessage', 'not_in_channel');
    const hook = await routeTo(h, [
      { campaignId: '*', triggerName: 'message_received', channelId: ok },
      { campaignId: '*', triggerName: 'message_received', channelId: gone },
    ]);
    const customerNumber = `+1415557${String(n).padStart(4, '0')}`;
    expect((await deliver(hook, [{ ...MESSAGE_RECEIVED_FULL, customerNumber }])).status).toBe(200);
    const cardsIn = (channel: string) => posts(h, channel).filter((m) => m.text.startsWith('Chat with'));
    // Shown where it can be at once; kept for the channel that refused it (paused), not a dead letter.
    await h.slack.waitFor(() => cardsIn(ok)[0], 5_000);
    const waiting = () => h.bot.deps.store.outbox.size({ teamId: TEAM_ID, channelId: gone });
    const pause = () => h.bot.deps.store.channelPauses.get(TEAM_ID, gone);
    await waitFor(async () => (await pause()) !== undefined, 'the channel paused');
    expect((await pause())?.reason).toBe('not_in_channel');
    expect(await waiting()).toBe(1);
    // The event itself is finished (its completion may land just after the park).
    await waitFor(async () => (await h.bot.deps.store.queue.depth()).total === 0, 'the event to be finished');
    expect(await deadLetters()).toEqual([]);

    h.slack.addChannel({ id: gone, name: 'support-old', is_member: true });
    noEventCame();
    expect(await h.bot.deps.store.channelPauses.resume(TEAM_ID, gone)).toBe(true);
    await h.slack.waitFor(() => cardsIn(gone)[0], 8_000);
    await queueDrained(h);
    expect(cardsIn(gone)).toHaveLength(1);
    expect(cardsIn(ok)).toHaveLength(1);
    // The customer's words in the card's thread, once.
    const card = cardsIn(gone)[0]!;
    expect(h.slack.messages(gone).filter((m) => m.thread_ts === card.ts && m.ts !== card.ts)).toHaveLength(1);
    expect(await deadLetters()).toEqual([]);
  });
});

describe.each(['memory', 'redis'] as const)('/campaign failed: one event, one letter (%s)', (mode) => {
  // A bot of its own: no post of another test is under way to take a refusal meant for this one.
  const h = useHarness(
    () =>
      startEventsHarness({
        ...(mode === 'redis' ? { redisUrl: redis.url, keyPrefix: `${redis.prefix}failed-once:${mode}:` } : {}),
        bot,
      }),
    ['slack'],
  );

  const deadLetters = async () => (await h.bot.deps.store.queue.deadLetters(TEAM_ID, 50)).entries;

  const everKept = async () => (await h.bot.deps.store.queue.deadLetters(TEAM_ID, 1)).count;

  /** A call routed to `channels` (a campaign of its own), which Slack refuses in each of them, given up. */
  async function refusedCall(prefix: string, count: number) {
    const channels = Array.from({ length: count }, (_, i) => `C0${prefix}${i}${uid().toUpperCase().slice(-3)}`);
    const campaignId = `camp-${prefix}-${uid()}`;
    const hook = await routeTo(
      h,
      channels.map((channelId) => ({ campaignId, triggerName: 'call_completed', channelId })),
    );
    await queueDrained(h);
    const tried = () =>
      channels.map((c) => h.slack.callsTo('chat.postMessage').filter((call) => call.args.channel === c).length);
    h.slack.expectRefusal('chat.postMessage', 'invalid_blocks');
    h.slack.failMethod('chat.postMessage', 'invalid_blocks', count);
    const callId = `call-${uid()}`;
    const event = { ...CALL_COMPLETED_FULL, campaignId, callId, callTranscript: '' };
    expect((await deliver(hook, [event])).status).toBe(200);
    await waitFor(async () => (await deadLetters()).length > 0 && tried().every((n) => n === 1), 'the refusals');
    await queueDrained(h);
    return { channels, callId, tried };
  }

  it('shows a call Slack refused in two channels as one failed event with both causes, counted once', async () => {
    const before = await everKept();
    const { channels } = await refusedCall('TWIN', 2);
    const listed = await run(h, 'failed', { userId: ADMIN_ID });
    expect(listed.text).toContain('1 event(s) could not be posted');
    for (const channel of channels) expect(listed.text).toContain(`<#${channel}>: \`invalid_blocks\``);
    expect(await everKept()).toBe(before + 1);
    expect((await run(h, 'subscriptions', { userId: ADMIN_ID })).text).toContain(`*${before + 1}* dead letter`);
  });

  it('keeps a call whose Retry Slack refuses again as the one failed event it was, not counted again', async () => {
    for (const letter of await deadLetters()) await h.bot.deps.store.queue.takeDeadLetter(TEAM_ID, letter.id);
    const { channels, callId, tried } = await refusedCall('AGAIN', 1);
    const [letter] = await deadLetters();
    const before = await everKept();

    // Retry while Slack still refuses the message: tried again, given up again — the same letter, once.
    h.slack.failMethod('chat.postMessage', 'invalid_blocks', 1);
    noEventCame();
    const pressed = await h.signer.blockAction({
      actionId: 'dead_letter_retry',
      value: letter!.id,
      userId: ADMIN_ID,
      responseUrlId: `retry-${callId}`,
      ephemeral: true,
    });
    expect(pressed.status).toBe(200);
    await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === `retry-${callId}`));
    // A refused post is looked up before it is sent again (its answer said nothing was posted, but the mark waits).
    await waitFor(
      async () => (await deadLetters()).length > 0 && tried().every((n) => n === 2),
      'the retry refused again',
      20_000,
    );
    await queueDrained(h);
    const again = await run(h, 'failed', { userId: ADMIN_ID });
    expect(again.text).toContain('1 event(s) could not be posted');
    expect(again.text).toContain(`<#${channels[0]!}>: \`invalid_blocks\``);
    expect(await everKept()).toBe(before);
    expect((await run(h, 'subscriptions', { userId: ADMIN_ID })).text).toContain(`*${before}* dead letter`);
    expect(posts(h, channels[0]!)).toHaveLength(0);
  });
});
