/**
 * Enterprise Grid: an org admin installs the app for the whole org (oauth.v2.access answers
 * `is_enterprise_install: true`, `team: null`), and every workspace of the org is served by that one
 * installation — its commands, and the bot's own posts there (the queue), which know only the workspace.
 * Slack's limits are per workspace: the org's one token is budgeted per workspace, never as one.
 */
import { describe, expect, it } from 'vitest';
import { SlackSigner } from '../fakes/slack-signer.js';
import { CALL_STARTED_MINIMAL } from '../events/fixtures.js';
import { deliver, queueDrained, startEventsHarness } from '../events/support.js';
import { SIGNING_SECRET, useHarness, type Harness } from '../support/harness.js';
import { requireRedis } from '../support/redis.js';
import { waitFor } from '../support/wait.js';

const redis = await requireRedis();
const ORG = 'E0GRIDORG1';
const GRID_A = 'T0GRIDAAA1';
const GRID_B = 'T0GRIDBBB1';
const ADMIN_A = 'U0GRIDADMA';
const ADMIN_B = 'U0GRIDADMB';

const h = useHarness(() => startEventsHarness({ oauth: true, redisUrl: redis.url, keyPrefix: `${redis.prefix}grid:` }));

/**
 * An org admin's install for the whole org — or, with `teamId`, an install in one workspace of the org:
 * /slack/install → Slack's authorize page → back.
 */
async function installForOrg(harness: Harness, enterpriseId: string, teamId?: string): Promise<void> {
  const start = await fetch(`${harness.url}/slack/install`, { redirect: 'manual' });
  const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const authorize = new URL(start.headers.get('location') ?? '');
  authorize.searchParams.set('enterprise', enterpriseId);
  if (teamId) authorize.searchParams.set('team', teamId); // one workspace of the org, not the org
  // With PUBLIC_URL the bot names its public redirect URL itself.
  if (!authorize.searchParams.has('redirect_uri'))
    authorize.searchParams.set('redirect_uri', `${harness.url}/slack/oauth_redirect`);
  const granted = await fetch(authorize, { redirect: 'manual' });
  const back = new URL(granted.headers.get('location') ?? '');
  const callback = await fetch(`${harness.url}${back.pathname}${back.search}`, {
    headers: { cookie },
    redirect: 'manual',
  });
  expect(callback.status).toBe(200);
}

function signerFor(teamId: string): SlackSigner {
  return new SlackSigner({ signingSecret: SIGNING_SECRET, url: `${h.url}/slack/events`, teamId, fake: h.slack });
}

describe('an org-wide install', () => {
  it('serves every workspace of the org with the org’s one installation, stored encrypted', async () => {
    await installForOrg(h, ORG);
    const grant = h.slack.callsTo('oauth.v2.access').at(-1)!.response as {
      is_enterprise_install: boolean;
      team: unknown;
      enterprise: { id: string };
      access_token: string;
    };
    expect(grant).toMatchObject({ is_enterprise_install: true, team: null, enterprise: { id: ORG } });
    const stored = await Promise.all((await redis.keys('grid:installation*')).map((k) => redis.redis.get(k)));
    expect(stored).toHaveLength(1);
    expect(stored.join('\n')).not.toContain(grant.access_token);

    h.slack.addUser({ id: ADMIN_A, name: 'ana', is_admin: true });
    h.slack.addUser({ id: ADMIN_B, name: 'bob', is_admin: true });
    const enterprise = { id: ORG, orgWide: true };
    await signerFor(GRID_A).command({ text: 'connect', userId: ADMIN_A, responseUrlId: 'grid-a', enterprise });
    await signerFor(GRID_B).command({ text: 'connect', userId: ADMIN_B, responseUrlId: 'grid-b', enterprise });
    const opened = await h.slack.waitFor(() => {
      const calls = h.slack.callsTo('views.open');
      return calls.length === 2 ? calls : undefined;
    });
    expect(opened.map((c) => c.token)).toEqual([grant.access_token, grant.access_token]);
    expect(opened.map((c) => (c.response as { ok: boolean }).ok)).toEqual([true, true]);
  });

  it('posts in a workspace of the org from the queue, where only the workspace is known', async () => {
    const grant = h.slack.callsTo('oauth.v2.access').at(-1)!.response as { access_token: string };
    const { store } = h.bot.deps;
    const channel = 'C0GRIDBCH1';
    // GRID_B's command above told the bot it belongs to the org; its route, as `/campaign subscribe` would leave it.
    await store.routes.add({ teamId: GRID_B, campaignId: 'camp-1', triggerName: 'call_started', channelId: channel });
    const token = await store.workspaces.createHookToken(GRID_B);
    const res = await deliver(`${h.url}/hooks/${token}`, [{ ...CALL_STARTED_MINIMAL, triggerName: 'call_started' }]);
    expect(res.status).toBe(200);
    await queueDrained(h);
    const posted = h.slack.callsTo('chat.postMessage').filter((c) => c.args.channel === channel);
    expect(posted).toHaveLength(1);
    expect(posted[0]!.token).toBe(grant.access_token);
    expect((posted[0]!.response as { ok: boolean }).ok).toBe(true);
  });

  it('holds one workspace’s calls on Slack’s 429, never the org’s other workspaces', async () => {
    const grant = h.slack.callsTo('oauth.v2.access').at(-1)!.response as { access_token: string };
    const enterprise = { id: ORG, orgWide: true };
    h.slack.rateLimit({ method: 'views.open', retryAfterSec: 30, times: 1 });
    const before = h.slack.callsTo('views.open').length;
    await signerFor(GRID_A).command({ text: 'connect', userId: ADMIN_A, responseUrlId: 'grid-a-2', enterprise });
    await h.slack.waitFor(() => h.slack.callsTo('views.open')[before]);
    await waitFor(
      async () => (await redis.keys('grid:rate-budget:*views.open')).length > 0,
      'the bot to hold views.open after Slack’s 429',
    );
    // The hold is GRID_A's (in the store every replica reads), under the workspace, not under the org's token.
    const held = (await redis.keys('grid:rate-budget:*')).map((k) => k.slice(`${redis.prefix}grid:`.length));
    expect(held.filter((k) => k.endsWith('views.open'))).toEqual([`rate-budget:${GRID_A}%3aviews.open`]);
    expect(
      held.filter((k) => !k.startsWith(`rate-budget:${GRID_A}%3a`) && !k.startsWith(`rate-budget:${GRID_B}%3a`)),
    ).toEqual([]);

    // GRID_B's modal opens at once, within its trigger's 3 s — on the same token.
    await signerFor(GRID_B).command({ text: 'connect', userId: ADMIN_B, responseUrlId: 'grid-b-2', enterprise });
    const opened = await h.slack.waitFor(() => h.slack.callsTo('views.open')[before + 1]);
    expect(opened.token).toBe(grant.access_token);
    expect(opened.response).toMatchObject({ ok: true });
  });
});

describe('an install in one workspace of an org', () => {
  it('posts there from the queue: the installation is the workspace’s within its org', async () => {
    const org = 'E0OTHERORG';
    const team = 'T0GRIDCCC1';
    await installForOrg(h, org, team);
    const grant = h.slack.callsTo('oauth.v2.access').at(-1)!.response as {
      is_enterprise_install: boolean;
      team: { id: string };
      access_token: string;
    };
    expect(grant).toMatchObject({ is_enterprise_install: false, team: { id: team } });
    const { store } = h.bot.deps;
    const channel = 'C0GRIDCCH1';
    // No request from the workspace yet: only the installation says which org it is in.
    await store.routes.add({ teamId: team, campaignId: 'camp-1', triggerName: 'call_started', channelId: channel });
    const token = await store.workspaces.createHookToken(team);
    const res = await deliver(`${h.url}/hooks/${token}`, [
      { ...CALL_STARTED_MINIMAL, callId: 'call-grid-c', triggerName: 'call_started' },
    ]);
    expect(res.status).toBe(200);
    await queueDrained(h);
    const posted = h.slack.callsTo('chat.postMessage').filter((c) => c.args.channel === channel);
    expect(posted.map((c) => [c.token, c.response.ok])).toEqual([[grant.access_token, true]]);
  });
});
