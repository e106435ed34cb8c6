/**
 * Who may run admin subcommands: admins/owners who are full members of the workspace (from `users.info`,
 * cached briefly) and the users listed in ADMIN_USER_IDS. An admin of another organisation in a shared
 * channel is `is_admin` in *their* workspace, not ours: `standingOf` refuses them.
 *
 * Actions that delete or replace something ask with `fresh: true`: a right revoked a minute ago must not
 * still delete an agent or swap the workspace's key.
 */
import type { WebClient } from '@slack/web-api';
import type { Store } from '../store/index.js';
import type { Logger } from '../logger.js';
import { lookUpStanding, type Workspace } from './membership.js';

const ADMIN_CACHE_MS = 5 * 60_000;

export interface AdminCheck {
  /** Ask Slack now instead of trusting the cached verdict. */
  fresh?: boolean;
  /** The workspace's Enterprise Grid org, when the payload names one. */
  enterpriseId?: string | undefined;
}

export class AdminGate {
  private readonly allowList: ReadonlySet<string>;

  constructor(
    adminUserIds: readonly string[],
    private readonly store: Store,
    private readonly logger: Logger,
  ) {
    this.allowList = new Set(adminUserIds);
  }

  async isAdmin(client: WebClient, teamId: string, userId: string, check: AdminCheck = {}): Promise<boolean> {
    if (this.allowList.has(userId)) return true;
    const key = `admin:${userId}`;
    if (check.fresh) await this.store.cache.forget(teamId, key);
    const ws: Workspace = { teamId, enterpriseId: check.enterpriseId };
    const verdict = await this.store.cache.remember(teamId, key, ADMIN_CACHE_MS, async () => {
      try {
        const standing = await lookUpStanding(client, ws, userId);
        if (standing.kind === 'external')
          this.logger.warn(
            { team: teamId, userId, userTeam: standing.userTeam },
            'admin check: the user belongs to another organisation',
          );
        return standing.kind === 'member' && standing.isAdmin ? 'yes' : 'no';
      } catch (err) {
        // Fail closed, and don't cache the failure: the next try asks Slack again.
        this.logger.warn({ err, userId }, 'users.info failed while checking admin rights');
        return undefined;
      }
    });
    return verdict === 'yes';
  }
}
