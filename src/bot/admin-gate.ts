/**
 * Who may run admin subcommands: workspace admins/owners (from `users.info`, cached briefly) and the
 * users listed in ADMIN_USER_IDS.
 */
import type { WebClient } from '@slack/web-api';
import type { Store } from '../store/index.js';
import type { Logger } from '../logger.js';

const ADMIN_CACHE_MS = 5 * 60_000;

export class AdminGate {
  private readonly allowList: ReadonlySet<string>;

  constructor(
    adminUserIds: readonly string[],
    private readonly store: Store,
    private readonly logger: Logger,
  ) {
    this.allowList = new Set(adminUserIds);
  }

  async isAdmin(client: WebClient, teamId: string, userId: string): Promise<boolean> {
    if (this.allowList.has(userId)) return true;
    const verdict = await this.store.cache.remember(`admin:${teamId}:${userId}`, ADMIN_CACHE_MS, async () => {
      try {
        const res = await client.users.info({ user: userId });
        const u = res.user;
        return u?.is_admin === true || u?.is_owner === true || u?.is_primary_owner === true ? 'yes' : 'no';
      } catch (err) {
        // Fail closed, and don't cache the failure: the next try asks Slack again.
        this.logger.warn({ err, userId }, 'users.info failed while checking admin rights');
        return undefined;
      }
    });
    return verdict === 'yes';
  }
}
