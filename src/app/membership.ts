/**
 * Who belongs to the installing workspace. A channel can hold people the workspace does not fully trust:
 * guests (`is_restricted` / `is_ultra_restricted`) and, in a Slack Connect channel, users of another
 * organisation (their `team_id` is their own team's). On an Enterprise Grid install, any workspace of the
 * same enterprise counts as ours. Decided from `users.info`, which names the user's own team.
 */
import type { WebClient } from '@slack/web-api';

export interface Workspace {
  teamId: string;
  /** Set for a workspace of an Enterprise Grid org. */
  enterpriseId?: string | undefined;
}

export type Standing =
  /** A full member of the workspace (or of its enterprise). */
  { kind: 'member'; isAdmin: boolean } | { kind: 'guest' } | { kind: 'external'; userTeam: string | undefined };

/** The parts of a users.info `user` this reads. */
interface SlackUserFacts {
  team_id?: string | undefined;
  is_admin?: boolean | undefined;
  is_owner?: boolean | undefined;
  is_primary_owner?: boolean | undefined;
  is_restricted?: boolean | undefined;
  is_ultra_restricted?: boolean | undefined;
  enterprise_user?: { enterprise_id?: string | undefined } | undefined;
}

/** Whether a team id (from an event's `user_team`, or a user's `team_id`) is the workspace or its enterprise. */
export function sameOrganisation(ws: Workspace, teamId: string | undefined, enterpriseId?: string): boolean {
  if (!teamId && !enterpriseId) return false;
  if (teamId === ws.teamId) return true;
  if (!ws.enterpriseId) return false;
  return teamId === ws.enterpriseId || enterpriseId === ws.enterpriseId;
}

function standingOf(ws: Workspace, user: SlackUserFacts): Standing {
  if (!sameOrganisation(ws, user.team_id, user.enterprise_user?.enterprise_id))
    return { kind: 'external', userTeam: user.team_id };
  if (user.is_restricted === true || user.is_ultra_restricted === true) return { kind: 'guest' };
  return {
    kind: 'member',
    isAdmin: user.is_admin === true || user.is_owner === true || user.is_primary_owner === true,
  };
}

/** users.info → standing. Throws what the Web API throws (callers fail closed). */
export async function lookUpStanding(client: WebClient, ws: Workspace, userId: string): Promise<Standing> {
  const res = await client.users.info({ user: userId });
  return standingOf(ws, res.user ?? {});
}
