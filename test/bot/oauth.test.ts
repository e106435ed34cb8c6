/**
 * OAuth multi-workspace mode: install through Slack's flow, installations stored encrypted, two
 * workspaces with their own platform keys never see each other's data, uninstall cleans up.
 */
import { describe, expect, it } from 'vitest';
import { ADMIN_ID, MEMBER_ID, startHarness, useHarness } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { waitFor } from '../support/wait.js';

const redis = await requireRedis();
const OTHER_TEAM = 'T0OTHERWS1';
const KEY_A = 'ck_live_workspace_A_000000000000aaaa';
const KEY_B = 'ck_live_workspace_B_000000000000bbbb';

const h = useHarness(async () => {
  const started = await startHarness({
    oauth: true,
    defaultApiKey: false,
    redisUrl: redis.url,
    keyPrefix: `${redis.prefix}oauth:`,
  });
  for (const key of [KEY_A, KEY_B]) started.platform.addApiKey(key);
  return started;
});

/** Runs Slack's install flow for a team: /slack/install → authorize → /slack/oauth_redirect. */
async function install(teamId: string): Promise<void> {
  const start = await fetch(`${h.url}/slack/install`, { redirect: 'manual' });
  expect(start.status).toBe(302);
  const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const authorize = new URL(start.headers.get('location') ?? '');
  expect(authorize.searchParams.get('scope')).toBe(
    'commands,chat:write,users:read,reactions:write,files:read,files:write,channels:history,groups:history,channels:read,groups:read,metadata.message:read',
  );
  authorize.searchParams.set('team', teamId);
  authorize.searchParams.set('redirect_uri', `${h.url}/slack/oauth_redirect`);
  const granted = await fetch(authorize, { redirect: 'manual' });
  const callback = await fetch(granted.headers.get('location') ?? '', { headers: { cookie }, redirect: 'manual' });
  expect(callback.status).toBe(200);
}

describe('OAuth installs', () => {
  it('stores each workspace’s installation encrypted and answers its commands with its own token', async () => {
    await install(h.slack.teamId);
    await install(OTHER_TEAM);
    const grants = h.slack
      .callsTo('oauth.v2.access')
      .map((c) => c.response as { team: { id: string }; access_token: string });
    expect(grants.map((g) => g.team.id)).toEqual([h.slack.teamId, OTHER_TEAM]);
    const tokenB = grants[1]!.access_token;

    // Installations are sealed in Redis: no bot token in plaintext.
    const stored = await Promise.all((await redis.keys('*installation*')).map((k) => redis.redis.get(k)));
    expect(stored).toHaveLength(2);
    for (const g of grants) expect(stored.join('\n')).not.toContain(g.access_token);

    // Workspace B's admin opens the connect modal: Slack is called with B's token.
    h.slack.addUser({ id: 'U0ADMINB01', name: 'bea', is_admin: true });
    await h.signer.command({ text: 'connect', userId: 'U0ADMINB01', teamId: OTHER_TEAM, responseUrlId: 'b-connect' });
    const open = await h.slack.waitFor(() => h.slack.callsTo('views.open')[0]);
    expect(open.token).toBe(tokenB);
  });

  it('keeps each workspace on its own platform key', async () => {
    await h.bot.deps.store.workspaces.setApiKey(h.slack.teamId, KEY_A, { verifiedBy: ADMIN_ID });
    await h.bot.deps.store.workspaces.setApiKey(OTHER_TEAM, KEY_B, { verifiedBy: 'U0ADMINB01' });
    h.platform.reset();
    await h.signer.command({ text: 'quota', userId: MEMBER_ID, responseUrlId: 'qa' });
    await h.signer.command({ text: 'quota', userId: 'U0MEMBERB1', teamId: OTHER_TEAM, responseUrlId: 'qb' });
    await h.slack.waitFor(
      () => h.slack.responses.find((r) => r.id === 'qa') && h.slack.responses.find((r) => r.id === 'qb'),
    );
    const keys = h.platform.requests.filter((r) => r.path === '/customer-quota').map((r) => r.headers['api-key']);
    expect(keys.sort()).toEqual([KEY_A, KEY_B]);
  });

  it('forgets an uninstalled workspace and nothing of the other', async () => {
    const res = await h.signer.event({ type: 'app_uninstalled' }, { teamId: OTHER_TEAM });
    expect(res.status).toBe(200);
    const store = h.bot.deps.store;
    await waitFor(async () => (await store.installations.botToken(OTHER_TEAM)) === null, 'installation deleted');
    expect(await store.workspaces.getApiKey(OTHER_TEAM)).toBeNull();
    await expect(
      store.installations.fetchInstallation({
        teamId: OTHER_TEAM,
        enterpriseId: undefined,
        isEnterpriseInstall: false,
      }),
    ).rejects.toThrow();
    expect(await store.workspaces.getApiKey(h.slack.teamId)).toBe(KEY_A);
    expect(await store.installations.botToken(h.slack.teamId)).toMatch(/^xoxb-/);
  });
});
