/**
 * What an admin sees of events that could not be posted, in both store modes: a call routed to a channel the
 * bot was removed from is given up at once (one refused post, no retry storm) and kept; `/campaign failed`
 * names the channel, Slack's reason and what to do; once the bot is invited back, Retry posts it there once.
 * A chat message that fails in one of its two channels keeps that channel's cause, and its retry posts only
 * where it was missing.
 */
import { describe, expect, it } from 'vitest';
import { ADMIN_ID, MEMBER_ID, TEAM_ID, useHarness } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { waitFor } from '../support/wait.js';
import { CALL_COMPLETED_FULL, MESSAGE_RECEIVED_FULL } from './fixtures.js';
import { deliver, posts, queueDrained, routeTo, run, startEventsHarness } from './support.js';

const redis = await requireRedis();
let n = 0;
const uid = () => `${Date.now().toString(36)}${++n}`;

describe.each(['memory', 'redis'] as const)('/campaign failed (%s)', (mode) => {
  const h = useHarness(
    () =>
      startEventsHarness(mode === 'redis' ? { redisUrl: redis.url, keyPrefix: `${redis.prefix}failed:${mode}:` } : {}),
    ['slack'],
  );

  const deadLetters = async () => (await h.bot.deps.store.queue.deadLetters(TEAM_ID, 50)).entries;
  const retryValues = (body: unknown) =>
    [...JSON.stringify(body).matchAll(/"action_id":"dead_letter_retry","value":"([^"]+)"/g)].map((m) => m[1]);

  it('keeps a call the bot could not post because it was removed from the channel, and Retry posts it once invited back', async () => {
    const channel = `C0GONE${uid().toUpperCase().slice(-4)}`;
    h.slack.addChannel({ id: channel, name: 'removed', is_member: false });
    h.slack.expectRefusal('chat.postMessage', 'not_in_channel');
    const hook = await routeTo(h, [{ campaignId: '*', triggerName: 'call_completed', channelId: channel }]);
    // The admin who subscribed the channel (as `/campaign subscribe` records it) is the one told.
    await h.bot.deps.store.channelPauses.setSubscriber(TEAM_ID, channel, ADMIN_ID);
    const callId = `call-${uid()}`;
    expect((await deliver(hook, [{ ...CALL_COMPLETED_FULL, callId, callTranscript: '' }])).status).toBe(200);
    await waitFor(
      async () => (await deadLetters()).some((d) => JSON.stringify(d.payload).includes(callId)),
      'the dead letter',
    );
    await queueDrained(h);
    // One refused post: retrying cannot help until someone acts, so the bot did not try again.
    expect(h.slack.callsTo('chat.postMessage').filter((c) => c.args.channel === channel)).toHaveLength(1);
    // The channel is paused: the next call is kept without a call to Slack, and the admin was told once.
    const laterId = `call-${uid()}`;
    expect((await deliver(hook, [{ ...CALL_COMPLETED_FULL, callId: laterId, callTranscript: '' }])).status).toBe(200);
    await waitFor(
      async () => (await deadLetters()).some((d) => JSON.stringify(d.payload).includes(laterId)),
      'the second dead letter',
    );
    expect(h.slack.callsTo('chat.postMessage').filter((c) => c.args.channel === channel)).toHaveLength(1);
    const told = h.slack.callsTo('chat.postMessage').filter((c) => c.args.channel === ADMIN_ID && c.status === 200);
    expect(told).toHaveLength(1);
    expect(JSON.stringify(told[0]!.args.blocks)).toContain('/invite @Campaign');

    // A member may not see them; an admin sees the channel, Slack's reason and what to do.
    expect((await run(h, 'failed', { userId: MEMBER_ID })).text).toMatch(/admin/i);
    const answer = await run(h, 'failed', { userId: ADMIN_ID });
    expect(answer.text).toContain('call_completed');
    expect(answer.text).toContain(`<#${channel}>`);
    expect(answer.text).toContain('`not_in_channel`');
    expect(answer.text).toContain('/invite @Campaign');
    expect(answer.text).toContain('is paused');
    // Each kept event has its Retry button; this one is the first call's.
    const id = (await deadLetters()).find((d) => JSON.stringify(d.payload).includes(callId))?.id;
    expect(id).toBeDefined();
    expect(retryValues(answer.body)).toContain(id);

    // Invited back: Retry posts the call there, once; the list is empty again.
    h.slack.addChannel({ id: channel, name: 'removed', is_member: true });
    const retried = await h.signer.blockAction({
      actionId: 'dead_letter_retry',
      value: id!,
      userId: ADMIN_ID,
      responseUrlId: `retry-${id}`,
      ephemeral: true,
    });
    expect(retried.status).toBe(200);
    await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === `retry-${id}`));
    expect(JSON.stringify(h.slack.responses.find((r) => r.id === `retry-${id}`)?.body)).toContain('Queued again');
    await h.slack.waitFor(() => posts(h, channel).find((m) => JSON.stringify(m.blocks).includes(callId)), 5_000);
    await queueDrained(h);
    expect(posts(h, channel).filter((m) => JSON.stringify(m.blocks).includes(callId))).toHaveLength(1);
    expect(await deadLetters()).not.toContainEqual(expect.objectContaining({ id }));
    // The retry lifted the pause: the channel takes new calls again.
    expect(await h.bot.deps.store.channelPauses.get(TEAM_ID, channel)).toBeUndefined();

    // A second press of the same button finds nothing to retry.
    await h.signer.blockAction({
      actionId: 'dead_letter_retry',
      value: id!,
      userId: ADMIN_ID,
      responseUrlId: `again-${id}`,
      ephemeral: true,
    });
    const again = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === `again-${id}`));
    expect(JSON.stringify(again.body)).toContain('retried it already');
  });

  it('keeps each channel’s cause for a chat message, and its retry posts only where it was missing', async () => {
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
    const letter = await waitFor(
      async () => (await deadLetters()).some((d) => JSON.stringify(d.payload).includes(customerNumber)),
      'the dead letter',
      10_000,
    ).then(async () => (await deadLetters()).find((d) => JSON.stringify(d.payload).includes(customerNumber))!);
    expect(letter.causes).toEqual([{ channel: gone, error: 'not_in_channel' }]);
    const cardsIn = (channel: string) => posts(h, channel).filter((m) => m.text.startsWith('Chat with'));
    expect(cardsIn(ok)).toHaveLength(1);

    h.slack.addChannel({ id: gone, name: 'support-old', is_member: true });
    expect(await h.bot.deps.surfaces.retryDeadLetter(TEAM_ID, letter.id)).toBe('queued');
    await h.slack.waitFor(() => cardsIn(gone)[0], 5_000);
    await queueDrained(h);
    expect(cardsIn(gone)).toHaveLength(1);
    expect(cardsIn(ok)).toHaveLength(1);
  });
});
