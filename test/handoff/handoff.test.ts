/**
 * Handoff threads end to end, over HTTP with the fakes, on both store backends: the platform's chat webhooks
 * become one card + thread per conversation and channel, a support agent's thread replies reach the customer
 * through send-human-response (once, whatever Slack retries), and every failure is explained in the thread.
 */
import { describe, expect, it } from 'vitest';
import { LINK_SESSION_ACTION } from '../../src/handoff/card.js';
import { LINK_SESSION_CALLBACK, RETRY_ACTION } from '../../src/handoff/index.js';
import { findAction, findBlock, textOf } from '../support/blocks.js';
import { ADMIN_ID, MEMBER_ID, useHarness } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { requireCluster } from '../support/redis-cluster.js';
import { posts, queueDrained, run, startEventsHarness } from '../events/support.js';
import { notices, openConversation, privateNotices, reactions, retryValue, sends, uid } from './support.js';

const redis = await requireRedis();
const cluster = await requireCluster();

describe.each(['memory', 'redis', 'cluster'] as const)('handoff threads (%s store)', (backend) => {
  const h = useHarness(() =>
    startEventsHarness({
      ...(backend === 'redis'
        ? { redisUrl: redis.url, keyPrefix: `${redis.prefix}handoff:` }
        : backend === 'cluster'
          ? { redisClusterNodes: cluster.spec, keyPrefix: `${redis.prefix}handoff:` }
          : {}),
      unlimitedSlackBecause:
        'conversation threads, not pace: each test posts a card, many lines and card updates into one channel (pacing: test/events/pacing.test.ts)',
    }),
  );

  const logCount = (line: string) => h.logs().split(line).length - 1;

  /** Of two quick presses of one button, one sends; the other answers its presser that the reply is (being) sent. */
  const secondPressTurnedAway = (answeredBefore: number) =>
    h.slack.waitFor(() =>
      h.slack.responses.slice(answeredBefore).find((r) => /already sent|being sent/.test(JSON.stringify(r.body))),
    );

  it('puts a conversation of 5 messages in one thread, in order, customer and agent told apart', async () => {
    const conv = await openConversation(h);
    // Every other post is refused with a 429 first: the card and each line still land once, in order.
    h.slack.rateLimit({ method: 'chat.postMessage', retryAfterSec: 0, everyOther: true, times: 6 });
    await conv.customer('Hi, can I move my appointment?');
    await conv.agent('Sure — which day suits you?');
    await conv.customer('Friday morning <!channel>');
    await conv.agent('Friday 9:30 is free.');
    await conv.customer('Perfect, thanks!');

    const replies = await conv.waitThread(5);
    const [channel] = conv.channels;
    expect(posts(h, channel!)).toHaveLength(1);
    const card = await conv.card();
    const cardText = textOf(card.blocks);
    for (const fact of ['Noah Wilson', conv.customerNumber, 'Chat Support', conv.campaignId, 'Sam', 'messages', 'Open'])
      expect(cardText).toContain(fact);
    expect(findAction(card.blocks, LINK_SESSION_ACTION)?.text?.text).toBe('🔗 Link session');

    const lines = replies.map((m) => JSON.stringify(m.blocks));
    expect(
      lines.map((l) => (l.includes('💬 *Noah Wilson*') ? 'customer' : l.includes('🤖 *Sam*') ? 'agent' : '?')),
    ).toEqual(['customer', 'agent', 'customer', 'agent', 'customer']);
    expect(lines[0]).toContain('Hi, can I move my appointment?');
    expect(lines[2]).toContain('&lt;!channel&gt;');
    expect(lines[2]).not.toContain('<!channel>');
    expect(lines[4]).toContain('Perfect, thanks!');
    expect(h.slack.callsTo('chat.postMessage').filter((c) => c.status === 429).length).toBeGreaterThan(0);
  });

  it('refuses a session id that can’t be one, on the form', async () => {
    const conv = await openConversation(h);
    await conv.customer('Hi');
    await conv.waitThread(1);
    const card = await conv.card();
    const modal = await conv.openLinkForm();
    expect(modal.private_metadata).toContain(card.ts);
    // The form says what a session id looks like before anyone gets it wrong.
    expect(findBlock(modal.blocks, 'session_id')?.hint?.text).toContain('sess-');
    const submit = (value: string) =>
      h.signer.viewSubmission({
        callbackId: LINK_SESSION_CALLBACK,
        userId: MEMBER_ID,
        values: { session_id: { value: { type: 'plain_text_input', value } } },
      });
    const refused = async (value: string, why: string) => {
      const res = await submit(value);
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ response_action: 'errors', errors: { session_id: expect.stringContaining(why) } });
    };
    await refused('two words', 'no spaces');
    await refused('https://portal.example.com/chats/sess-4f9c2a1b', 'is a link');
    await refused('s'.repeat(129), 'at most 128 characters');
    await refused('sess:<@U0ADMIN01>', 'letters, digits');
    expect(
      (await h.bot.deps.store.conversations.findThread(h.signer.teamId, conv.channels[0]!, card.ts))?.sessionId,
    ).toBeUndefined();
  });

  it('sends a reply in a thread with a linked session to the platform, with ✅ on the reply', async () => {
    const conv = await openConversation(h);
    await conv.customer('Is anyone there?');
    await conv.waitThread(1);
    const sessionId = conv.session();
    await conv.linkSession(sessionId);
    const card = await conv.card();
    expect(JSON.stringify(card.blocks)).toContain(`\`${sessionId}\``);

    const ts = await conv.reply('Yes &amp; happy to help — see <https://example.com/hours|our hours> <@U0ADMIN01>');
    await h.slack.waitFor(() => reactions(h, conv.channels[0]!, ts).includes('white_check_mark'));
    const sent = sends(h, conv.campaignId);
    expect(sent).toHaveLength(1);
    // No agent-link for this user: no agentId. Slack markup became plain text for the customer.
    expect(sent[0]!.body).toEqual({
      sessionId,
      message: 'Yes & happy to help — see our hours (https://example.com/hours) @ada',
    });
    expect(h.platform.state.humanResponses.filter((r) => r.sessionId === sessionId)).toHaveLength(1);
    expect(notices(conv.thread(), 'your reply')).toEqual([]);
  });

  it('sends agentId only for a Slack user an admin linked to a platform agent', async () => {
    const conv = await openConversation(h);
    await conv.customer('Hello?');
    const sessionId = conv.session();
    await conv.linkSession(sessionId);
    await run(h, `agent-link <@${ADMIN_ID}|ada> agent-31`, { userId: ADMIN_ID });
    const ts = await conv.reply('Hi, Ada here.', { userId: ADMIN_ID });
    await h.slack.waitFor(() => reactions(h, conv.channels[0]!, ts).includes('white_check_mark'));
    expect(sends(h, conv.campaignId)[0]!.body).toEqual({ sessionId, message: 'Hi, Ada here.', agentId: 'agent-31' });
    await run(h, `agent-link <@${ADMIN_ID}|ada> remove`, { userId: ADMIN_ID });
  });

  it('explains a 400 (session stale, closed or not handed off) with ⚠️, Link session, and Send again that sends once', async () => {
    const conv = await openConversation(h);
    await conv.customer('Help please');
    const stale = conv.session(false);
    await conv.linkSession(stale);
    const ts = await conv.reply('We are on it.');
    const [channel] = conv.channels;
    await h.slack.waitFor(() => reactions(h, channel!, ts).includes('warning'));
    const notice = await h.slack.waitFor(() => notices(conv.thread(), 'your reply was not sent')[0]);
    const text = JSON.stringify(notice.blocks);
    expect(text).toContain('stale, closed or not handed off');
    expect(text).toContain('human handoff is not enabled for the campaign');
    expect(text).toContain('not a campaign setting');
    expect(text).toMatch(/request id req_\d+/);
    expect(findAction(notice.blocks, LINK_SESSION_ACTION)).toBeDefined();
    expect(findAction(notice.blocks, RETRY_ACTION)?.text?.text).toContain('Send again');
    expect(h.platform.state.humanResponses.filter((r) => r.sessionId === stale)).toHaveLength(0);

    // The agent links the current session and presses Send again — twice, quickly.
    const current = conv.session();
    await conv.linkSession(current);
    const answered = h.slack.responses.length;
    await Promise.all([conv.press(notice.ts), conv.press(notice.ts)]);
    await h.slack.waitFor(() => reactions(h, channel!, ts).includes('white_check_mark'));
    await secondPressTurnedAway(answered);
    expect(reactions(h, channel!, ts)).toEqual(['white_check_mark']);
    expect(h.platform.state.humanResponses.filter((r) => r.sessionId === current)).toHaveLength(1);
    const settled = h.slack.message(channel!, notice.ts)?.blocks;
    expect(textOf(settled)).toContain('reached the customer');
    expect(findAction(settled, RETRY_ACTION)).toBeUndefined();
    // A late press from a screen that still shows the old button sends nothing more.
    await conv.press(notice.ts, { value: retryValue(notice) });
    await h.slack.waitFor(() => h.slack.responses.some((r) => JSON.stringify(r.body).includes('already sent')));
    expect(h.platform.state.humanResponses.filter((r) => r.sessionId === current)).toHaveLength(1);
  });

  it('sends nothing without a linked session and tells only its author, whose Send again sends it once linked', async () => {
    const conv = await openConversation(h);
    const channel = conv.channels[0]!;
    await conv.customer('Anyone?');
    const card = await conv.card();
    const ts = await conv.reply('Hello from support');
    await h.slack.waitFor(() => reactions(h, channel, ts).includes('warning'));
    const notice = await h.slack.waitFor(
      () => privateNotices(h, channel, card.ts, MEMBER_ID, 'no chat session is linked')[0],
    );
    expect(findAction(notice.blocks, LINK_SESSION_ACTION)).toBeDefined();
    expect(sends(h, conv.campaignId)).toHaveLength(0);
    // Nothing left Slack, so the thread holds no notice: only the customer's line and the reply.
    expect(conv.thread().filter((m) => m.bot_id !== undefined)).toHaveLength(1);

    // Linked, then Send again on the private notice: sent once, and that notice now says so.
    const sessionId = conv.session();
    await conv.linkSession(sessionId);
    await conv.press(notice.ts, { ephemeral: true, value: retryValue(notice) });
    await h.slack.waitFor(() => reactions(h, channel, ts).includes('white_check_mark'));
    expect(reactions(h, channel, ts)).not.toContain('warning');
    await h.slack.waitFor(() => privateNotices(h, channel, card.ts, MEMBER_ID, 'reached the customer')[0]);
    expect(privateNotices(h, channel, card.ts, MEMBER_ID, 'no chat session is linked')).toEqual([]);
    expect(sends(h, conv.campaignId).map((r) => r.body)).toEqual([{ sessionId, message: 'Hello from support' }]);
    expect(conv.thread().filter((m) => m.bot_id !== undefined)).toHaveLength(1);
  });

  it('keeps `note:` replies, bot messages and the bot’s own messages in Slack', async () => {
    const conv = await openConversation(h);
    await conv.customer('Hi');
    await conv.linkSession(conv.session());
    const before = conv.thread().length;
    const note = await conv.reply('Note: customer sounds upset, be gentle');
    const bot = await conv.reply('automated reminder', { extra: { bot_id: 'B0OTHERAPP', subtype: 'bot_message' } });
    const own = await conv.reply('our own message', { userId: h.slack.botUserId });
    // A top-level message and a reply in a thread that is not a conversation are not handoff replies either.
    await h.signer.event({ type: 'message', channel: conv.channels[0], user: MEMBER_ID, text: 'channel chatter' });
    const other = h.slack.addMessage({ channel: conv.channels[0]!, user: MEMBER_ID, text: 'unrelated thread' });
    await h.signer.event({
      type: 'message',
      channel: conv.channels[0],
      user: MEMBER_ID,
      text: 'reply elsewhere',
      thread_ts: other.ts,
    });
    // Nothing is sent nor said for any of them, once the bot is done with each.
    for (const ts of [note, bot, own]) await h.slackRequestDone((b) => b.event?.ts === ts, `the thread message ${ts}`);
    for (const text of ['channel chatter', 'reply elsewhere'])
      await h.slackRequestDone((b) => b.event?.text === text, `“${text}”`);
    expect(sends(h, conv.campaignId)).toHaveLength(0);
    for (const ts of [note, bot, own]) expect(reactions(h, conv.channels[0]!, ts)).toEqual([]);
    expect(conv.thread().filter((m) => m.bot_id !== undefined)).toHaveLength(before);
  });

  it('sends a reply once however often Slack delivers its event (retries, duplicates, at the same time)', async () => {
    const conv = await openConversation(h);
    await conv.customer('Hi');
    const sessionId = conv.session();
    await conv.linkSession(sessionId);
    const ts = h.slack.nextTs();
    const eventId = `Ev${uid().toUpperCase()}`;
    const seenAgain = logCount('Slack delivered this event again');
    const claimed = logCount('this reply is already being handled');
    await conv.reply('Only once, please', { ts, eventId });
    await Promise.all([
      conv.reply('Only once, please', { ts, eventId, retryNum: 1 }),
      conv.reply('Only once, please', { ts, eventId, retryNum: 2 }),
      // The same message under another event id (a duplicate delivery): the reply's own claim stops it.
      conv.reply('Only once, please', { ts }),
    ]);
    await h.slack.waitFor(() => reactions(h, conv.channels[0]!, ts).includes('white_check_mark'));
    // The three extra deliveries were turned away: two by event id, one by the reply's own claim.
    await h.slack.waitFor(
      () =>
        logCount('Slack delivered this event again') === seenAgain + 2 &&
        logCount('this reply is already being handled') === claimed + 1,
    );
    expect(h.platform.state.humanResponses.filter((r) => r.sessionId === sessionId)).toHaveLength(1);
    expect(sends(h, conv.campaignId)).toHaveLength(1);
  });

  it('does not post the platform’s message_sent echo of a reply sent from Slack', async () => {
    const conv = await openConversation(h);
    await conv.customer('Question');
    await conv.linkSession(conv.session());
    const ts = await conv.reply('Here is the answer');
    await h.slack.waitFor(() => reactions(h, conv.channels[0]!, ts).includes('white_check_mark'));
    const before = conv.thread().length;
    await conv.agent('Here is the answer'); // the echo
    await conv.agent('Anything else I can help with?'); // a real agent message after it (same conversation: in order)
    const replies = await conv.waitThread(before + 1);
    await queueDrained(h);
    expect(conv.thread()).toHaveLength(before + 1);
    expect(JSON.stringify(replies.at(-1)!.blocks)).toContain('Anything else');
    expect(
      conv.thread().filter((m) => m.bot_id && JSON.stringify(m.blocks).includes('🤖 *Sam*\\n&gt;Here is the answer')),
    ).toHaveLength(0);
    expect(h.logs()).toContain('echo of a reply sent from a Slack thread');
  });

  it('closes the thread on message_session_completed: card closed, session cleared, replies refused, next message opens a new card', async () => {
    const conv = await openConversation(h);
    await conv.customer('Thanks, bye');
    const sessionId = conv.session();
    await conv.linkSession(sessionId);
    const card = await conv.card();
    const channel = conv.channels[0]!;
    await conv.complete();
    await h.slack.waitFor(() => JSON.stringify(h.slack.message(channel, card.ts)?.blocks).includes('Closed'));
    const closed = JSON.stringify(h.slack.message(channel, card.ts)?.blocks);
    expect(closed).not.toContain(sessionId);
    expect(findAction(h.slack.message(channel, card.ts)?.blocks, LINK_SESSION_ACTION)).toBeUndefined();
    await h.slack.waitFor(() => conv.thread().some((m) => m.text === 'Chat session completed'));
    const thread = await h.bot.deps.store.conversations.findThread(h.signer.teamId, channel, card.ts);
    expect(thread).toMatchObject({ state: 'closed' });
    expect(thread?.sessionId).toBeUndefined();

    const ts = await conv.reply('One more thing!');
    await h.slack.waitFor(() => reactions(h, channel, ts).includes('warning'));
    await h.slack.waitFor(() => privateNotices(h, channel, card.ts, MEMBER_ID, 'this conversation is closed')[0]);
    expect(sends(h, conv.campaignId)).toHaveLength(0);

    await conv.customer('Hi again, new question');
    await h.slack.waitFor(() => posts(h, channel).length === 2);
    const fresh = posts(h, channel)[1]!;
    expect(JSON.stringify(fresh.blocks)).toContain('Open');
    await h.slack.waitFor(() => h.slack.thread(channel, fresh.ts).length === 2);
  });

  it('gives each routed channel its own thread, and shows a reply sent from one in the other', async () => {
    const conv = await openConversation(h, { channels: 2 });
    const [a, b] = conv.channels as [string, string];
    await conv.customer('Hello both');
    await conv.agent('Hi! An agent will join shortly.');
    await conv.waitThread(2, a);
    await conv.waitThread(2, b);
    const cardA = await conv.card(a);
    const cardB = await conv.card(b);
    expect(cardA.ts).not.toBe(cardB.ts);
    expect(posts(h, a)).toHaveLength(1);
    expect(posts(h, b)).toHaveLength(1);

    const sessionId = conv.session();
    await conv.linkSession(sessionId, a);
    // Linked for A's thread only: B's card still offers Link session without a session.
    expect(JSON.stringify((await conv.card(b)).blocks)).not.toContain(sessionId);
    const ts = await conv.reply('Answer from channel A', { channel: a });
    await h.slack.waitFor(() => reactions(h, a, ts).includes('white_check_mark'));
    await h.slack.waitFor(() => conv.thread(b).some((m) => JSON.stringify(m.blocks).includes('Answer from channel A')));
    expect(h.platform.state.humanResponses.filter((r) => r.sessionId === sessionId)).toHaveLength(1);
  });

  it('shows a sent reply in the other channel once, after Retry-After, when Slack refuses that post with a 429', async () => {
    const conv = await openConversation(h, { channels: 2 });
    const [a, b] = conv.channels as [string, string];
    await conv.customer('Hello both');
    await conv.waitThread(1, a);
    await conv.waitThread(1, b);
    await conv.linkSession(conv.session(), a);
    await queueDrained(h);
    // The reply's only post is its copy in B's thread: Slack refuses it once, asking for a second's wait.
    const postsBefore = h.slack.callsTo('chat.postMessage').length;
    h.slack.rateLimit({ method: 'chat.postMessage', times: 1, retryAfterSec: 1 });
    const ts = await conv.reply('Answer held by a 429', { channel: a });
    await h.slack.waitFor(() => reactions(h, a, ts).includes('white_check_mark'));
    const shown = (m: { blocks?: unknown }) => JSON.stringify(m.blocks ?? '').includes('Answer held by a 429');
    const refused = await h.slack.waitFor(() =>
      h.slack
        .callsTo('chat.postMessage')
        .slice(postsBefore)
        .find((c) => c.status === 429),
    );
    await h.slack.waitFor(() => conv.thread(b).some(shown));
    await queueDrained(h);
    expect(conv.thread(b).filter(shown)).toHaveLength(1);
    expect(conv.thread(a).filter(shown)).toHaveLength(0);
    expect(refused.args.channel).toBe(b);
  });

  it('keeps a reply the platform failed on (5xx) with ❌, the request id, and a Retry that sends it once', async () => {
    const conv = await openConversation(h);
    await conv.customer('Hi');
    const sessionId = conv.session();
    await conv.linkSession(sessionId);
    const channel = conv.channels[0]!;
    h.platform.inject({
      method: 'POST',
      path: `/campaign-chat/${conv.campaignId}/send-human-response`,
      status: 500,
      times: 1,
    });
    const ts = await conv.reply('Important answer');
    await h.slack.waitFor(() => reactions(h, channel, ts).includes('x'));
    const notice = await h.slack.waitFor(() => notices(conv.thread(), 'did not reach the customer')[0]);
    const text = JSON.stringify(notice.blocks);
    expect(text).toMatch(/request id req_\d+/);
    expect(findAction(notice.blocks, RETRY_ACTION)?.text?.text).toContain('Retry');
    expect(h.platform.state.humanResponses.filter((r) => r.sessionId === sessionId)).toHaveLength(0);

    const answered = h.slack.responses.length;
    await Promise.all([conv.press(notice.ts), conv.press(notice.ts)]);
    await h.slack.waitFor(() => reactions(h, channel, ts).includes('white_check_mark'));
    await secondPressTurnedAway(answered);
    expect(reactions(h, channel, ts)).toEqual(['white_check_mark']);
    expect(h.platform.state.humanResponses.filter((r) => r.sessionId === sessionId)).toEqual([
      { campaignId: conv.campaignId, sessionId, message: 'Important answer' },
    ]);
  });

  it('says the outcome is unknown when the connection breaks mid-request', async () => {
    const conv = await openConversation(h);
    await conv.customer('Hi');
    await conv.linkSession(conv.session());
    h.platform.inject({
      method: 'POST',
      path: `/campaign-chat/${conv.campaignId}/send-human-response`,
      reset: true,
      times: 1,
    });
    const ts = await conv.reply('Are you there?');
    await h.slack.waitFor(() => reactions(h, conv.channels[0]!, ts).includes('x'));
    const notice = await h.slack.waitFor(() => notices(conv.thread(), 'Retry')[0]);
    expect(JSON.stringify(notice.blocks)).toContain('can’t tell whether the customer got your reply');
  });

  it('notes in the thread that an edited or deleted sent reply is still the original for the customer', async () => {
    const conv = await openConversation(h);
    await conv.customer('Hi');
    await conv.linkSession(conv.session());
    const channel = conv.channels[0]!;
    const card = await conv.card();
    const ts = await conv.reply('See you at 9');
    await h.slack.waitFor(() => reactions(h, channel, ts).includes('white_check_mark'));
    const original = { type: 'message', user: MEMBER_ID, text: 'See you at 9', ts, thread_ts: card.ts };
    await h.signer.event({
      type: 'message',
      subtype: 'message_changed',
      hidden: true,
      channel,
      message: { ...original, text: 'See you at 10', edited: { user: MEMBER_ID, ts: h.slack.nextTs() } },
      previous_message: original,
    });
    await h.slack.waitFor(() => notices(conv.thread(), 'still has the original')[0]);
    await h.signer.event({
      type: 'message',
      subtype: 'message_deleted',
      hidden: true,
      channel,
      deleted_ts: ts,
      previous_message: original,
    });
    await h.slack.waitFor(() => notices(conv.thread(), 'still has it')[0]);
    expect(sends(h, conv.campaignId)).toHaveLength(1);
  });

  it('takes the session from the payload when the platform sends one', async () => {
    const conv = await openConversation(h);
    const sessionId = conv.session();
    await conv.customer('Hi there', { sessionId });
    const card = await conv.card();
    expect(JSON.stringify(card.blocks)).toContain(sessionId);
    await conv.waitThread(1);
    const ts = await conv.reply('Hello!');
    await h.slack.waitFor(() => reactions(h, conv.channels[0]!, ts).includes('white_check_mark'));
    expect(sends(h, conv.campaignId)[0]!.body).toEqual({ sessionId, message: 'Hello!' });
  });

  it('never writes message contents to the log at info level or above', async () => {
    const conv = await openConversation(h);
    const secret = `private-words-${uid()}`;
    await conv.customer(`customer says ${secret}`);
    await conv.linkSession(conv.session());
    const ts = await conv.reply(`agent says ${secret}`);
    await h.slack.waitFor(() => reactions(h, conv.channels[0]!, ts).includes('white_check_mark'));
    const leaks = h
      .logs()
      .split('\n')
      .filter((l) => l.includes(secret))
      .filter((l) => (JSON.parse(l) as { level: number }).level >= 30);
    expect(leaks).toEqual([]);
    expect(h.logs()).toMatch(/"agentName":"max".*handoff reply sent to the customer/);
  });
});
