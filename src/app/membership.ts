/**
 * Who belongs to the installing workspace. A channel can hold people the workspace does not fully trust, and
 * `users.info` (https://docs.slack.dev/reference/methods/users.info, user fields:
 * https://docs.slack.dev/reference/objects/user-object) tells them apart:
 *
 * - `deleted: true` — a deactivated account: nobody, whatever roles it had;
 * - another organisation in a Slack Connect channel — `is_stranger: true` ("a user belonging to a foreign
 *   workspace party to a shared channel"), or a `team_id` that is neither the workspace nor, on Enterprise
 *   Grid, its org (`enterprise_user.enterprise_id`: any workspace of the same org counts as ours);
 * - guests — `is_restricted` (multi-channel) / `is_ultra_restricted` (single-channel);
 * - everyone else is a full member (an admin when `is_admin` / `is_owner` / `is_primary_owner`).
 *
 * One cached verdict per workspace and user, shared by every replica, serves every gate (admin, customer data,
 * Home, handoff replies and buttons): a busy user costs one `users.info` (Tier 4, "100+ per minute") every five
 * minutes. The call goes through the caller's paced client (`src/delivery/pace.ts`: Slack-down probing, 429s
 * counted); a 429 is tried once more, after its Retry-After.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logger.js';
import type { Store } from '../store/index.js';
import { onceMoreAfterRateLimit } from '../slack/post.js';

export interface Workspace {
  teamId: string;
  /** Set for a workspace of an Enterprise Grid org. */
  enterpriseId?: string | undefined;
}

export type Standing =
  /** A full member of the workspace (or of its enterprise). */
  | { kind: 'member'; isAdmin: boolean }
  | { kind: 'guest' }
  | { kind: 'external'; userTeam: string | undefined }
  | { kind: 'deactivated' };

/** Why someone is not a full member; `unknown`: Slack could not tell us just now (fail closed). */
export type Refusal = Exclude<Standing['kind'], 'member'> | 'unknown';

/** The parts of a user object (users.info, users.list, team_join, user_change) this reads. */
export interface SlackUserFacts {
  team_id?: string | undefined;
  deleted?: boolean | undefined;
  is_admin?: boolean | undefined;
  is_owner?: boolean | undefined;
  is_primary_owner?: boolean | undefined;
  is_restricted?: boolean | undefined;
  is_ultra_restricted?: boolean | undefined;
  is_stranger?: boolean | undefined;
  enterprise_user?: { enterprise_id?: string | undefined } | undefined;
}

/** Whether a team id (from an event's `user_team`, or a user's `team_id`) is the workspace or its enterprise. */
export function sameOrganisation(ws: Workspace, teamId: string | undefined, enterpriseId?: string): boolean {
  if (!teamId && !enterpriseId) return false;
  if (teamId === ws.teamId) return true;
  if (!ws.enterpriseId) return false;
  return teamId === ws.enterpriseId || enterpriseId === ws.enterpriseId;
}

export function standingOf(ws: Workspace, user: SlackUserFacts): Standing {
  // First: a deactivated admin is neither an admin nor a member.
  if (user.deleted === true) return { kind: 'deactivated' };
  if (user.is_stranger === true || !sameOrganisation(ws, user.team_id, user.enterprise_user?.enterprise_id))
    return { kind: 'external', userTeam: user.team_id };
  if (user.is_restricted === true || user.is_ultra_restricted === true) return { kind: 'guest' };
  return {
    kind: 'member',
    isAdmin: user.is_admin === true || user.is_owner === true || user.is_primary_owner === true,
  };
}

/** How long a verdict is trusted: a guest promoted (or a member deactivated) is seen within this long. */
const STANDING_CACHE_MS = 5 * 60_000;

export class Membership {
  constructor(
    private readonly store: Pick<Store, 'cache'>,
    private readonly logger: Logger,
  ) {}

  /**
   * The user's standing in the workspace, or undefined when Slack could not tell (not cached: the next call
   * asks again). `fresh`: ask Slack now instead of trusting the cached verdict.
   */
  async standing(
    client: WebClient,
    ws: Workspace,
    userId: string,
    opts: { fresh?: boolean } = {},
  ): Promise<Standing | undefined> {
    // The verdict depends on the org too (sameOrganisation), so the key names both.
    const key = `slack-user-standing:${ws.enterpriseId ?? '-'}:${userId}`;
    if (opts.fresh) await this.store.cache.forget(ws.teamId, key);
    return this.store.cache.remember(ws.teamId, key, STANDING_CACHE_MS, async (): Promise<Standing | undefined> => {
      try {
        const res = await onceMoreAfterRateLimit(() => client.users.info({ user: userId }));
        return standingOf(ws, res.user ?? {});
      } catch (err) {
        this.logger.warn({ err, team: ws.teamId, user: userId }, 'users.info failed while checking who a user is');
        return undefined;
      }
    });
  }

  /** Why the user is not a full member, or undefined for a full member. */
  async refusal(client: WebClient, ws: Workspace, userId: string): Promise<Refusal | undefined> {
    const standing = await this.standing(client, ws, userId);
    if (!standing) return 'unknown';
    return standing.kind === 'member' ? undefined : standing.kind;
  }
}

/**
 * The one sentence for someone who may not see customer data (`what` is what they asked for, e.g.
 * "`/campaign bookings`", and `shows`/`show` agrees with it).
 */
export function customerDataRefusal(what: string, refusal: Refusal): string {
  const subject = `${what} shows customer details (names, numbers, e-mails, messages)`;
  switch (refusal) {
    case 'guest':
      return `${subject}, so it is for full members of this workspace, and guests can’t see it. Ask a member or an admin.`;
    case 'external':
      return `${subject}, so it is for members of the workspace that runs these campaigns, and you are here from another organisation. Ask one of its members.`;
    case 'deactivated':
      return `${subject}, so it is for active members of this workspace, and your account is deactivated here. Ask a workspace admin.`;
    case 'unknown':
      return `${subject}, and Slack could not confirm just now that you are a full member of this workspace. Try again in a minute.`;
  }
}
