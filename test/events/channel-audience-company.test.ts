/**
 * Channels at a real company's size (docs/PRODUCT.md › Who reads a channel), against a Slack stand-in that
 * enforces Slack's tiers (users.list Tier 2, users.info and conversations.members Tier 4: a 429 fails the test):
 * a channel of 3,000 is judged from the workspace's roster in a handful of calls, people of a sister workspace
 * of the Enterprise Grid org are insiders, a member made a guest masks their channels by the next post, and a
 * judgement is never trusted for ever — a missed member_joined_channel or events Slack held back are caught.
 * The figures (Slack calls to judge the channel, the subscribe answer's and the first card's time) are printed.
 */
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { addCompany, teamJoin, userChanged } from '../../fakes/slack/company.js';
import type { SlackMessage } from '../fakes/slack.js';
import { textOf } from '../support/blocks.js';
import { ADMIN_ID, TEAM_ID, useHarness, type Harness } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { waitForValue } from '../support/wait.js';
import { deliver, posts, queueDrained, run, startEventsHarness } from './support.js';

const redis = await requireRedis();

const ORG = 'E0ACME0001';
const SISTER_TEAM = 'T0SISTER01';
const NUMBER = '+14155550123';
const MASKED_NUMBER = '+1 ••• ••• 0123';

/** Everything the bot asks Slack to learn who is who. */
const WHO_METHODS = new Set(['auth.test', 'users.list', 'users.info', 'conversations.info', 'conversations.members']);

let n = 0;
const call = () => ({
  triggerName: 'call_completed',
  campaignId: 'camp-1',
  callId: `call-co-${++n}`,
  customerName: 'Olivia Brown',
  customerNumber: NUMBER,
  status: 'completed',
  callSummary: `Wants a call back on ${NUMBER}.`,
  endedAt: '2024-03-08T16:41:09Z',
});

/** The event posts of a channel (not the bot's notices). */
const cards = (h: Harness, channel: string) => posts(h, channel).filter((m) => !/^[📣🔒]/u.test(m.text));
const notices = (h: Harness, channel: string) => posts(h, channel).filter((m) => m.text.startsWith('🔒'));
/** The customer's number as a call card's first line shows it: `✅ *Olivia Brown* (+1 ••• ••• 0123) · …`. */
const numberOn = (card: SlackMessage | undefined) => /\* \(([^)]*)\)/.exec(textOf(card?.blocks))?.[1];

async function hook(h: Harness): Promise<string> {
  return `${h.url}/hooks/${await h.bot.deps.store.workspaces.getHookToken(TEAM_ID)}`;
}

/** `/campaign subscribe * <what>` in `channel`, its answer waited for longer than `run` does. */
async function subscribe(h: Harness, channel: string, what = 'call_completed'): Promise<{ text: string }> {
  const id = `co-${++n}`;
  expect(
    (
      await h.signer.command({
        text: `subscribe * ${what}`,
        userId: ADMIN_ID,
        responseUrlId: id,
        channelId: channel,
      })
    ).status,
  ).toBe(200);
  const answer = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === id), 30_000);
  return { text: JSON.stringify(answer.body) };
}

/** Resolves once the channel's judgement is stored and known (not "not known yet"). */
async function judged(h: Harness, channel: string): Promise<void> {
  await waitForValue(
    async () => {
      const a = await h.bot.deps.store.channelAudiences.get(TEAM_ID, channel);
      return a && !a.unknown ? a : undefined;
    },
    `${channel} judged`,
    30_000,
  );
}

/** One call_completed delivered; resolves with the card it became in `channel` (the `nth` card there). */
async function cardFor(h: Harness, channel: string, nth: number): Promise<SlackMessage> {
  expect((await deliver(await hook(h), [call()])).status).toBe(200);
  return h.slack.waitFor(() => cards(h, channel)[nth], 10_000);
}

describe('a company of 3,000 in one channel', () => {
  const h = useHarness(
    () =>
      startEventsHarness({
        redisUrl: redis.url,
        keyPrefix: `${redis.prefix}company:`,
        // As in production: at debug, WebClient writes out every 1 MB users.list page once more.
        env: { LOG_LEVEL: 'info' },
        slack: { enterpriseId: ORG },
      }),
    ['platform', 'slack', 'routes'],
  );

  it('is judged in a few Slack calls: full numbers where no guest is, masked where one guest is among 3,000', async () => {
    const WITH_GUEST = 'C0ALLHANDS';
    const NO_GUEST = 'C0GENERAL1';
    const people = addCompany(h.slack, { channel: WITH_GUEST, people: 3_000, prefix: 'CO', guests: [1_500] });
    h.slack.addChannel({ id: NO_GUEST, name: 'general', members: people.filter((_, i) => i !== 1_500) });

    // Timed, never asserted on time: this machine runs the stand-in (3 MB of users.list) and other tests too.
    const started = performance.now();
    const subscribed = await subscribe(h, NO_GUEST);
    const answerMs = performance.now() - started;
    expect(subscribed.text).toContain('now receives `call_completed`');
    await judged(h, NO_GUEST);
    const first = await cardFor(h, NO_GUEST, 0);
    const firstCardMs = performance.now() - started;
    expect(numberOn(first)).toBe(NUMBER);
    // Judged by then: every call it took (the admin's own check aside).
    const judging = h.slack.calls.filter(
      (c) => WHO_METHODS.has(c.method) && !(c.method === 'users.info' && c.args.user === ADMIN_ID),
    );
    const byMethod = Object.fromEntries([...WHO_METHODS].map((m) => [m, judging.filter((c) => c.method === m).length]));
    expect(byMethod['users.info'], 'nobody asked about one by one').toBe(0);
    expect(judging.length).toBeLessThanOrEqual(20);
    expect(notices(h, NO_GUEST)).toEqual([]);

    // The channel with one guest among 3,000: said plainly, and masked.
    const before = h.slack.calls.length;
    const guarded = await subscribe(h, WITH_GUEST);
    expect(guarded.text).toContain('now receives `call_completed`');
    // Said in the subscription's notice, or in its own once judged (whichever the judgement was in time for).
    await h.slack.waitFor(() =>
      posts(h, WITH_GUEST).find((m) => m.text.includes('This channel has 1 guest in it, so the bot masks')),
    );
    expect(h.slack.calls.slice(before).filter((c) => c.method === 'users.list')).toEqual([]); // the roster, kept
    await judged(h, WITH_GUEST);
    await queueDrained(h);
    const masked = await cardFor(h, WITH_GUEST, 0);
    expect(numberOn(masked)).toBe(MASKED_NUMBER);
    expect(JSON.stringify(masked.blocks)).not.toContain('5550123');

    // What is kept of 3,000 people: one letter each (no names, no profiles), the guest among them.
    const roster = await redis.redis.hgetall(h.bot.deps.store.keys.roster(TEAM_ID));
    const letters = Object.entries(roster).filter(([field]) => field !== '#');
    expect(letters.length).toBeGreaterThanOrEqual(3_000);
    expect(letters.every(([, v]) => v.length === 1)).toBe(true);
    expect(roster[people[1_500]!]).toBe('g');
    expect(roster[people[0]!]).toBe('m');
    const audience = await h.bot.deps.store.channelAudiences.get(TEAM_ID, WITH_GUEST);
    expect(audience).toMatchObject({ guests: [people[1_500]], external: [] });

    console.log(
      `[figures] a 3,000-member channel judged with ${judging.length} Slack calls ${JSON.stringify(byMethod)}; ` +
        `subscribe answered in ${answerMs.toFixed(0)} ms; the first card in ${firstCardMs.toFixed(0)} ms from the subscribe`,
    );
  });
});

describe('people who change, and judgements that age', () => {
  let skewMs = 0;
  const h = useHarness(
    () =>
      startEventsHarness({
        redisUrl: redis.url,
        keyPrefix: `${redis.prefix}changes:`,
        slack: { enterpriseId: ORG },
        bot: { now: () => Date.now() + skewMs },
      }),
    ['platform', 'slack', 'routes'],
  );
  const infoAbout = (ids: readonly string[]) =>
    h.slack.calls.filter((c) => c.method === 'users.info' && ids.includes(String(c.args.user)));
  const membersCalls = () => h.slack.calls.filter((c) => c.method === 'conversations.members').length;
  /** The admin's own standing checked (and kept 5 minutes) before a test makes users.info fail for someone else. */
  async function adminChecked(): Promise<void> {
    expect((await run(h, 'failed')).text).not.toContain('Only Slack workspace admins');
  }
  /** People who join the workspace after its roster was listed: team_join for each, as Slack sends it. */
  async function hired(ids: readonly string[]): Promise<void> {
    for (const id of ids) {
      expect((await teamJoin(h.slack, h.signer, h.slack.user(id)!)).status).toBe(200);
      await h.slackRequestDone(
        (b) => b.event?.type === 'team_join' && (b.event as { user?: { id?: string } }).user?.id === id,
        `team_join of ${id}`,
      );
    }
  }

  it('counts a sister workspace of the Enterprise Grid org as ours, and another organisation as outsiders', async () => {
    const GRID = 'C0ORGWIDE1';
    const CONNECT = 'C0CONNECT1';
    const STRANGER = 'U0OTHERORG9';
    const own = addCompany(h.slack, { people: 30, prefix: 'GR' });
    const sisters = addCompany(h.slack, { people: 3, prefix: 'SI', teamId: SISTER_TEAM, enterpriseId: ORG });
    h.slack.addUser({ id: STRANGER, name: 'sam', team_id: 'T0OTHERORG', enterprise_id: 'E0OTHERORG' });
    h.slack.addChannel({ id: GRID, name: 'org-wide', is_org_shared: true, members: [...own, ...sisters] });
    h.slack.addChannel({ id: CONNECT, name: 'with-partner', is_ext_shared: true, members: [...own, STRANGER] });

    const grid = await run(h, 'subscribe * call_completed', { channelId: GRID });
    expect(grid.text).toContain('now receives `call_completed`');
    expect(grid.text).not.toContain('🔒');
    const connect = await run(h, 'subscribe * call_completed', { channelId: CONNECT });
    expect(connect.text).toContain(
      'This channel has 1 person of another organisation (it is a Slack Connect channel) in it',
    );
    // users.info only for the people the roster does not know: the sister workspace's, and the other org's.
    expect(new Set(infoAbout([...own, ...sisters, STRANGER]).map((c) => c.args.user))).toEqual(
      new Set([...sisters, STRANGER]),
    );

    expect(numberOn(await cardFor(h, GRID, 0))).toBe(NUMBER);
    await queueDrained(h);
    expect(numberOn(cards(h, CONNECT)[0])).toBe(MASKED_NUMBER);
  });

  it('a member made a guest masks their channels by the next post; made a member again, unmasks', async () => {
    const TEAM = 'C0TEAMROOM';
    const people = addCompany(h.slack, { channel: TEAM, people: 40, prefix: 'TG' });
    await hired(people);
    const who = people[7]!;
    await run(h, 'subscribe * call_completed', { channelId: TEAM });
    expect(numberOn(await cardFor(h, TEAM, 0))).toBe(NUMBER);
    const judged = membersCalls();

    // A profile edit (Slack sends user_change for any) changes nobody's standing: nothing judged again.
    await userChanged(h.slack, h.signer, who, { real_name: 'Tess Renamed' });
    await h.slackRequestDone(
      (b) =>
        b.event?.type === 'user_change' &&
        (b.event as { user?: { real_name?: string } }).user?.real_name === 'Tess Renamed',
      'the profile edit',
    );
    expect(membersCalls()).toBe(judged);

    await userChanged(h.slack, h.signer, who, { is_restricted: true });
    const notice = await h.slack.waitFor(() => notices(h, TEAM)[0]);
    expect(notice.text).toBe(
      '🔒 1 guest can now read this channel, so from now on the bot masks customers’ phone numbers and e-mails in its posts here (+1 ••• ••• 9876).',
    );
    expect(numberOn(await cardFor(h, TEAM, 1))).toBe(MASKED_NUMBER);

    await userChanged(h.slack, h.signer, who, { is_restricted: false });
    await waitForValue(async () => {
      const a = await h.bot.deps.store.channelAudiences.get(TEAM_ID, TEAM);
      return a && a.guests.length === 0 && !a.unknown ? a : undefined;
    }, 'the channel judged again without its guest');
    expect(numberOn(await cardFor(h, TEAM, 2))).toBe(NUMBER);
    expect(notices(h, TEAM)).toHaveLength(1);
    expect(infoAbout([who]), 'the events said who they are').toEqual([]);
  });

  it('a guest whose member_joined_channel never came masks the channel once its judgement is 15 minutes old', async () => {
    const QUIET = 'C0QUIETONE';
    const LATE = 'U0LATEGST1';
    const people = addCompany(h.slack, { channel: QUIET, people: 20, prefix: 'MJ' });
    h.slack.addUser({ id: LATE, name: 'lou', is_ultra_restricted: true });
    await hired([...people, LATE]);
    await run(h, 'subscribe * call_completed', { channelId: QUIET });
    expect(numberOn(await cardFor(h, QUIET, 0))).toBe(NUMBER);

    // The guest joins while the bot is down: Slack's event never reaches it.
    h.slack.addChannel({ id: QUIET, name: 'quiet', members: [...people, LATE] });
    skewMs += 15 * 60_000 + 1_000;
    expect(numberOn(await cardFor(h, QUIET, 1))).toBe(MASKED_NUMBER);
    // The notice waits in the channel's outbox behind the card.
    await queueDrained(h);
    expect(notices(h, QUIET).map((m) => m.text)).toEqual([
      '🔒 1 guest can now read this channel, so from now on the bot masks customers’ phone numbers and e-mails in its posts here (+1 ••• ••• 9876).',
    ]);
  });

  it('after Slack held events back (app_rate_limited), the roster is listed again before the next post', async () => {
    const BUSY = 'C0BUSYROOM';
    const people = addCompany(h.slack, { channel: BUSY, people: 25, prefix: 'RL' });
    await hired(people);
    await run(h, 'subscribe * call_completed', { channelId: BUSY });
    expect(numberOn(await cardFor(h, BUSY, 0))).toBe(NUMBER);
    const listings = () => h.slack.calls.filter((c) => c.method === 'users.list').length;
    const listed = listings();

    // Made a guest, and the user_change is among the events Slack held back.
    h.slack.addUser({ ...h.slack.user(people[3]!)!, is_restricted: true });
    expect((await h.signer.appRateLimited()).status).toBe(200);
    await waitForValue(
      async () => (await h.bot.deps.store.rosters.meta(TEAM_ID))?.staleSince,
      'the roster marked to be listed again',
    );
    expect(numberOn(await cardFor(h, BUSY, 1))).toBe(MASKED_NUMBER);
    expect(listings()).toBeGreaterThan(listed);
  });

  it('someone Slack cannot tell about yet is not a guest: masked meanwhile, nobody told, settled a minute later', async () => {
    const MIXED = 'C0MIXEDORG';
    const own = addCompany(h.slack, { people: 10, prefix: 'NK' });
    await hired(own);
    const [sister] = addCompany(h.slack, { people: 1, prefix: 'NS', teamId: SISTER_TEAM, enterpriseId: ORG });
    h.slack.addChannel({ id: MIXED, name: 'mixed', is_org_shared: true, members: [...own, sister!] });
    await adminChecked();
    h.slack.failMethod('users.info', 'internal_error', 1); // the sister workspace's person, the one users.info

    const subscribed = await run(h, 'subscribe * call_completed', { channelId: MIXED });
    expect(subscribed.text).toContain('still learning from Slack who is in this channel');
    expect(subscribed.text).not.toContain('guest');
    expect(numberOn(await cardFor(h, MIXED, 0))).toBe(MASKED_NUMBER);

    skewMs += 61_000;
    expect(numberOn(await cardFor(h, MIXED, 1))).toBe(NUMBER);
    expect(notices(h, MIXED)).toEqual([]);
  });

  it('customers:full given before the channel is known covers whoever the judgement then finds there', async () => {
    const DESK = 'C0SUPPORTD';
    const own = addCompany(h.slack, { people: 8, prefix: 'CF', guests: [2] });
    await hired(own);
    const [sister] = addCompany(h.slack, { people: 1, prefix: 'CS', teamId: SISTER_TEAM, enterpriseId: ORG });
    h.slack.addChannel({ id: DESK, name: 'support-desk', is_org_shared: true, members: [...own, sister!] });
    await adminChecked();
    h.slack.failMethod('users.info', 'internal_error', 1); // the sister workspace's person, the one users.info

    const full = await subscribe(h, DESK, 'message_received customers:full');
    expect(full.text).toContain('now receives `message_received` (only `customers:full`)');
    skewMs += 61_000;
    const chat = {
      triggerName: 'message_received',
      campaignId: 'camp-desk',
      customerNumber: NUMBER,
      customerName: 'Noah Wilson',
      messageContent: `call me on ${NUMBER}`,
      receivedAt: new Date(Date.now() + ++n * 1000).toISOString(),
    };
    expect((await deliver(await hook(h), [chat])).status).toBe(200);
    const card = await h.slack.waitFor(() => cards(h, DESK)[0], 10_000);
    expect(numberOn(card)).toBe(NUMBER);
    // Judged meanwhile: the guest is there, and the admin's word covers them.
    expect(await h.bot.deps.store.channelAudiences.get(TEAM_ID, DESK)).toMatchObject({
      guests: [own[2]],
      confirmed: { outsiders: [own[2]] },
    });
  });
});
