/**
 * Support agents at work on handoff threads, on both store backends, with a fake clock: claiming a conversation
 * (Claim / Unclaim / Take over on the card, members only), how long the customer has waited (shown on the card,
 * cleared by an answer that reached the customer), one SLA nudge per waiting period — on one replica, after a
 * restart — `/campaign handoffs` and `/campaign handoff-sla`, and App Home's "my open conversations".
 */
import { describe, expect, it } from 'vitest';
import { CLAIM_ACTION, TAKE_OVER_ACTION, UNCLAIM_ACTION } from '../../src/handoff/card.js';
import { SLA_TIMER, slaTimerId } from '../../src/handoff/waiting.js';
import { findAction } from '../support/blocks.js';
import { ADMIN_ID, MEMBER_ID, TEAM_ID, startHarness, type Harness, storeOn, useHarness } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { waitFor } from '../support/wait.js';
import { FAST_WORKER, PUBLIC_URL, fireTimers, posts, queueDrained, run } from '../events/support.js';
import { openConversation, reactions, type Conversation } from './support.js';

const redis = await requireRedis();

const GUEST_ID = 'U0GUEST001';
const OTHER_ID = 'U0OTHER001';
const SUPPORT_GROUP = 'S0SUPPORT1';
/** HANDOFF_SLA_S of these bots: two minutes. */
const DEFAULT_SLA_S = 120;
const START = Date.UTC(2025, 0, 6, 15, 0, 0);

describe.each(['memory', 'redis'] as const)('support agents (%s store)', (backend) => {
  let now = START;
  const keyPrefix = `${redis.prefix}agents-${backend}:`;
  const start = (fakes?: Pick<Harness, 'slack' | 'platform'>) =>
    startHarness({
      ...storeOn(backend, redis, keyPrefix),
      env: { PUBLIC_URL, HANDOFF_SLA_S: String(DEFAULT_SLA_S) },
      bot: { events: { worker: FAST_WORKER }, now: () => now },
      unlimitedSlackBecause:
        'claims, waiting times and nudges, not pace: many card updates and thread lines in one channel (pacing: test/events/pacing.test.ts)',
      ...(fakes ? { fakes } : {}),
    });
  const h = useHarness(async () => {
    const started = await start();
    started.slack.addUser({ id: GUEST_ID, name: 'gus', real_name: 'Gus Guest', is_restricted: true });
    started.slack.addUser({ id: OTHER_ID, name: 'olga', real_name: 'Olga Other' });
    return started;
  });

  const channelOf = (conv: Conversation) => conv.channels[0]!;
  const ephemeral = (text: string) =>
    h.slack.waitFor(() => h.slack.responses.find((r) => JSON.stringify(r.body).includes(text)));
  const nudges = (conv: Conversation) =>
    conv.thread().filter((m) => m.bot_id !== undefined && JSON.stringify(m.blocks).includes('⏰'));
  const ownerOf = async (conv: Conversation) =>
    (await h.bot.deps.store.conversations.findThread(TEAM_ID, channelOf(conv), (await conv.card()).ts))?.owner;
  /** Moves the fake clock, runs one tick of the store-kept timers and waits for what they left to be posted. */
  const advance = async (ms: number) => {
    now += ms;
    await fireTimers(h);
  };
  const waitingSinceOnCard = (at: number) => `<!date^${Math.floor(at / 1000)}^{time}|`;

  it('lets a member claim a conversation and unclaim it with the card’s one ownership button; anyone else pressing it is offered Take over, privately', async () => {
    const conv = await openConversation(h);
    const channel = channelOf(conv);
    await conv.customer('Hello, anyone?');
    await conv.waitThread(1);
    expect(await conv.cardText()).toContain('_unclaimed_');
    expect(await conv.cardText()).toContain(CLAIM_ACTION);

    // Claimed: the card shows the owner and one ownership button, Unclaim — never Take over, which its owner
    // would see too (Slack shows one card to everyone). The thread says nothing: the card shows it.
    await conv.pressCard(CLAIM_ACTION, { userId: MEMBER_ID });
    const claimed = await conv.waitCard((t) => t.includes(`<@${MEMBER_ID}>`));
    expect(claimed).toContain('*Owner*');
    expect(claimed).toContain(UNCLAIM_ACTION);
    expect(claimed).not.toContain(TAKE_OVER_ACTION);
    expect(claimed).not.toContain(CLAIM_ACTION + '"');

    // Someone else's press unclaims nothing: they alone are offered Take over.
    await conv.pressCard(UNCLAIM_ACTION, { userId: ADMIN_ID, value: MEMBER_ID });
    const offer = await h.slack.waitFor(() =>
      h.slack
        .ephemerals(channel)
        .find((e) => e.user === ADMIN_ID && JSON.stringify(e.blocks).includes(TAKE_OVER_ACTION)),
    );
    expect(JSON.stringify(offer.blocks)).toContain(
      `<@${MEMBER_ID}> owns this conversation, so only they can unclaim it`,
    );
    expect(await ownerOf(conv)).toBe(MEMBER_ID);
    const takeOver = (userId: string, value: string, ts = offer.ts) =>
      h.signer.blockAction({
        actionId: TAKE_OVER_ACTION,
        channelId: channel,
        messageTs: ts,
        userId,
        value,
        ephemeral: true,
      });
    const offered = findAction(offer.blocks, TAKE_OVER_ACTION)?.value ?? '';
    expect((await takeOver(ADMIN_ID, offered)).status).toBe(200);
    await conv.waitCard((t) => t.includes(`<@${ADMIN_ID}>`) && !t.includes(`<@${MEMBER_ID}>`));
    // The previous owner is named in the thread (so they hear of it), in one short line; the offer is gone.
    await h.slack.waitFor(() =>
      conv
        .thread()
        .find((m) =>
          JSON.stringify(m.blocks).includes(`<@${ADMIN_ID}> took this conversation over from <@${MEMBER_ID}>`),
        ),
    );
    await h.slack.waitFor(() => !h.slack.ephemerals(channel).some((e) => e.ts === offer.ts) || undefined);

    // A Take over offered while the card showed an older owner changes nothing.
    expect((await takeOver(OTHER_ID, offered)).status).toBe(200);
    await ephemeral(`the card was out of date — <@${ADMIN_ID}> owns this conversation now`);
    expect(await ownerOf(conv)).toBe(ADMIN_ID);

    // The owner's press unclaims.
    await conv.pressCard(UNCLAIM_ACTION, { userId: ADMIN_ID, value: ADMIN_ID });
    await conv.waitCard((t) => t.includes('_unclaimed_'));
    expect(await ownerOf(conv)).toBeUndefined();
    await conv.pressCard(CLAIM_ACTION, { userId: OTHER_ID });
    await conv.waitCard((t) => t.includes(`<@${OTHER_ID}>`));
    // Of all that, the thread holds the customer's line and the one take-over line.
    expect(conv.thread().filter((m) => m.bot_id !== undefined)).toHaveLength(2);
  });

  it('gives one owner when two press Claim at once, and refuses a guest with a sentence', async () => {
    const conv = await openConversation(h);
    await conv.customer('Hi');
    await conv.waitThread(1);
    await conv.pressCard(CLAIM_ACTION, { userId: GUEST_ID });
    await ephemeral('You can’t own this conversation: only full members of this workspace can answer customers');
    expect(await ownerOf(conv)).toBeUndefined();

    await Promise.all([
      conv.pressCard(CLAIM_ACTION, { userId: MEMBER_ID }),
      conv.pressCard(CLAIM_ACTION, { userId: OTHER_ID }),
    ]);
    const card = await conv.waitCard((t) => t.includes(UNCLAIM_ACTION));
    const owner = [MEMBER_ID, OTHER_ID].find((id) => card.includes(`<@${id}>`));
    expect(await ownerOf(conv)).toBe(owner);
    const loser = owner === MEMBER_ID ? OTHER_ID : MEMBER_ID;
    await ephemeral(`<@${owner}> owns this conversation now`);
    await conv.waitCard((t) => t.includes(`<@${owner}>`));
    expect(await conv.cardText()).not.toContain(`<@${loser}>`);
  });

  it('shows since when the customer waits; a reply sent from Slack or the platform’s own answer clears it, a note does not', async () => {
    const conv = await openConversation(h);
    const firstAt = now;
    await conv.customer('Where is my order?');
    await conv.waitCard((t) => t.includes(waitingSinceOnCard(firstAt)));
    expect(await conv.cardText()).toContain('waiting since');
    // A second message while waiting keeps the first one's time.
    now += 30_000;
    await conv.customer('Hello??');
    await conv.waitThread(2);
    await queueDrained(h); // the message is handled, the card updated if it was going to be
    expect(await conv.cardText()).toContain(waitingSinceOnCard(firstAt));

    const sessionId = conv.session();
    await conv.linkSession(sessionId);
    const note = await conv.reply('note: checking the warehouse');
    await h.slackRequestDone((b) => b.event?.ts === note, 'the note');
    expect(await conv.cardText()).toContain('waiting since');

    const ts = await conv.reply('It ships today.', { userId: OTHER_ID });
    await h.slack.waitFor(() => reactions(h, channelOf(conv), ts).includes('white_check_mark'));
    const answered = await conv.waitCard((t) => !t.includes('waiting since'));
    expect(answered).toContain(`*Last answered by*\\n<@${OTHER_ID}>`);
    expect(
      await h.bot.deps.store.timers.dueAt(SLA_TIMER, slaTimerId(TEAM_ID, channelOf(conv), (await conv.card()).ts)),
    ).toBeUndefined();

    // A new waiting period; the platform's agent (AI or a human there) answers it.
    now += 60_000;
    const secondAt = now;
    await conv.customer('Thanks! And the invoice?');
    await conv.waitCard((t) => t.includes(waitingSinceOnCard(secondAt)));
    await conv.agent('The invoice is in your email.');
    const byPlatform = await conv.waitCard((t) => !t.includes('waiting since'));
    expect(byPlatform).toContain('🤖 Sam (on the platform)');
  });

  it('nudges once per waiting period: the channel’s user group while unclaimed, the owner once claimed; the card turns overdue', async () => {
    const conv = await openConversation(h);
    const channel = channelOf(conv);
    await run(h, `handoff-sla 10 <!subteam^${SUPPORT_GROUP}|@support>`, { channelId: channel, userId: ADMIN_ID });
    await conv.customer('Is anybody there?');
    await conv.waitCard((t) => t.includes('waiting since'));

    await advance(9 * 60_000);
    expect(nudges(conv)).toEqual([]);
    await advance(61_000);
    const [nudge] = await h.slack.waitFor(() => (nudges(conv).length > 0 ? nudges(conv) : undefined));
    expect(JSON.stringify(nudge!.blocks)).toContain(`<!subteam^${SUPPORT_GROUP}> nobody has claimed this conversation`);
    expect(JSON.stringify(nudge!.blocks)).toContain('waiting 10 min');
    expect(nudge!.text).toContain(`<!subteam^${SUPPORT_GROUP}>`);
    const overdue = await conv.waitCard((t) => t.includes('Overdue'));
    expect(overdue).toContain('🔴');

    // More customer messages and time in the same waiting period: no second nudge.
    await conv.customer('Hello???');
    await conv.waitThread(3);
    await advance(30 * 60_000);
    await advance(60_000);
    expect(nudges(conv)).toHaveLength(1);

    // Claimed and answered; the next message starts a new period, and its nudge names the owner.
    await conv.pressCard(CLAIM_ACTION, { userId: MEMBER_ID });
    await conv.waitCard((t) => t.includes(`<@${MEMBER_ID}>`));
    await conv.agent('Sorry for the wait — on it now.');
    await conv.waitCard((t) => !t.includes('Overdue') && !t.includes('waiting since'));
    await conv.customer('Great, thanks');
    await conv.waitCard((t) => t.includes('waiting since'));
    await advance(10 * 60_000 + 1_000);
    const second = await h.slack.waitFor(() => (nudges(conv).length > 1 ? nudges(conv)[1] : undefined));
    expect(JSON.stringify(second.blocks)).toContain(`⏰ <@${MEMBER_ID}>`);
    expect(JSON.stringify(second.blocks)).not.toContain('subteam');
  });

  it('uses HANDOFF_SLA_S where the channel has no setting, and mentions nobody when unclaimed', async () => {
    const conv = await openConversation(h);
    await conv.customer('Hi there');
    await conv.waitCard((t) => t.includes('waiting since'));
    await advance((DEFAULT_SLA_S - 1) * 1000);
    expect(nudges(conv)).toEqual([]);
    await advance(2_000);
    const [nudge] = await h.slack.waitFor(() => (nudges(conv).length > 0 ? nudges(conv) : undefined));
    const text = JSON.stringify(nudge!.blocks);
    expect(text).toContain('Nobody has claimed this conversation');
    expect(text).toContain('/campaign handoff-sla');
    expect(text).not.toContain('<!subteam');
  });

  it('holds the nudge while the channel is paused (the bot was removed), and posts it once the channel takes posts again', async () => {
    const conv = await openConversation(h);
    const channel = channelOf(conv);
    await conv.customer('Hi');
    await conv.waitCard((t) => t.includes('waiting since'));
    const timer = slaTimerId(TEAM_ID, channel, (await conv.card()).ts);
    h.slack.addChannel({ id: channel, is_member: false });
    h.slack.expectRefusal('chat.postMessage', 'not_in_channel');
    now += (DEFAULT_SLA_S + 1) * 1000;
    await h.bot.deps.timers.runDue();
    expect(await h.bot.deps.store.timers.dueAt(SLA_TIMER, timer)).toBeUndefined();
    // Slack refused it: the channel is paused and the nudge waits in its outbox, passed by until the next probe.
    const at = { teamId: TEAM_ID, channelId: channel };
    await waitFor(
      async () =>
        (await h.bot.deps.store.channelPauses.get(TEAM_ID, channel))?.reason === 'not_in_channel' &&
        (await h.bot.deps.store.outbox.size(at)) === 1 &&
        !(await h.bot.deps.store.outbox.due(Date.now(), 100)).some((c) => c.channelId === channel),
      'the channel paused with the nudge waiting',
    );
    expect(nudges(conv)).toEqual([]);
    // Invited back, and resumed (`/campaign failed` › Resume): the nudge goes out, once, and the card turns overdue.
    h.slack.addChannel({ id: channel, is_member: true });
    await h.bot.deps.store.channelPauses.resume(TEAM_ID, channel);
    await queueDrained(h);
    expect(nudges(conv)).toHaveLength(1);
    expect(await conv.waitCard((t) => t.includes('Overdue'))).toContain('Overdue');
  });

  it('lists the open conversations of the channels the user is in, longest wait first, with owner, wait and thread link', async () => {
    const older = await openConversation(h);
    const newer = await openConversation(h);
    const elsewhere = await openConversation(h);
    // `older` and `newer` in one channel the user is in: reroute `newer` there.
    const shared = channelOf(older);
    h.slack.addChannel({ id: shared, members: [OTHER_ID] });
    h.slack.addChannel({ id: channelOf(elsewhere), members: [MEMBER_ID] });
    await h.bot.deps.store.routes.add({
      teamId: TEAM_ID,
      campaignId: newer.campaignId,
      triggerName: 'message_received',
      channelId: shared,
    });
    await h.bot.deps.store.routes.remove({
      teamId: TEAM_ID,
      campaignId: newer.campaignId,
      triggerName: 'message_received',
      channelId: channelOf(newer),
    });
    const olderAt = now;
    await older.customer('First in line');
    await older.waitCard((t) => t.includes(waitingSinceOnCard(olderAt)));
    now += 5 * 60_000;
    await newer.customer('Second in line');
    await elsewhere.customer('In a channel the user is not in');
    await h.slack.waitFor(() => posts(h, shared).length >= 2 || undefined);
    await elsewhere.waitThread(1);
    await older.pressCard(CLAIM_ACTION, { userId: OTHER_ID });
    await older.waitCard((t) => t.includes(`<@${OTHER_ID}>`));
    now += 60_000;

    const answer = await run(h, 'handoffs', { userId: OTHER_ID, channelId: shared });
    const text = answer.text;
    expect(text).toContain('Open handoff conversations');
    expect(text).not.toContain(elsewhere.customerNumber);
    const first = text.indexOf(older.customerNumber);
    const second = text.indexOf(newer.customerNumber);
    expect(first).toBeGreaterThan(0);
    expect(second).toBeGreaterThan(first);
    expect(text).toContain(`<@${OTHER_ID}> · ⏳ waiting ${Math.floor((now - olderAt) / 60_000)} min`);
    expect(text).toContain('_unclaimed_ · ⏳ waiting 1 min');
    expect(text).toContain(`slack.com/archives/${shared}/p${(await older.card()).ts.replace('.', '')}|open thread>`);
    expect(h.slack.callsTo('users.conversations').at(-1)?.args).toMatchObject({
      user: OTHER_ID,
      types: 'public_channel,private_channel',
    });
    expect(answer.body).toMatchObject({ response_type: 'ephemeral' });

    // App Home: the conversations this user claimed.
    const before = h.slack.callsTo('views.publish').length;
    await h.signer.event({ type: 'app_home_opened', user: OTHER_ID, tab: 'home', channel: 'D0HOME0001' });
    const publish = await h.slack.waitFor(() => h.slack.callsTo('views.publish')[before]);
    expect(publish.response.ok).toBe(true);
    const home = JSON.stringify(publish.args.view);
    expect(home).toContain('My open conversations');
    expect(home).toContain(older.customerNumber);
    expect(home).not.toContain(newer.customerNumber);
  });

  it('sets, shows and checks a channel’s handoff SLA (admins only)', async () => {
    const channel = 'C0SLASET01';
    expect((await run(h, 'handoff-sla', { channelId: channel })).text).toContain(`more than ${DEFAULT_SLA_S / 60} min`);
    expect((await run(h, 'handoff-sla 15', { channelId: channel, userId: MEMBER_ID })).text).toContain(
      'Only Slack workspace admins',
    );
    expect((await run(h, 'handoff-sla soon', { channelId: channel })).text).toContain('whole number from 1 to');
    expect((await run(h, 'handoff-sla 15 @support', { channelId: channel })).text).toContain(
      'Mention a Slack user group',
    );
    expect(
      (await run(h, `handoff-sla 15 <!subteam^${SUPPORT_GROUP}|@support>`, { channelId: channel })).text,
    ).toContain(`more than 15 min`);
    expect(await h.bot.deps.store.handoffSla.get(TEAM_ID, channel)).toEqual({
      slaS: 900,
      userGroup: SUPPORT_GROUP,
      userGroupName: '@support',
      page: 'both',
    });
    // Minutes alone keep the group and when it is paged; `none` drops it.
    await run(h, `handoff-sla 15 <!subteam^${SUPPORT_GROUP}|@support> page:late`, { channelId: channel });
    await run(h, 'handoff-sla 20', { channelId: channel });
    expect(await h.bot.deps.store.handoffSla.get(TEAM_ID, channel)).toEqual({
      slaS: 1200,
      userGroup: SUPPORT_GROUP,
      userGroupName: '@support',
      page: 'late',
    });
    await run(h, 'handoff-sla 20 none', { channelId: channel });
    expect(await h.bot.deps.store.handoffSla.get(TEAM_ID, channel)).toEqual({ slaS: 1200 });
  });

  if (backend === 'redis') {
    it('nudges once across replicas, and after a restart', async () => {
      const conv = await openConversation(h);
      await conv.customer('Still there?');
      await conv.waitCard((t) => t.includes('waiting since'));
      // A second replica on the same Redis, then both tick at once past the SLA.
      const replica = await start(h);
      try {
        now += (DEFAULT_SLA_S + 1) * 1000;
        await Promise.all([h.bot.deps.timers.runDue(), replica.bot.deps.timers.runDue()]);
        // What the ticks left in the channel's outbox is posted (or given up) by then.
        await queueDrained(h);
        expect(nudges(conv)).toHaveLength(1);
      } finally {
        await replica.close();
      }

      // A wait that starts before a restart is nudged by the restarted bot.
      const later = await openConversation(h);
      await later.customer('Hello after hours');
      await later.waitCard((t) => t.includes('waiting since'));
      const restarted = await start(h);
      try {
        await h.bot.deps.timers.stop();
        now += (DEFAULT_SLA_S + 1) * 1000;
        await restarted.bot.deps.timers.runDue();
        await h.slack.waitFor(() => (nudges(later).length > 0 ? true : undefined));
        expect(await later.waitCard((t) => t.includes('Overdue'))).toContain('Overdue');
      } finally {
        await restarted.close();
      }
    });
  }
});
