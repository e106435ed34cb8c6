/**
 * Who may answer customers from a handoff thread: active full members of the installing workspace (or of its
 * Enterprise Grid org). Guests, deactivated users and people of another organisation in a Slack Connect
 * channel can post in the thread but their replies never reach the customer.
 *
 * In a shared channel a message event names its author's team in `user_team` (and the team the message was
 * posted from in `source_team`), https://api.slack.com/apis/channels-between-orgs — a foreign `user_team`
 * refuses at once, unless the workspace belongs to an Enterprise Grid org: a member of a sibling workspace has
 * its own team id, so `users.info` (its `enterprise_user.enterprise_id`) tells a sibling from a stranger.
 * Otherwise `users.info` (cached briefly, `Membership`) tells guests from members.
 */
import type { WebClient } from '@slack/web-api';
import type { Deps } from '../app/deps.js';
import { sameOrganisation, type Refusal, type Workspace } from '../app/membership.js';
import type { Logger } from '../logger.js';

export async function replyRefusal(
  deps: Pick<Deps, 'members'>,
  client: WebClient,
  ws: Workspace,
  user: { id: string; team?: string | undefined },
  log: Logger,
): Promise<Refusal | undefined> {
  if (user.team && !ws.enterpriseId && !sameOrganisation(ws, user.team)) return 'external';
  const refusal = await deps.members.refusal(client, ws, user.id);
  if (refusal === 'unknown') log.warn({ user: user.id }, 'could not tell whether a user may answer a customer');
  return refusal;
}

/** The sentence for someone who may not answer customers (their reply, or their Retry press). */
export function refusalReason(refusal: Refusal): string {
  switch (refusal) {
    case 'guest':
      return 'only full members of this workspace can answer customers, and guests can’t. Ask a member of the team to reply.';
    case 'external':
      return 'only members of the workspace that runs this campaign can answer its customers, and you are in this shared channel from another organisation.';
    case 'deactivated':
      return 'only active members of this workspace can answer customers, and this account is deactivated. Ask a member of the team to reply.';
    case 'unknown':
      return 'Slack could not confirm that you are a full member of this workspace just now. Send your reply again in a minute.';
  }
}
