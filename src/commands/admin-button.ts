import type { AllMiddlewareArgs, App, BlockButtonAction, RespondFn, SlackActionMiddlewareArgs } from '@slack/bolt';
import { adminsOnly } from '../app/admin-gate.js';
import type { Deps } from '../app/deps.js';

/**
 * A button for admins only. It lives in an ephemeral message, but its presser's rights are checked again (they
 * may have changed since): a non-admin is told who may, and nothing is done.
 */
export function adminButton(
  app: App,
  deps: Deps,
  actionId: string,
  whatFor: string,
  press: (p: { teamId: string; userId: string; value: string; respond: RespondFn }) => Promise<void>,
): void {
  app.action<BlockButtonAction>(
    actionId,
    async ({
      ack,
      action,
      body,
      respond,
      client,
    }: SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs) => {
      await ack();
      const teamId = body.team?.id ?? body.user.team_id ?? '';
      if (
        !(await deps.admins.isAdmin(client, teamId, body.user.id, { fresh: true, enterpriseId: body.enterprise?.id }))
      ) {
        await respond({ replace_original: false, text: adminsOnly(whatFor) });
        return;
      }
      await press({ teamId, userId: body.user.id, value: action.value ?? '', respond });
    },
  );
}
