/**
 * A new handoff conversation as the support channel sees it, on both store backends: its card pages the channel's
 * user group as it arrives (`/campaign handoff-sla 5 @support`, `page:new|late|both`), shows what the customer
 * wrote last — escaped, never a live mention or link — and how long they have waited, and follows the customer's
 * next words; `subscribe` of chat messages tells the admin how to page the team. Asserted on what the Slack
 * stand-in received and holds.
 */
import { describe, expect, it } from 'vitest';
import { ADMIN_ID, TEAM_ID, startHarness, storeOn, useHarness } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { FAST_WORKER, PUBLIC_URL, queueDrained, run } from '../events/support.js';
import { openConversation, type Conversation } from './support.js';

const redis = await requireRedis();
/** The text of a command's answer, as the person reads it. */
const said = (answer: string) => String((JSON.parse(answer) as { text?: unknown }).text);

const SUPPORT = '<!subteam^S0SUPPORT1|@support>';
const PAGE = '<!subteam^S0SUPPORT1>';
/** What pages someone in Slack's markup, or links: a user group, a person, the channel, a link. */
const LIVE = /<!subteam\^|<@|<!here|<!channel|<https?:/;
const START = Date.UTC(2025, 0, 6, 15, 0, 0);

describe.each(['memory', 'redis'] as const)('a new conversation (%s store)', (backend) => {
  let now = START;
  const h = useHarness(() =>
    startHarness({
      ...storeOn(backend, redis, `${redis.prefix}new-conv-${backend}:`),
      env: { PUBLIC_URL, HANDOFF_SLA_S: '120' },
      bot: { events: { worker: FAST_WORKER }, now: () => now },
      unlimitedSlackBecause: 'what the card says and whom it pages, not pace: card updates and lines in one channel',
    }),
  );
  const channelOf = (conv: Conversation) => conv.channels[0]!;
  /** The first message the bot posted in the channel, as Slack received it (the card before any update). */
  const firstPost = async (conv: Conversation) => {
    await conv.card();
    const call = h.slack.callsTo('chat.postMessage').find((c) => c.args.channel === channelOf(conv));
    return { text: String(call?.args.text), blocks: JSON.stringify(call?.args.blocks) };
  };
  const nudges = (conv: Conversation) =>
    conv.thread().filter((m) => m.bot_id !== undefined && JSON.stringify(m.blocks).includes('⏰'));

  it('pages the channel’s user group with the first post of a new conversation; the setting is shown by name', async () => {
    const conv = await openConversation(h);
    const answer = (await run(h, `handoff-sla 5 ${SUPPORT}`, { channelId: channelOf(conv) })).text;
    expect(said(answer)).toBe(
      `✅ In <#${channelOf(conv)}>, a customer waiting more than 5 min for an answer now gets one nudge in the thread. ` +
        'Paged as a chat arrives: `@support` (`page:both`). ' +
        'Paged when it is late: the conversation’s owner, or `@support` while nobody claimed it (`page:both`).',
    );
    expect(answer).not.toMatch(LIVE);
    expect(await h.bot.deps.store.handoffSla.get(TEAM_ID, channelOf(conv))).toEqual({
      slaS: 300,
      userGroup: 'S0SUPPORT1',
      userGroupName: '@support',
      page: 'both',
    });

    await conv.customer('Hello, is anyone there?');
    const first = await firstPost(conv);
    // The notification reaches the group: its mention leads the text, and the card says why.
    expect(first.text.startsWith(`${PAGE} Chat with`)).toBe(true);
    expect(first.blocks).toContain(`📣 ${PAGE} a new chat arrived`);
    // The card keeps naming whom it paged as it is updated.
    expect(await conv.waitCard((t) => t.includes('waiting since'))).toContain(PAGE);
    // The thread's lines page nobody.
    await conv.customer('Still waiting');
    await conv.waitThread(2);
    expect(JSON.stringify(conv.thread())).not.toContain('subteam');
  });

  it('pages nobody on arrival with page:late, and only on arrival with page:new', async () => {
    const late = await openConversation(h);
    const answer = (await run(h, `handoff-sla 5 ${SUPPORT} page:late`, { channelId: channelOf(late) })).text;
    expect(answer).toContain('Paged as a chat arrives: nobody (`page:late`).');
    expect(answer).toContain('Paged when it is late: the conversation’s owner, or `@support` while nobody claimed it');
    expect(answer).not.toMatch(LIVE);
    await late.customer('Hi, quick question');
    await late.waitThread(1);
    const first = await firstPost(late);
    expect(first.text).not.toContain('subteam');
    expect(first.blocks).not.toContain('subteam');

    // page:new: the arrival pages the group, the late nudge does not (and suggests no group either).
    const early = await openConversation(h);
    const onlyNew = (await run(h, `handoff-sla 5 ${SUPPORT} page:new`, { channelId: channelOf(early) })).text;
    expect(onlyNew).toContain('Paged as a chat arrives: `@support` (`page:new`).');
    expect(onlyNew).toContain('Paged when it is late: the conversation’s owner, or nobody while it is unclaimed');
    await early.customer('Hi there');
    expect((await firstPost(early)).text.startsWith(PAGE)).toBe(true);
    await early.waitCard((t) => t.includes('waiting since'));
    now += 5 * 60_000 + 1_000;
    await h.bot.deps.timers.runDue();
    const [nudge] = await h.slack.waitFor(() => (nudges(early).length > 0 ? nudges(early) : undefined));
    await queueDrained(h); // its card marked overdue too
    expect(JSON.stringify(nudge)).not.toContain('subteam');
    expect(JSON.stringify(nudge)).not.toContain('/campaign handoff-sla');

    // Refused without a group, or with another word: nothing changes.
    const bare = (await run(h, 'handoff-sla 5 none page:new', { channelId: channelOf(early) })).text;
    expect(bare).toContain('this channel has none');
    const odd = (await run(h, `handoff-sla 5 ${SUPPORT} page:sometimes`, { channelId: channelOf(early) })).text;
    expect(odd).toContain('`page:` takes `new`');
    expect((await h.bot.deps.store.handoffSla.get(TEAM_ID, channelOf(early)))?.page).toBe('new');
  });

  it('shows the customer’s latest words on the card, escaped, and follows their next message', async () => {
    const conv = await openConversation(h);
    const hostile = '<!channel> *bold* <https://evil.example|x> & more';
    const sentAt = now;
    await conv.customer(hostile);
    const first = await firstPost(conv);
    // Shown as written, never as markup: no live mention, link or bold.
    expect(first.blocks).toContain('&lt;!channel&gt; ∗bold∗ &lt;https://evil.example|x&gt; &amp; more');
    expect(first.blocks).not.toMatch(LIVE);
    expect(first.text).not.toMatch(LIVE);
    const card = await conv.waitCard((t) => t.includes('waiting since'));
    expect(card).toContain('&lt;!channel&gt;');
    expect(card).not.toMatch(LIVE);
    // How long they have waited: Slack words it in each reader's client.
    expect(card).toContain(`<!date^${Math.floor(sentAt / 1000)}^{ago}|`);

    await queueDrained(h);
    const cardTs = (await conv.card()).ts;
    const updates = () => h.slack.callsTo('chat.update').filter((c) => c.args.ts === cardTs).length;
    const before = updates();
    await conv.customer('Second words, about my order');
    const updated = await conv.waitCard((t) => t.includes('Second words, about my order'));
    expect(updated).not.toContain('evil.example');
    // One card update for the customer's post (Tier 3: chat.update is 50 a minute per workspace), no more.
    await queueDrained(h);
    expect(updates() - before).toBe(1);

    // A long message is shortened on the card; the thread has it whole.
    const long = `${'word '.repeat(100)}end`;
    await conv.customer(long);
    const shortened = await conv.waitCard((t) => t.includes('word word') && !t.includes('Second words'));
    expect(shortened).toContain('…');
    expect(shortened).not.toContain('word end');
    await conv.waitThread(3);
    expect(JSON.stringify(conv.thread().at(-1)?.blocks)).toContain(' end');
  });

  it('tells the admin subscribing chat messages how to page the team as a chat arrives, until it does', async () => {
    const channel = `C0NEWC${backend === 'redis' ? 'R' : 'M'}001`;
    const campaignId = 'camp-1'; // one the platform simulator knows
    const hint = 'run `/campaign handoff-sla 5 @support` to page your team when a chat arrives';
    expect((await run(h, `subscribe ${campaignId} message_received`, { channelId: channel })).text).toContain(hint);
    await run(h, `handoff-sla 5 ${SUPPORT}`, { channelId: channel, userId: ADMIN_ID });
    expect((await run(h, `subscribe ${campaignId} message_sent`, { channelId: channel })).text).not.toContain(hint);
    await run(h, `unsubscribe ${campaignId}`, { channelId: channel });
    expect((await run(h, `subscribe ${campaignId} message_received`, { channelId: channel })).text).not.toContain(hint);
  });
});
