/**
 * Sets up a workspace the way the bot reads it: through the store (`createStore`, the documented interface)
 * with the same REDIS_URL, default key prefix and SECRETS_KEY the bot processes get. A signed
 * `/campaign subscribe` would write the same things (and is covered by test/events/commands.test.ts); doing it
 * here keeps the figures about intake and delivery only.
 */
import { randomBytes } from 'node:crypto';
import { createStore, type Store } from '../../src/store/index.js';
import type { FakeSlack } from '../../test/fakes/slack.js';

export interface RouteSpec {
  campaignId: string;
  triggerName: string;
  channelId: string;
}

export function newSecretsKey(): string {
  return randomBytes(32).toString('base64');
}

/** Opens the store the bot processes share (caller closes it): one Redis by URL, or a cluster by its seeds. */
export function openStore(
  redis: string | { cluster: ReadonlyArray<{ host: string; port: number }> },
  secretsKey: string,
): Store {
  const where = typeof redis === 'string' ? { redisUrl: redis } : { redisCluster: { nodes: redis.cluster } };
  return createStore({ ...where, secretsKey: Buffer.from(secretsKey, 'base64') });
}

/** Adds `routes` for `teamId` and returns the workspace's hook token (created on first use). */
export async function provisionWorkspace(store: Store, teamId: string, routes: readonly RouteSpec[]): Promise<string> {
  for (const route of routes) await store.routes.add({ teamId, ...route });
  return (await store.workspaces.getHookToken(teamId)) ?? (await store.workspaces.createHookToken(teamId));
}

/**
 * Installs the app in `teamId` through Slack's OAuth flow, as a browser follows it: the bot's /slack/install →
 * the stand-in's authorize → the bot's /slack/oauth_redirect with the state cookie. The redirect names the
 * bot's PUBLIC_URL, so it is followed to the same path on the bot's local address.
 */
export async function installWorkspace(botUrl: string, slack: FakeSlack, teamId: string): Promise<void> {
  const start = await fetch(`${botUrl}/slack/install`, { redirect: 'manual' });
  const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const authorize = new URL(start.headers.get('location') ?? '');
  authorize.searchParams.set('team', teamId);
  const granted = await fetch(authorize, { redirect: 'manual' });
  const back = new URL(granted.headers.get('location') ?? '');
  const done = await fetch(`${botUrl}${back.pathname}${back.search}`, { headers: { cookie }, redirect: 'manual' });
  await done.arrayBuffer();
  if (start.status !== 302 || done.status !== 200)
    throw new Error(`installing ${teamId}: /slack/install ${start.status}, /slack/oauth_redirect ${done.status}`);
  if (!slack.callsTo('oauth.v2.access').some((c) => (c.response as { team?: { id?: string } }).team?.id === teamId))
    throw new Error(`installing ${teamId}: Slack granted no installation`);
}
