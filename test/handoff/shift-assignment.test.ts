/**
 * Agents on shift and the assignment of new conversations, on both store backends: `/campaign shift on|off`
 * (full members only), `handoff-sla … assign:round-robin|least-busy` handing each new conversation's card to an
 * agent on shift (mentioned in its first post, owning it as by Claim), nobody on shift said on the card with the
 * channel's paging, and an agent going off shift handing their open conversations back. Asserted on what the
 * Slack stand-in received and accepted, and what is stored.
 */
import { describe, expect, it } from 'vitest';
import { CLAIM_ACTION, RESOLVE_ACTION, UNCLAIM_ACTION } from '../../src/handoff/card.js';
import { ADMIN_ID, MEMBER_ID, TEAM_ID, startHarness, storeOn, useHarness } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { FAST_WORKER, PUBLIC_URL, queueDrained, run } from '../events/support.js';
import { openConversation, uid, type Conversation } from './support.js';

const redis = await requireRedis();
/** The text of a command's answer, as the person reads it. */
const said = (answer: string) => String((JSON.parse(answer) as { text?: unknown }).text);

const AGENTS = ['U0AGENTA1', 'U0AGENTB2', 'U0AGENTC3'] as const;
const GUEST_ID = 'U0GUEST77';
const SUPPORT = '<!subteam^S0SUPPORT1|@support>';
const PAGE = '<!subteam^S0SUPPORT1>';

describe.each(['memory', 'redis'] as const)('agents on shift and assignment (%s store)', (backend) => {
  const h = useHarness(async () => {
    const started = await startHarness({
      ...storeOn(backend, redis, `${redis.prefix}shift-${backend}:`),
      env: { PUBLIC_URL },
      bot: { events: { worker: FAST_WORKER } },
      unlimitedSlackBecause: 'who gets each conversation, not pace: 30 cards in one channel',
    });
    for (const [i, id] of AGENTS.entries())
      started.slack.addUser({ id, name: `agent${i}`, real_name: `Agent ${'ABC'[i]}` });
    started.slack.addUser({ id: GUEST_ID, name: 'gina', real_name: 'Gina Guest', is_restricted: true });
    return started;
  });

  const store = () => h.bot.deps.store;
  /** Conversations in one channel (opened one by one: each adds its routes), then their first messages at once. */
  const arriving = async (channel: string, n: number, words = 'Hello?') => {
    const convs: Conversation[] = [];
    for (let i = 0; i < n; i++) convs.push(await openConversation(h, { in: [channel] }));
    await Promise.all(convs.map((c) => c.customer(words)));
    // 30 cards on a machine shared with other suites: more than the default 10 s to drain.
    await queueDrained(h, 45_000);
    return convs;
  };
  /** The open conversations `user` owns now, in any channel (earlier tests' included), and how many of them are in channels that assign. */
  const ownedBy = async (user: string) => {
    const owned = (await store().conversations.openThreads(TEAM_ID)).filter((t) => t.owner === user);
    let assigning = 0;
    for (const t of owned) if ((await store().handoffSla.get(TEAM_ID, t.channelId))?.assign) assigning++;
    return { total: owned.length, assigning };
  };
  const newChannel = () => `C0SH${uid().toUpperCase()}`;
  /** Puts the three agents on shift (and nobody else: the roster is per workspace and shared by the tests). */
  const onShift = async (...agents: string[]) => {
    for (const a of await store().shifts.onShift(TEAM_ID)) await store().shifts.end(TEAM_ID, a.user);
    for (const a of agents) expect((await run(h, 'shift on', { userId: a })).text).toContain('on shift');
  };
  /** The first message the bot posted for a conversation's card, as Slack received (and accepted) it. */
  const firstPost = async (conv: Conversation) => {
    const card = await conv.card();
    const call = h.slack
      .callsTo('chat.postMessage')
      .find((c) => c.response.ok && c.response.ts === card.ts && c.args.channel === conv.channels[0]);
    return { text: String(call?.args.text), blocks: JSON.stringify(call?.args.blocks) };
  };
  const ownerOf = async (conv: Conversation) => {
    const card = await conv.card();
    return (await store().conversations.findThread(TEAM_ID, conv.channels[0]!, card.ts))?.owner;
  };
  /** Those of `convs` that `agent` owns now, in their order. */
  const ownedAmong = async (convs: readonly Conversation[], agent: string) => {
    const owned: Conversation[] = [];
    for (const c of convs) if ((await ownerOf(c)) === agent) owned.push(c);
    return owned;
  };
  /** A new channel that assigns round robin, the first two agents on shift, and `n` customers arrived in it. */
  const assigningWith = async (n: number) => {
    await onShift(AGENTS[0], AGENTS[1]);
    const channel = newChannel();
    await run(h, 'handoff-sla 5 assign:round-robin', { channelId: channel });
    return arriving(channel, n, 'Hi');
  };
  it(
    'round-robin over 3 agents on shift: 30 new conversations → 10 each, each mentioned in its card’s first post',
    { timeout: 90_000 },
    async () => {
      await onShift(...AGENTS);
      const channel = newChannel();
      await run(h, 'handoff-sla 5 assign:round-robin', { channelId: channel, userId: ADMIN_ID });
      const convs = await arriving(channel, 30);

      const owners = await Promise.all(convs.map(ownerOf));
      const counts = Object.fromEntries(AGENTS.map((a) => [a, owners.filter((o) => o === a).length]));
      expect(counts).toEqual({ [AGENTS[0]]: 10, [AGENTS[1]]: 10, [AGENTS[2]]: 10 });
      for (const [i, conv] of convs.entries()) {
        const first = await firstPost(conv);
        // A real mention, leading the notification text: this post pages the agent.
        expect(first.text.startsWith(`<@${owners[i]}> Chat with`)).toBe(true);
        expect(first.blocks).toContain(`Assigned to <@${owners[i]}>`);
        expect(first.blocks).toContain(UNCLAIM_ACTION); // owned, as by Claim: the card offers Unclaim
      }
    },
  );

  it('least-busy picks the agent on shift who owns the fewest open conversations', async () => {
    await onShift(...AGENTS);
    // Claimed by hand in a channel that does not assign: A owns two, B one, C none (a resolved one not counted).
    const manual = newChannel();
    const claimed: Array<[string, Conversation]> = [];
    for (const who of [AGENTS[0], AGENTS[0], AGENTS[1], AGENTS[2]]) {
      const conv = await openConversation(h, { in: [manual] });
      await conv.customer('Hi');
      await conv.waitThread(1);
      await conv.pressCard(CLAIM_ACTION, { userId: who });
      await conv.waitCard((t) => t.includes(`Owner*\\n<@${who}>`) || t.includes(`<@${who}>`));
      claimed.push([who, conv]);
    }
    await claimed[3]![1].pressCard(RESOLVE_ACTION, { userId: AGENTS[2] });
    await claimed[3]![1].waitCard((t) => t.includes('Resolved by'));

    const channel = newChannel();
    await run(h, 'handoff-sla 5 assign:least-busy', { channelId: channel, userId: ADMIN_ID });
    const next = await openConversation(h, { in: [channel] });
    await next.customer('Anyone free?');
    await next.waitThread(1);
    expect(await ownerOf(next)).toBe(AGENTS[2]);
    expect((await firstPost(next)).blocks).toContain(`Assigned to <@${AGENTS[2]}>`);
    // Now B and C own one each, A two: the next goes to B or C, never A.
    const after = await openConversation(h, { in: [channel] });
    await after.customer('Me too');
    await after.waitThread(1);
    expect([AGENTS[1], AGENTS[2]]).toContain(await ownerOf(after));
  });

  it('with page:late, an assigned chat pages only its agent as it arrives, as the confirmation says', async () => {
    await onShift(AGENTS[2]);
    const channel = newChannel();
    const answer = (await run(h, `handoff-sla 5 ${SUPPORT} page:late assign:least-busy`, { channelId: channel })).text;
    expect(answer).toContain(
      'Paged as a chat arrives: the agent on shift it is assigned to, the one with the fewest open conversations (`assign:least-busy`) — with nobody on shift, nobody, and the card says so (`page:late`).',
    );
    const conv = await openConversation(h, { in: [channel] });
    await conv.customer('Hi, anyone?');
    const first = await firstPost(conv);
    expect(first.text.startsWith(`<@${AGENTS[2]}> Chat with`)).toBe(true);
    expect(first.text + first.blocks).not.toContain('subteam');
  });

  it('pages the group and the assigned agent as a chat arrives; with nobody on shift the card says so and the group is paged', async () => {
    await onShift(AGENTS[1]);
    const channel = newChannel();
    const answer = (await run(h, `handoff-sla 5 ${SUPPORT} assign:round-robin`, { channelId: channel })).text;
    expect(said(answer)).toBe(
      `✅ In <#${channel}>, a customer waiting more than 5 min for an answer now gets one nudge in the thread. ` +
        'Paged as a chat arrives: `@support` and the agent on shift it is assigned to, in turn (`assign:round-robin`)' +
        ' — with nobody on shift, `@support` alone, and the card says so (`page:both`). ' +
        'Paged when it is late: the conversation’s owner, or `@support` while nobody claimed it (`page:both`).' +
        ' `/campaign shift` shows who is on shift.',
    );
    expect((await store().handoffSla.get(TEAM_ID, channel))?.assign).toBe('round-robin');
    const conv = await openConversation(h, { in: [channel] });
    await conv.customer('Hello, my order is late');
    const first = await firstPost(conv);
    // One notification pages both: the agent it was handed to and the group, as the confirmation said.
    expect(first.text.startsWith(`<@${AGENTS[1]}> ${PAGE} Chat with`)).toBe(true);
    expect(first.blocks).toContain(`👤 Assigned to <@${AGENTS[1]}>`);
    expect(first.blocks).toContain(`📣 ${PAGE} a new chat arrived.`);

    // Minutes alone keep the assignment; nobody on shift: unassigned, and the channel's paging applies.
    await run(h, 'handoff-sla 10', { channelId: channel });
    expect((await store().handoffSla.get(TEAM_ID, channel))?.assign).toBe('round-robin');
    expect((await run(h, 'shift off', { userId: AGENTS[1] })).text).toContain('You are off shift');
    const alone = await openConversation(h, { in: [channel] });
    await alone.customer('Hello?');
    const unassigned = await firstPost(alone);
    expect(unassigned.blocks).toContain('Unassigned — nobody is on shift');
    expect(unassigned.text.startsWith(`${PAGE} Chat with`)).toBe(true);
    expect(await ownerOf(alone)).toBeUndefined();
    // Claimed by hand, then let go: "nobody is on shift" no longer describes it.
    await alone.waitThread(1);
    await alone.pressCard(CLAIM_ACTION, { userId: MEMBER_ID });
    await alone.waitCard((t) => t.includes(UNCLAIM_ACTION) && !t.includes('nobody is on shift'));
    await alone.pressCard(UNCLAIM_ACTION, { userId: MEMBER_ID, value: MEMBER_ID });
    const released = await alone.waitCard((t) => t.includes(CLAIM_ACTION) && !t.includes(UNCLAIM_ACTION));
    expect(released).not.toContain('nobody is on shift');

    // A bad value changes nothing; assign:off removes it.
    expect((await run(h, 'handoff-sla 10 assign:sometimes', { channelId: channel })).text).toContain(
      '`assign:` takes `round-robin`',
    );
    await run(h, 'handoff-sla 10 assign:off', { channelId: channel });
    expect((await store().handoffSla.get(TEAM_ID, channel))?.assign).toBeUndefined();
  });

  it('an agent going off shift hands their open conversations back: reassigned where others are on shift, else unassigned', async () => {
    const convs = await assigningWith(4);
    const mine = await ownedAmong(convs, AGENTS[0]);
    expect(mine).toHaveLength(2);
    // One of A's is resolved: it stays A's, off the pool.
    await mine[1]!.pressCard(RESOLVE_ACTION, { userId: AGENTS[0] });
    await mine[1]!.waitCard((t) => t.includes('Resolved by'));

    // Every open conversation A owns goes back: in channels that assign, to B (the only one left on shift).
    const a = await ownedBy(AGENTS[0]);
    expect(a.assigning).toBeGreaterThanOrEqual(1);
    const off = (await run(h, 'shift off', { userId: AGENTS[0] })).text;
    expect(off).toContain(
      `Your ${a.total} open conversation${a.total === 1 ? '' : 's'} went back to the pool: ${a.assigning} handed to agents on shift`,
    );
    expect((await ownedBy(AGENTS[0])).total).toBe(0);
    expect(await ownerOf(mine[0]!)).toBe(AGENTS[1]);
    // Cards and lines go at their channel's pace, on the road: looked at once Slack shows them.
    await mine[0]!.waitCard((t) => t.includes(`Assigned to <@${AGENTS[1]}>`));
    // The new owner is mentioned in the thread, so they hear of it.
    const line = (await mine[0]!.waitThread(2)).find((m) => JSON.stringify(m.blocks).includes('went off shift'));
    expect(line?.text?.startsWith(`<@${AGENTS[1]}>`)).toBe(true);
    expect(await ownerOf(mine[1]!)).toBe(AGENTS[0]);

    // The last agent on shift leaves: their open ones are unassigned, for anyone to claim.
    const bs = await ownedAmong(convs, AGENTS[1]);
    const b = await ownedBy(AGENTS[1]);
    expect((await run(h, 'shift off', { userId: AGENTS[1] })).text).toContain(
      `went back to the pool: ${b.total} unclaimed, for anyone to claim`,
    );
    for (const c of bs) {
      expect(await ownerOf(c)).toBeUndefined();
      const card = await c.waitCard((t) => t.includes('Unassigned — nobody is on shift'));
      expect(card).toContain(CLAIM_ACTION);
    }
  });

  it('going off shift while Slack answers 429: the new owner’s mention waits out Retry-After and shows once', async () => {
    const mine = await ownedAmong(await assigningWith(2), AGENTS[0]);
    expect(mine.length).toBeGreaterThanOrEqual(1);
    const refusedBefore = h.slack.callsTo('chat.postMessage').filter((c) => c.status === 429).length;
    h.slack.rateLimit({ method: 'chat.postMessage', retryAfterSec: 1, times: 1 });
    await run(h, 'shift off', { userId: AGENTS[0] });
    const mentions = (conv: Conversation) =>
      h.slack
        .messages(conv.channels[0])
        .filter((m) => m.thread_ts !== undefined && JSON.stringify(m.blocks ?? []).includes('went off shift'));
    for (const conv of mine) {
      await h.slack.waitFor(() => mentions(conv).length > 0);
      await conv.waitCard((t) => t.includes(`Assigned to <@${AGENTS[1]}>`));
    }
    await queueDrained(h, 10_000);
    // Slack refused one post; it was waited out, not dropped, and nothing shows twice.
    expect(h.slack.callsTo('chat.postMessage').filter((c) => c.status === 429).length).toBe(refusedBefore + 1);
    expect(mine.map((conv) => mentions(conv).length)).toEqual(mine.map(() => 1));
  });

  it('shows who is on shift (the command, /campaign handoffs, App Home) and refuses guests in one sentence', async () => {
    await onShift(AGENTS[0]);
    expect((await run(h, 'shift', { userId: MEMBER_ID })).text).toContain(`On shift now (1): <@${AGENTS[0]}>`);
    expect((await run(h, 'shift on', { userId: AGENTS[0] })).text).toContain('already on shift');
    expect((await run(h, 'shift off', { userId: MEMBER_ID })).text).toContain('You are not on shift');
    expect((await run(h, 'handoffs', { userId: MEMBER_ID })).text).toContain(`<@${AGENTS[0]}>`);

    const before = h.slack.callsTo('views.publish').length;
    await h.signer.event({ type: 'app_home_opened', user: AGENTS[0], tab: 'home', channel: 'D0HOME0003' });
    const publish = await h.slack.waitFor(() => h.slack.callsTo('views.publish')[before]);
    expect(publish.response.ok).toBe(true);
    expect(JSON.stringify(publish.args.view)).toContain(`On shift now (1): <@${AGENTS[0]}> (you too`);

    const refused = (await run(h, 'shift on', { userId: GUEST_ID })).text;
    expect(refused).toContain('Only full members of this workspace can go on shift');
    expect(refused).not.toContain('customer details');
    expect((await store().shifts.onShift(TEAM_ID)).map((a) => a.user)).toEqual([AGENTS[0]]);
    expect((await run(h, 'help')).text).toContain('shift [on|off]');
  });
});
