/**
 * Tenant safety at the webhook, with two workspaces installed through OAuth, in both store modes:
 * - each workspace's backlog — events queued, and calls waiting for their channel — is capped by
 *   HOOK_MAX_BACKLOG (events) and HOOK_MAX_BACKLOG_MB (bytes); over either the platform is answered 429 +
 *   Retry-After — never a 5xx, never an event accepted and then dropped — and the refusal is counted per
 *   workspace on /metrics;
 * - one workspace's flood never holds up another workspace's posts;
 * - its dead letters count toward HOOK_MAX_BACKLOG_MB: events that all fail cannot pile up past the budget.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SlackCall } from '../fakes/slack.js';
import { useHarness, type Harness, type HarnessOptions } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { CALL_STARTED_FULL, MESSAGE_RECEIVED_FULL } from './fixtures.js';
import { deliver, posts, queueDrained, startEventsHarness } from './support.js';
import { waitFor } from '../support/wait.js';
import { DEDUP_MARK_BYTES } from '../../src/store/queue.js';

const redis = await requireRedis();
const OTHER_TEAM = 'T0OTHERWS1';

const modes: { name: string; store: () => HarnessOptions }[] = [
  { name: 'memory', store: () => ({}) },
  {
    name: 'redis',
    store: () => ({ redisUrl: redis.url, keyPrefix: `${redis.prefix}${Math.random().toString(36).slice(2)}:` }),
  },
];

/** Runs Slack's install flow for a team: /slack/install → authorize → /slack/oauth_redirect. */
async function install(h: Harness, teamId: string): Promise<void> {
  const start = await fetch(`${h.url}/slack/install`, { redirect: 'manual' });
  const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const authorize = new URL(start.headers.get('location') ?? '');
  authorize.searchParams.set('team', teamId);
  authorize.searchParams.set('redirect_uri', `${h.url}/slack/oauth_redirect`);
  const granted = await fetch(authorize, { redirect: 'manual' });
  const callback = await fetch(granted.headers.get('location') ?? '', { headers: { cookie }, redirect: 'manual' });
  expect(callback.status).toBe(200);
}

// No PUBLIC_URL: the install redirect then stays on the local address the test uses.
async function startTwoWorkspaces(
  mode: (typeof modes)[number],
  env: Record<string, string> = {},
  options: HarnessOptions = {},
): Promise<Harness> {
  const h = await startEventsHarness({
    oauth: true,
    defaultApiKey: false,
    publicUrl: null,
    ...mode.store(),
    ...options,
    env,
  });
  await install(h, h.slack.teamId);
  await install(h, OTHER_TEAM);
  return h;
}

/** Routes every campaign's call_started of `teamId` to `channelId`; returns the team's local hook URL. */
async function hookFor(h: Harness, teamId: string, channelId: string): Promise<string> {
  const store = h.bot.deps.store;
  await store.routes.add({ teamId, campaignId: '*', triggerName: 'call_started', channelId });
  const token = (await store.workspaces.getHookToken(teamId)) ?? (await store.workspaces.createHookToken(teamId));
  return `${h.url}/hooks/${token}`;
}

let n = 0;
const callStarted = (label: string) => [{ ...CALL_STARTED_FULL, callId: `call-${label}-${++n}-${Date.now()}` }];

/** chat.postMessage calls Slack accepted, in the order they arrived. */
const acceptedPosts = (h: Harness): SlackCall[] =>
  h.slack.calls.filter((c) => c.method === 'chat.postMessage' && c.status === 200 && c.response.ok === true);

describe.each(modes)('a workspace’s backlog is capped by HOOK_MAX_BACKLOG ($name)', (mode) => {
  const h = useHarness(() => startTwoWorkspaces(mode, { HOOK_MAX_BACKLOG: '3' }));

  it('answers 429 + Retry-After over the cap — calls waiting for their channel count — keeps what it accepted, counts each workspace apart, and frees room as events are posted', async () => {
    const channel = 'C0CAPPED01';
    const hook = await hookFor(h, h.slack.teamId, channel);
    const waitingFor = () => h.bot.deps.store.outbox.size({ teamId: h.slack.teamId, channelId: channel });
    // Slack refuses every post for now: the channel's calls wait, and they are the workspace's backlog.
    h.slack.rateLimit({ method: 'chat.postMessage', retryAfterSec: 1, times: Number.POSITIVE_INFINITY });
    const accepted = [callStarted('a'), callStarted('a'), callStarted('a')];
    for (const body of accepted) expect((await deliver(hook, body)).status).toBe(200);
    await waitFor(async () => (await waitingFor()) === 3, 'three calls waiting for the channel');

    const over = callStarted('a');
    const refused = await deliver(hook, over);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ ok: false, error: 'backlog_full', limit: 'events' });
    // A copy of an event already accepted is not more backlog: still acknowledged as a duplicate.
    const copy = await deliver(hook, accepted[0]);
    expect(copy.status).toBe(200);
    expect(await copy.json()).toEqual({ ok: true, queued: 0, duplicates: 1 });

    // The other workspace has a backlog of its own.
    const otherHook = await hookFor(h, OTHER_TEAM, 'C0OTHERWS1');
    expect((await deliver(otherHook, callStarted('b'))).status).toBe(200);

    // Slack recovers: exactly the accepted events are posted (at Slack's pace), the refused one is not.
    h.slack.reset();
    await h.slack.waitFor(() => posts(h, channel).length === 3 && posts(h, 'C0OTHERWS1').length === 1, 15_000);
    // Posting freed the room: the platform's retry of the refused event is queued and posted once.
    await waitFor(async () => (await h.bot.deps.store.queue.usage(h.slack.teamId)).events === 0, 'the room freed');
    expect((await deliver(hook, over)).status).toBe(200);
    await h.slack.waitFor(() => posts(h, channel).length === 4, 5_000);
    expect(new Set(posts(h, channel).map((m) => m.ts)).size).toBe(4);
  });
});

/** A call_started delivery of about `kb` KB: a field the bot keeps and never renders carries the weight. */
const heavyCall = (label: string, kb: number) => [{ ...callStarted(label)[0], notes: 'x'.repeat(kb * 1024) }];

describe.each(modes)('a workspace’s backlog is capped by HOOK_MAX_BACKLOG_MB ($name)', (mode) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startTwoWorkspaces(mode, { HOOK_MAX_BACKLOG_MB: '1' });
  });
  afterAll(async () => {
    await h.close();
  });

  it('answers 429 + Retry-After once the bytes not yet posted would pass the budget, counts it per workspace, leaves the other workspace alone, and releases the bytes as events are posted', async () => {
    const MIB = 1024 * 1024;
    const channel = 'C0HEAVY001';
    const team = h.slack.teamId;
    const hook = await hookFor(h, team, channel);
    const { store } = h.bot.deps;
    h.slack.rateLimit({ method: 'chat.postMessage', retryAfterSec: 1, times: Number.POSITIVE_INFINITY });

    // 200 KB calls: five fit in 1 MB, the sixth would not. Each is let reach its channel before the next is
    // sent (a call being handed from the queue to its channel counts in both for a moment).
    const waiting = () => store.outbox.size({ teamId: team, channelId: channel });
    const accepted: unknown[] = [];
    let refused: Response | undefined;
    for (let i = 0; i < 10 && !refused; i++) {
      const body = heavyCall('heavy', 200);
      const res = await deliver(hook, body);
      if (res.status !== 200) {
        refused = res;
        break;
      }
      accepted.push(body);
      await waitFor(
        async () => (await waiting()) === accepted.length && (await store.queue.depth()).total === 0,
        'the call waiting for its channel',
      );
    }
    expect(accepted).toHaveLength(5);
    expect(refused?.status).toBe(429);
    expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused?.json()).toMatchObject({ ok: false, error: 'backlog_full', limit: 'bytes' });
    // What is stored for the workspace stays within the budget.
    const usage = await store.queue.usage(team);
    expect(usage.events).toBe(5);
    expect(usage.bytes).toBeGreaterThan(5 * 200 * 1024);
    expect(usage.bytes).toBeLessThanOrEqual(MIB);
    // The refusal is counted for this workspace, by the limit it hit.
    const metrics = await (await fetch(`${h.url}/metrics`)).text();
    expect(metrics).toContain(`campaign_webhook_backlog_full_total{workspace="${team}",limit="bytes"} 1`);

    // The other workspace's webhooks keep landing.
    const otherHook = await hookFor(h, OTHER_TEAM, 'C0OTHERWS2');
    for (let i = 0; i < 3; i++) expect((await deliver(otherHook, heavyCall('other', 200))).status).toBe(200);

    // Slack recovers: every accepted call is posted, and the bytes leave the count with them.
    h.slack.reset();
    await h.slack.waitFor(() => posts(h, channel).length === 5, 15_000);
    // What stays is the accepted events' dedup marks.
    await waitFor(
      async () => (await store.queue.usage(team)).bytes === 5 * DEDUP_MARK_BYTES,
      'the bytes released',
      10_000,
    );
    expect((await deliver(hook, heavyCall('heavy', 200))).status).toBe(200);
  });
});

describe.each(modes)('one workspace’s flood does not hold up another’s posts ($name)', (mode) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startTwoWorkspaces(mode);
  });
  afterAll(async () => {
    await h.close();
  });
  beforeEach(() => {
    h.slack.reset();
  });

  it('posts the quiet workspace’s event while the flood’s backlog is still draining', async () => {
    const FLOOD = 200;
    const floodChannel = 'C0FLOOD001';
    const quietChannel = 'C0QUIET001';
    const floodHook = await hookFor(h, h.slack.teamId, floodChannel);
    const quietHook = await hookFor(h, OTHER_TEAM, quietChannel);
    // Slack's per-channel limit on chat.postMessage (https://api.slack.com/methods/chat.postMessage#rate_limiting):
    // the flood can only drain slowly, so it builds a backlog.
    h.slack.channelRateLimit(25);

    let next = 0;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (next < FLOOD) {
          next++;
          expect((await deliver(floodHook, callStarted('flood'))).status).toBe(200);
        }
      }),
    );
    // What Slack had accepted when the quiet workspace's event arrived.
    const postedBefore = acceptedPosts(h).length;
    expect((await deliver(quietHook, callStarted('quiet'))).status).toBe(200);

    const channelOf = (c: SlackCall) => c.args.channel;
    await h.slack.waitFor(
      () =>
        acceptedPosts(h).some((c) => channelOf(c) === quietChannel) ||
        acceptedPosts(h).filter((c) => channelOf(c) === floodChannel).length === FLOOD,
      120_000,
    );
    const order = acceptedPosts(h).map(channelOf);
    const quietAt = order.indexOf(quietChannel);
    expect(quietAt).toBeGreaterThanOrEqual(0);
    // It went out while the flood's backlog was still draining, with only a handful of the flood's posts
    // in between (waiting behind the whole backlog would put over a hundred there).
    expect(quietAt).toBeLessThan(FLOOD);
    expect(quietAt - postedBefore).toBeLessThan(50);
  }, 180_000);

  it('shows the quiet workspace’s customer while hundreds of another’s conversations wait for one busy channel, none of them held in the queue', async () => {
    // Several times the 32 entries the queue consumer reads ahead.
    const WAITING = 120;
    const busyChannel = 'C0BUSYCHAT';
    const quietChannel = 'C0QUIETCHT';
    const store = h.bot.deps.store;
    for (const [teamId, channelId] of [
      [h.slack.teamId, busyChannel],
      [OTHER_TEAM, quietChannel],
    ] as const)
      await store.routes.add({ teamId, campaignId: '*', triggerName: 'message_received', channelId });
    const busyHook = await hookFor(h, h.slack.teamId, busyChannel);
    const quietHook = await hookFor(h, OTHER_TEAM, quietChannel);
    // Slack's one post a second per channel: a conversation's card and line take two, so most of them wait.
    h.slack.channelRateLimit(1);
    const customer = (i: number) => `+1415558${String(i).padStart(4, '0')}`;
    let next = 0;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (next < WAITING) {
          const i = next++;
          const event = { ...MESSAGE_RECEIVED_FULL, customerNumber: customer(i), messageContent: `waiting ${i}` };
          expect((await deliver(busyHook, [event])).status).toBe(200);
        }
      }),
    );
    const busy = { teamId: h.slack.teamId, channelId: busyChannel };
    // Every conversation that could not be shown waits in its channel's outbox, none in the queue.
    await waitFor(async () => (await store.queue.depth()).total === 0, 'the queue to hand every event on', 60_000);
    const waitingBefore = await store.outbox.size(busy);
    expect(waitingBefore).toBeGreaterThan(WAITING / 2);

    const quiet = { ...MESSAGE_RECEIVED_FULL, customerNumber: customer(9_999), messageContent: 'quiet one' };
    expect((await deliver(quietHook, [quiet])).status).toBe(200);
    await h.slack.waitFor(() => acceptedPosts(h).some((c) => c.args.channel === quietChannel), 10_000);
    // Still waiting there, hardly touched: the quiet customer did not wait behind them.
    expect(await store.outbox.size(busy)).toBeGreaterThan(waitingBefore - 20);
  }, 150_000);
});

describe.each(modes)('a workspace’s dead letters count toward HOOK_MAX_BACKLOG_MB ($name)', (mode) => {
  const h = useHarness(() =>
    startTwoWorkspaces(
      mode,
      { HOOK_MAX_BACKLOG_MB: '1' },
      { unlimitedSlackBecause: 'stored bytes, not pace: 20 refused cards into one channel (pacing: pacing.test.ts)' },
    ),
  );

  /** What Redis holds for a workspace: MEMORY USAGE of every key of it (its stream, dead letters, usage…). */
  async function redisBytesOf(teamId: string): Promise<number> {
    const { keys } = h.bot.deps.store;
    let total = 0;
    for (const key of await redis.redis.keys(`${keys.prefix}*`)) {
      if (keys.workspaceOf(key) === teamId) total += Number(await redis.redis.memory('USAGE', key));
    }
    return total;
  }

  it('keeps what is stored for a workspace whose large events all fail within its budget, wave after wave, taking each wave and leaving the other workspace’s letters alone', async () => {
    const MIB = 1024 * 1024;
    const team = h.slack.teamId;
    const hook = await hookFor(h, team, 'C0FAILING1');
    const otherHook = await hookFor(h, OTHER_TEAM, 'C0OTHERFL1');
    const { store } = h.bot.deps;
    // Slack refuses every card as malformed: each call becomes a dead letter at once (src/delivery/slack-errors.ts).
    h.slack.failMethod('chat.postMessage', 'invalid_blocks', Number.POSITIVE_INFINITY);

    // The other workspace has two letters of its own before the flood.
    for (let i = 0; i < 2; i++) expect((await deliver(otherHook, heavyCall('other', 250))).status).toBe(200);
    await queueDrained(h);
    const otherBefore = await store.queue.deadLetters(OTHER_TEAM);
    expect(otherBefore.entries).toHaveLength(2);
    const otherUsage = await store.queue.usage(OTHER_TEAM);

    // Six waves of three 200 KB calls: 3.6 MB of failures for a 1 MB budget (a call being handed to its channel's
    // outbox counts in both for a moment: two of a wave at once still fit beside the third). Redis
    // keeps a value of that size in its allocator's next size class (256 KB): a few percent above its bytes.
    for (let wave = 0; wave < 6; wave++) {
      for (let i = 0; i < 3; i++) expect((await deliver(hook, heavyCall(`wave${wave}`, 200))).status).toBe(200);
      await queueDrained(h);
      expect((await store.queue.usage(team)).bytes).toBeLessThanOrEqual(MIB);
      // What /campaign failed can list is what is kept: the letters themselves fit the budget.
      const kept = (await store.queue.deadLetters(team, 500)).entries;
      expect(kept.reduce((sum, d) => sum + Buffer.byteLength(JSON.stringify(d)), 0)).toBeLessThanOrEqual(MIB);
      if (mode.name === 'redis') expect(await redisBytesOf(team)).toBeLessThanOrEqual(1.1 * MIB);
    }
    // The newest failures are the ones kept, each with its whole event, for /campaign failed to show and retry.
    const dead = await store.queue.deadLetters(team);
    expect(dead.count).toBe(18);
    expect(dead.entries.length).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(dead.entries[0]?.payload)).toContain('call-wave5');
    expect(JSON.stringify(dead.entries[0]?.payload)).toContain('x'.repeat(200 * 1024));

    // The other workspace kept its letters and its bytes.
    expect((await store.queue.deadLetters(OTHER_TEAM)).entries.map((d) => d.id)).toEqual(
      otherBefore.entries.map((d) => d.id),
    );
    expect(await store.queue.usage(OTHER_TEAM)).toEqual(otherUsage);
  });

  it('refuses a wave of large events of an unknown trigger with 422: nothing queued, nothing kept as a dead letter', async () => {
    const team = h.slack.teamId;
    const hook = await hookFor(h, team, 'C0UNKNOWN1');
    const { store } = h.bot.deps;
    const usage = await store.queue.usage(team);
    const dead = await store.queue.deadLetters(team);
    const unknown = () => [{ ...heavyCall('unknown', 250)[0], triggerName: 'call_transferred' }];
    for (let i = 0; i < 10; i++) expect((await deliver(hook, unknown())).status).toBe(422);
    await queueDrained(h);
    expect(await store.queue.usage(team)).toEqual(usage);
    expect(await store.queue.deadLetters(team)).toEqual(dead);
    expect((await store.queue.depth()).total).toBe(0);
  });
});
