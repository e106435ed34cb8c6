/**
 * Who may answer customers from a handoff thread: full members of the installing workspace (or of its
 * Enterprise Grid org). Guests, and people of another organisation in a Slack Connect channel, can post in
 * the thread but their replies never reach the customer.
 *
 * In a shared channel a message event names its author's team in `user_team` (and the team the message was
 * posted from in `source_team`), https://api.slack.com/apis/channels-between-orgs — a foreign `user_team`
 * refuses at once; otherwise `users.info` (cached briefly) tells guests from members.
 */
import type { WebClient } from '@slack/web-api';
import type { Deps } from '../app/deps.js';
import { lookUpStanding, sameOrganisation, type Standing, type Workspace } from '../app/membership.js';
import type { Logger } from '../logger.js';

const STANDING_CACHE_MS = 5 * 60_000;

/** Why a user may not answer customers, or undefined for a full member. `unknown`: Slack could not tell us. */
export type Refusal = 'guest' | 'external' | 'unknown';

export async function replyRefusal(
  deps: Pick<Deps, 'store'>,
  client: WebClient,
  ws: Workspace,
  user: { id: string; team?: string | undefined },
  log: Logger,
): Promise<Refusal | undefined> {
  if (user.team && !sameOrganisation(ws, user.team)) return 'external';
  const kind = await deps.store.cache.remember(
    ws.teamId,
    `slack-user-standing:${user.id}`,
    STANDING_CACHE_MS,
    async () => {
      try {
        const standing: Standing = await lookUpStanding(client, ws, user.id);
        return standing.kind;
      } catch (err) {
        // Not cached: the next reply asks again. Meanwhile nothing is sent (fail closed).
        log.warn({ err, user: user.id }, 'users.info failed while checking who answers a customer');
        return undefined;
      }
    },
  );
  if (kind === undefined) return 'unknown';
  return kind === 'member' ? undefined : kind;
}

/** The sentence for someone who may not answer customers (their reply, or their Retry press). */
export function refusalReason(refusal: Refusal): string {
  switch (refusal) {
    case 'guest':
      return 'only full members of this workspace can answer customers, and guests can’t. Ask a member of the team to reply.';
    case 'external':
      return 'only members of the workspace that runs this campaign can answer its customers, and you are in this shared channel from another organisation.';
    case 'unknown':
      return 'Slack could not confirm that you are a full member of this workspace just now. Send your reply again in a minute.';
  }
}
