/**
 * `/campaign delete-agent <campaignId> <agentId>` (admins): a confirmation naming both ids, then
 * DELETE /agent/{campaignId}/{agentId}.
 */
import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { z } from 'zod';
import { actions, button, escapeMrkdwn, message, mrkdwn, section } from '../slack/blocks.js';
import { parseJsonValue } from '../slack/json-value.js';
import { describeFailure, logFailure } from '../app/failure.js';
import type { Subcommand } from './types.js';

const CONFIRM_ACTION = 'delete_agent_confirm';
const CANCEL_ACTION = 'delete_agent_cancel';
const target = z.object({ campaignId: z.string().min(1).max(200), agentId: z.string().min(1).max(200) });

export const deleteAgent: Subcommand = {
  name: 'delete-agent',
  usage: 'delete-agent <campaignId> <agentId>',
  summary: 'delete an agent from a campaign (asks to confirm)',
  admin: true,
  args: { min: 2, max: 2 },
  async run(ctx) {
    const [campaignId = '', agentId = ''] = ctx.args;
    const what = `agent \`${escapeMrkdwn(agentId)}\` from campaign \`${escapeMrkdwn(campaignId)}\``;
    const value = JSON.stringify({ campaignId, agentId });
    const confirm = button('Delete agent', CONFIRM_ACTION, { value, style: 'danger' });
    confirm.confirm = {
      title: { type: 'plain_text', text: 'Delete this agent?' },
      text: mrkdwn(`This permanently deletes ${what}.`, 300),
      confirm: { type: 'plain_text', text: 'Delete' },
      deny: { type: 'plain_text', text: 'Keep it' },
      style: 'danger',
    };
    await ctx.reply(
      message(`Delete ${what}?`, [
        section(`⚠️ Delete ${what}? This cannot be undone.`),
        actions([confirm, button('Cancel', CANCEL_ACTION)]),
      ]),
    );
  },
  register(app, deps) {
    app.action<BlockButtonAction>(CANCEL_ACTION, async ({ ack, respond }) => {
      await ack();
      await respond({ replace_original: true, text: 'Cancelled — nothing was deleted.' });
    });
    app.action<BlockButtonAction>(
      CONFIRM_ACTION,
      async ({
        ack,
        action,
        body,
        respond,
        client,
      }: SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs) => {
        await ack();
        const teamId = body.team?.id ?? body.user.team_id ?? '';
        const parsed = parseJsonValue(action.value, target);
        if (!parsed) {
          await respond({
            replace_original: true,
            text: 'That confirmation is out of date — run `/campaign delete-agent` again.',
          });
          return;
        }
        const { campaignId, agentId } = parsed;
        const what = `agent \`${escapeMrkdwn(agentId)}\` from campaign \`${escapeMrkdwn(campaignId)}\``;
        // The button lives in an ephemeral message, but re-check: rights may have changed since.
        if (
          !(await deps.admins.isAdmin(client, teamId, body.user.id, { fresh: true, enterpriseId: body.enterprise?.id }))
        ) {
          await respond({ replace_original: true, text: 'Only Slack workspace admins can delete agents.' });
          return;
        }
        try {
          const api = await deps.platform.clientFor(teamId);
          await api.agents.delete(campaignId, agentId);
          deps.logger.info({ team: teamId, user: body.user.id, campaignId, agentId }, 'agent deleted');
          await respond({ replace_original: true, text: `🗑️ Deleted ${what}.` });
        } catch (err) {
          logFailure(deps.logger, err, { team: teamId, campaignId, agentId }, 'agent delete failed');
          await respond({
            replace_original: true,
            text: describeFailure(err, { notFound: `There is no ${what} — nothing was deleted.` }),
          });
        }
      },
    );
  },
};
