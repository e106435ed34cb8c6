/**
 * Sets up a workspace the way the bot reads it: through the store (`createStore`, the documented interface)
 * with the same REDIS_URL, default key prefix and SECRETS_KEY the bot processes get. A signed
 * `/campaign subscribe` would write the same things (and is covered by test/events/commands.test.ts); doing it
 * here keeps the figures about intake and delivery only.
 */
import { randomBytes } from 'node:crypto';
import { createStore, type Store } from '../../src/store/index.js';

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
