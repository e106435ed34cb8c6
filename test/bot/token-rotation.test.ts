/**
 * Token rotation (https://docs.slack.dev/authentication/using-token-rotation): an OAuth install whose bot token
 * expires (12 hours) and comes with a refresh token. Three replicas share one Redis: the token is refreshed
 * before it expires exactly once for all of them, and a token Slack calls expired (`token_expired`: its clock
 * ahead of ours) is refreshed and the call made once more — nobody sees a refusal after that retry.
 *
 * The bot's clock (Date, which @slack/oauth's InstallProvider reads) and the stand-in's move together, faked:
 * ten hours pass in an instant.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFakePlatform, type FakePlatform } from '../fakes/platform.js';
import { startFakeSlack, type FakeSlack } from '../fakes/slack.js';
import { SlackSigner } from '../fakes/slack-signer.js';
import { CALL_STARTED_MINIMAL } from '../events/fixtures.js';
import { deliver, queueDrained } from '../events/support.js';
import { ADMIN_ID, OAUTH_CLIENT, SIGNING_SECRET, TEAM_ID, startHarness, type Harness } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';

const redis = await requireRedis();
const LIFE_S = 12 * 3600;
/** How far Slack's clock runs ahead of the bot's (the `token_expired` case). */
let slackAhead = 0;

let slack: FakeSlack;
let platform: FakePlatform;
const replicas: Harness[] = [];

beforeAll(async () => {
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
  slack = await startFakeSlack({
    teamId: TEAM_ID,
    oauthClient: OAUTH_CLIENT,
    tokenRotation: { lifeS: LIFE_S },
    expiryClock: () => Date.now() + slackAhead,
  });
  platform = await startFakePlatform();
  const shared = { SECRETS_KEY: randomBytes(32).toString('base64') };
  for (let i = 0; i < 3; i++) {
    replicas.push(
      await startHarness({
        oauth: true,
        redisUrl: redis.url,
        keyPrefix: `${redis.prefix}rotation:`,
        env: shared,
        fakes: { slack, platform },
        bot: { events: { worker: { blockMs: 100, claimIdleMs: 600, retryDelayMs: () => 20 } } },
      }),
    );
  }
});
afterAll(async () => {
  for (const r of replicas) await r.close();
  await Promise.all([slack.close(), platform.close()]);
  vi.useRealTimers();
});

/** The bot's token grants so far: the install's and each refresh's. */
function grants(): Array<{ grantType: string | undefined; token: string; ok: boolean }> {
  return slack.callsTo('oauth.v2.access').map((c) => ({
    grantType: typeof c.args.grant_type === 'string' ? c.args.grant_type : undefined,
    token: String(c.response.access_token),
    ok: c.response.ok === true,
  }));
}

async function install(h: Harness): Promise<void> {
  const start = await fetch(`${h.url}/slack/install`, { redirect: 'manual' });
  const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const authorize = new URL(start.headers.get('location') ?? '');
  authorize.searchParams.set('team', TEAM_ID);
  authorize.searchParams.set('redirect_uri', `${h.url}/slack/oauth_redirect`);
  const granted = await fetch(authorize, { redirect: 'manual' });
  const back = new URL(granted.headers.get('location') ?? '');
  const callback = await fetch(`${h.url}${back.pathname}${back.search}`, { headers: { cookie }, redirect: 'manual' });
  expect(callback.status).toBe(200);
}

describe('rotating bot tokens across three replicas', () => {
  it('installs with an expiring token and its refresh token, both stored encrypted', async () => {
    await install(replicas[0]!);
    const [grant] = slack.callsTo('oauth.v2.access');
    expect(grant!.response).toMatchObject({ ok: true, expires_in: LIFE_S });
    expect(String(grant!.response.access_token)).toMatch(/^xoxe\.xoxb-/);
    const refresh = String(grant!.response.refresh_token);
    expect(refresh).toMatch(/^xoxe-1-/);
    const stored = (
      await Promise.all((await redis.keys('rotation:installation*')).map((k) => redis.redis.get(k)))
    ).join();
    expect(stored).not.toContain(refresh);
    expect(stored).not.toContain(String(grant!.response.access_token));
  });

  it('refreshes the token before it expires, once for all replicas', async () => {
    vi.setSystemTime(Date.now() + 10.5 * 3600_000); // 1½ hours left: within the refresh window
    await Promise.all(
      replicas.map((r, i) => {
        const signer = new SlackSigner({ signingSecret: SIGNING_SECRET, url: `${r.url}/slack/events`, fake: slack });
        return signer.command({ text: 'connect', userId: ADMIN_ID, responseUrlId: `connect-${i}`, teamId: TEAM_ID });
      }),
    );
    const opened = await slack.waitFor(() => {
      const calls = slack.callsTo('views.open');
      return calls.length === 3 ? calls : undefined;
    });
    expect(opened.map((c) => c.response.ok)).toEqual([true, true, true]);
    expect(grants().map((g) => [g.grantType, g.ok])).toEqual([
      [undefined, true],
      ['refresh_token', true],
    ]);
    const refreshed = grants()[1]!.token;
    for (const r of replicas) expect(await r.bot.deps.tokens.botToken(TEAM_ID)).toBe(refreshed);
  });

  it('refreshes a token Slack calls expired and sends the call once more', async () => {
    const { store } = replicas[1]!.bot.deps;
    const channel = 'C0ROTATED01';
    await store.routes.add({ teamId: TEAM_ID, campaignId: 'camp-1', triggerName: 'call_started', channelId: channel });
    const hook = await store.workspaces.createHookToken(TEAM_ID);
    // Slack's clock past the token's 12 hours while ours says it has most of them left.
    slackAhead = LIFE_S * 1000;
    const before = slack.calls.length;
    const res = await deliver(`${replicas[1]!.url}/hooks/${hook}`, [
      { ...CALL_STARTED_MINIMAL, triggerName: 'call_started' },
    ]);
    expect(res.status).toBe(200);
    await queueDrained(replicas[1]!);
    const posts = slack.callsTo('chat.postMessage').filter((c) => c.args.channel === channel);
    expect(posts.map((p) => (p.response.ok === true ? 'ok' : p.response.error))).toEqual(['token_expired', 'ok']);
    // Every call made at once with the expired token (the post, the channel's audience) waited for one refresh.
    expect(grants().map((g) => g.grantType)).toEqual([undefined, 'refresh_token', 'refresh_token']);
    const fresh = grants()[2]!.token;
    const calls = slack.calls.slice(before).filter((c) => c.method !== 'oauth.v2.access');
    const refused = calls.filter((c) => c.response.ok !== true);
    for (const c of refused) slack.expectRefusal(c.method, 'token_expired');
    expect(refused.map((c) => [c.response.error, c.token])).toEqual(
      refused.map((c) => ['token_expired', c.token === fresh ? 'not the fresh token' : c.token]),
    );
    // Each refused call went again with the new token, and Slack took every call made with it.
    const retried = calls.filter((c) => c.token === fresh);
    expect(retried.map((c) => c.method)).toEqual(expect.arrayContaining(refused.map((c) => c.method)));
    expect(retried.every((c) => c.response.ok === true)).toBe(true);
  });

  it('never writes a token or refresh token in a log line', () => {
    const secrets = slack
      .callsTo('oauth.v2.access')
      .flatMap((c) => [String(c.response.access_token), String(c.response.refresh_token)]);
    expect(secrets).toHaveLength(6);
    for (const r of replicas) for (const secret of secrets) expect(r.logs()).not.toContain(secret);
  });
});
