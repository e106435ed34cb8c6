/**
 * Bolt middleware, right after the replay guard: the rest of the request's handling acts for the workspace it
 * came from (its Web API calls are budgeted by that workspace, src/slack/team-scope.ts, whatever token makes
 * them), and a workspace of an Enterprise Grid org is remembered as the org's, so that work outside a request
 * finds an org-wide install from the team id alone (src/store/installations.ts).
 */
import type { Middleware, AnyMiddlewareArgs } from '@slack/bolt';
import type { Logger } from '../logger.js';
import { actingForTeam } from '../slack/team-scope.js';
import type { Store } from '../store/index.js';

export function workspaceScope(store: Store, logger: Logger): Middleware<AnyMiddlewareArgs> {
  return async ({ context, next }) => {
    const { teamId, enterpriseId } = context;
    if (teamId && enterpriseId) {
      try {
        await store.installations.rememberOrg(teamId, enterpriseId);
      } catch (err) {
        // The request is still handled: only work outside requests needs to know the org.
        logger.warn({ err, team: teamId }, 'could not remember the org of a workspace');
      }
    }
    await actingForTeam(teamId, next);
  };
}
