/**
 * The workspace's webhook URL: `PUBLIC_URL/hooks/<token>`. The token is the only thing that authenticates a
 * delivery (docs/PLATFORM-API.md: deliveries are unsigned), so it is treated as a secret everywhere: masked in
 * every log line by its shape (32 random bytes in base64url, and whatever follows `/hooks/`:
 * src/util/secret-shapes.ts) rather than registered one by one with the log redactor, logged only as a hash
 * prefix, and never shown in Slack.
 */
import { createHash } from 'node:crypto';
import { BadRequestError, type CampaignClient, type TriggerName } from '../api/index.js';
import type { Logger } from '../logger.js';
import type { Store } from '../store/index.js';

export const HOOK_PATH = '/hooks';

const CREATE_LOCK_MS = 10_000;
const WAIT_STEP_MS = 100;

/** First 12 hex characters of the token's SHA-256: enough to tell tokens apart in logs, useless to an attacker. */
export function tokenRef(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex').slice(0, 12);
}

export function hookUrlFor(publicUrl: string, token: string): string {
  return `${publicUrl}${HOOK_PATH}/${token}`;
}

/**
 * Drops the platform's subscription of `hookUrl` to one (campaign, event). The platform answers 400 when no
 * subscription matches: already gone, which is what every caller wants; any other failure is thrown.
 */
export async function unsubscribeUpstream(
  api: Pick<CampaignClient, 'webhooks'>,
  hookUrl: string,
  { campaignId, triggerName }: { campaignId: string; triggerName: TriggerName },
  logger: Logger,
): Promise<void> {
  try {
    await api.webhooks.unsubscribe({ hookUrl, campaignId, triggerName });
    logger.info({ campaignId, triggerName }, 'platform webhook unsubscribed');
  } catch (err) {
    if (!(err instanceof BadRequestError)) throw err;
    logger.info({ campaignId, triggerName, code: err.code }, 'platform had no such webhook subscription: already gone');
  }
}

/**
 * The workspace's hook token, created on first use. Creating replaces any previous token, so two admins
 * subscribing at the same moment must not both create one (the first one's platform subscriptions would
 * point at a dead URL): creation takes a short lock and the loser waits for the winner's token.
 */
export async function ensureHookToken(store: Store, teamId: string): Promise<string> {
  const existing = await store.workspaces.getHookToken(teamId);
  if (existing) return existing;
  const lock = store.keys.dedup(teamId, 'hook-token-create');
  if (await store.kv.set(lock, '1', { ttlMs: CREATE_LOCK_MS, onlyIfAbsent: true })) {
    try {
      return (await store.workspaces.getHookToken(teamId)) ?? (await store.workspaces.createHookToken(teamId));
    } finally {
      await store.kv.del(lock).catch(() => undefined);
    }
  }
  for (let waited = 0; waited < CREATE_LOCK_MS; waited += WAIT_STEP_MS) {
    await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS));
    const token = await store.workspaces.getHookToken(teamId);
    if (token) return token;
  }
  throw new Error('timed out waiting for another request to create the hook token');
}

/**
 * How a hook URL from the platform is shown in Slack: ours is named, never printed; any other URL is cut to
 * its origin (it may carry someone's token too).
 */
export function describeHookUrl(
  url: string,
  ours: { publicUrl?: string | undefined; current?: string | undefined },
): string {
  if (ours.current !== undefined && url === ours.current) return 'this workspace’s hook';
  if (ours.publicUrl !== undefined && url.startsWith(`${ours.publicUrl}${HOOK_PATH}/`))
    return 'an old hook URL of this bot (replaced token)';
  try {
    return `another receiver at ${new URL(url).origin}`;
  } catch {
    return 'an unreadable URL';
  }
}
