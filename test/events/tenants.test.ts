/**
 * Tenant safety at the webhook, with two workspaces installed through OAuth, in both store modes:
 * - each workspace's backlog (queued events) is capped by HOOK_MAX_BACKLOG, and so are the calls waiting for
 *   one channel (beyond, they stay queued); over it the platform is answered 429 + Retry-After — never a 5xx,
 *   never an event accepted and then dropped;
 * - one workspace's flood never holds up another workspace's posts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SlackCall } from '../fakes/slack.js';
import type { Harness, HarnessOptions } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { CALL_STARTED_FULL } from './fixtures.js';
import { deliver, posts, startEventsHarness } from './support.js';
import { waitFor } from '../store/backends.js';

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
async function startTwoWorkspaces(mode: (typeof modes)[number], env: Record<string, string> = {}): Promise<Harness> {
  const h = await startEventsHarness({ oauth: true, defaultApiKey: false, publicUrl: null, ...mode.store(), env });
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
  let h: Harness;
  beforeAll(async () => {
    h = await startTwoWorkspaces(mode, { HOOK_MAX_BACKLOG: '3' });
  });
  afterAll(async () => {
    await h.close();
  });

  it('answers 429 + Retry-After over the cap, keeps what it accepted, counts each workspace apart, and frees room as events are posted', async () => {
    const channel = 'C0CAPPED01';
    const hook = await hookFor(h, h.slack.teamId, channel);
    const waitingFor = () => h.bot.deps.store.callOutbox.size({ teamId: h.slack.teamId, channelId: channel });
    // Slack refuses every post for now: the channel's calls wait, up to HOOK_MAX_BACKLOG of them...
    h.slack.rateLimit({ method: 'chat.postMessage', retryAfterSec: 1, times: Number.POSITIVE_INFINITY });
    const waiting = [callStarted('a'), callStarted('a'), callStarted('a')];
    for (const body of waiting) expect((await deliver(hook, body)).status).toBe(200);
    await waitFor(async () => (await waitingFor()) === 3, 'three calls waiting for the channel');
    // ...and the next ones stay queued, where the workspace's backlog cap counts them.
    const queued = [callStarted('a'), callStarted('a'), callStarted('a')];
    for (const body of queued) expect((await deliver(hook, body)).status).toBe(200);

    const over = callStarted('a');
    const refused = await deliver(hook, over);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ ok: false, error: 'backlog_full' });
    // A copy of an event already queued is not more backlog: still acknowledged as a duplicate.
    const copy = await deliver(hook, queued[0]);
    expect(copy.status).toBe(200);
    expect(await copy.json()).toEqual({ ok: true, queued: 0, duplicates: 1 });

    // The other workspace has a backlog of its own.
    const otherHook = await hookFor(h, OTHER_TEAM, 'C0OTHERWS1');
    expect((await deliver(otherHook, callStarted('b'))).status).toBe(200);

    // Slack recovers: exactly the accepted events are posted (at Slack's pace), the refused one is not.
    h.slack.reset();
    await h.slack.waitFor(() => posts(h, channel).length === 6 && posts(h, 'C0OTHERWS1').length === 1, 15_000);
    // Posting freed the room: the platform's retry of the refused event is queued and posted once.
    expect((await deliver(hook, over)).status).toBe(200);
    await h.slack.waitFor(() => posts(h, channel).length === 7, 5_000);
    expect(new Set(posts(h, channel).map((m) => m.ts)).size).toBe(7);
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
    const FLOOD = 500;
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
    // in between (waiting behind the whole backlog would put hundreds there).
    expect(quietAt).toBeLessThan(FLOOD);
    expect(quietAt - postedBefore).toBeLessThan(50);
  }, 180_000);
});
