/**
 * Who may run admin subcommands: active full members of the workspace (`Membership`, from `users.info`, cached
 * briefly) who are its admins/owners, or who are listed in ADMIN_USER_IDS for this workspace. An admin of
 * another organisation in a shared channel is `is_admin` in *their* workspace, not ours; a deactivated admin is
 * nobody's; both are refused, listed or not.
 *
 * Actions that delete or replace something ask with `fresh: true`: a right revoked a minute ago must not
 * still delete an agent or swap the workspace's key.
 */
import type { WebClient } from '@slack/web-api';
import type { AdminUser } from '../config.js';
import type { Logger } from '../logger.js';
import type { Membership, Workspace } from './membership.js';

/** What a user who is not an admin reads: who may `what` (e.g. `delete agents`). */
export function adminsOnly(what: string): string {
  return `Only Slack workspace admins and owners (or users listed in the app’s ADMIN_USER_IDS) can ${what}.`;
}

export interface AdminCheck {
  /** Ask Slack now instead of trusting the cached verdict. */
  fresh?: boolean;
  /** The workspace's Enterprise Grid org, when the payload names one. */
  enterpriseId?: string | undefined;
}

export class AdminGate {
  constructor(
    /** ADMIN_USER_IDS: a user with a team is an admin of that workspace only; without one (one workspace), of it. */
    private readonly listed: readonly AdminUser[],
    private readonly members: Membership,
    private readonly logger: Logger,
  ) {}

  async isAdmin(client: WebClient, teamId: string, userId: string, check: AdminCheck = {}): Promise<boolean> {
    const ws: Workspace = { teamId, enterpriseId: check.enterpriseId };
    const standing = await this.members.standing(client, ws, userId, { fresh: check.fresh === true });
    // Slack could not tell: fail closed (the failure is not cached, the next try asks again).
    if (!standing) return false;
    if (standing.kind === 'external')
      this.logger.warn(
        { team: teamId, userId, userTeam: standing.userTeam },
        'admin check: the user belongs to another organisation',
      );
    if (standing.kind !== 'member') return false;
    return standing.isAdmin || this.isListed(teamId, userId);
  }

  private isListed(teamId: string, userId: string): boolean {
    return this.listed.some((a) => a.userId === userId && (a.teamId === undefined || a.teamId === teamId));
  }
}
