/**
 * Who is answering: a Slack user's display name (for logs and for notes in other channels), and the platform
 * agent id an admin mapped them to with `/campaign agent-link` (sent as `agentId`, omitted when unmapped).
 */
import type { WebClient } from '@slack/web-api';
import type { Deps } from '../app/deps.js';

const NAME_CACHE_MS = 60 * 60_000;

export async function displayName(
  deps: Pick<Deps, 'store' | 'logger'>,
  client: WebClient,
  teamId: string,
  userId: string,
): Promise<string> {
  const name = await deps.store.cache.remember(teamId, `slack-user-name:${userId}`, NAME_CACHE_MS, async () => {
    try {
      const res = await client.users.info({ user: userId });
      const u = res.user;
      const best = [u?.profile?.display_name, u?.real_name, u?.profile?.real_name, u?.name].find(
        (n) => typeof n === 'string' && n.trim() !== '',
      );
      return best?.trim();
    } catch (err) {
      // Not cached: the next reply asks Slack again. The user id stands in meanwhile.
      deps.logger.warn({ err, user: userId }, 'users.info failed while naming a handoff agent');
      return undefined;
    }
  });
  return name ?? userId;
}

export async function platformAgentId(
  deps: Pick<Deps, 'store'>,
  teamId: string,
  userId: string,
): Promise<string | undefined> {
  return deps.store.agentLinks.get(teamId, userId);
}
