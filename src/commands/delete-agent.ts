/**
 * `/campaign delete-agent <campaign> <agent>` (admins): a confirmation naming both (ids, and names the bot
 * knows), then DELETE /agent/{campaignId}/{agentId}. Each is its id or its name (`campaign-ref.ts`); a campaign
 * name of several words is read as long as it is a known one, the rest is the agent.
 */
import type { BlockButtonAction } from '@slack/bolt';
import { z } from 'zod';
import { actions, button, escapeMrkdwn, message, mrkdwn, section } from '../slack/blocks.js';
import { parseJsonValue } from '../slack/json-value.js';
import { failureMessage, failureOf, logFailure } from '../app/failure.js';
import type { Deps } from '../app/deps.js';
import { nearest } from './catalog-match.js';
import {
  chooseAgent,
  chooseCampaign,
  confirmCampaign,
  didYouMean,
  entryLabel,
  knownCampaigns,
  unseenNote,
  type CampaignChoice,
} from './campaign-ref.js';
import { adminButton } from './admin-button.js';
import type { CommandContext, Subcommand } from './types.js';

const CONFIRM_ACTION = 'delete_agent_confirm';
const CANCEL_ACTION = 'delete_agent_cancel';
const target = z.object({ campaignId: z.string().min(1).max(200), agentId: z.string().min(1).max(200) });

export const deleteAgent: Subcommand = {
  name: 'delete-agent',
  usage: 'delete-agent <campaignId> <agentId>',
  summary: 'delete an agent from a campaign (asks to confirm)',
  admin: true,
  args: { min: 2, max: 16 },
  async run(ctx) {
    const split = await splitCampaignAndAgent(ctx);
    if (!split.choice.ok) return ctx.tell(split.choice.sentence);
    const campaign = split.choice.target;
    // A confirmation for a campaign that is a typo would only end in a 404: told before asking.
    if (!(await confirmCampaign(ctx, campaign))) return;
    const agentChoice = await chooseAgent(ctx.deps, ctx.teamId, campaign.id, split.agentText);
    if (!agentChoice.ok) return ctx.tell(agentChoice.sentence);
    const agent = agentChoice.target;
    const campaignId = campaign.id;
    const agentId = agent.id;
    const what = `agent ${entryLabel(agent)} from campaign ${entryLabel(campaign)}`;
    const notes = unseenNote(agent, 'agent');
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
        section(`⚠️ Delete ${what}? This cannot be undone.${notes}`),
        actions([confirm, button('Cancel', CANCEL_ACTION)]),
      ]),
    );
  },
  register(app, deps) {
    app.action<BlockButtonAction>(CANCEL_ACTION, async ({ ack, respond }) => {
      await ack();
      await respond({ replace_original: true, text: 'Cancelled — nothing was deleted.' });
    });
    adminButton(app, deps, CONFIRM_ACTION, 'delete agents', async ({ teamId, userId, value, respond }) => {
      const parsed = parseJsonValue(value, target);
      if (!parsed) {
        await respond({
          replace_original: true,
          text: 'That confirmation is out of date — run `/campaign delete-agent` again.',
        });
        return;
      }
      const { campaignId, agentId } = parsed;
      const what = `agent \`${escapeMrkdwn(agentId)}\` from campaign \`${escapeMrkdwn(campaignId)}\``;
      try {
        const api = await deps.platform.clientFor(teamId);
        await api.agents.delete(campaignId, agentId);
        deps.logger.info({ team: teamId, user: userId, campaignId, agentId }, 'agent deleted');
        await deps.store.catalog
          .forget(teamId, 'agents', agentId)
          .catch((err: unknown) => deps.logger.warn({ err }, 'could not forget a deleted agent in the catalog'));
        await respond({ replace_original: true, text: `🗑️ Deleted ${what}.` });
      } catch (err) {
        logFailure(deps.logger, err, { team: teamId, campaignId, agentId }, 'agent delete failed');
        const near = await nearAgents(deps, teamId, campaignId, agentId);
        const notFound = `There is no ${what} — nothing was deleted.${didYouMean(near)}`;
        await respond({ replace_original: true, ...failureMessage(failureOf(err, { notFound })) });
      }
    });
  },
};

/**
 * The campaign is the longest run of leading words that is a known campaign name (leaving a word for the
 * agent), else the first word; the rest names the agent.
 */
async function splitCampaignAndAgent(ctx: CommandContext): Promise<{ choice: CampaignChoice; agentText: string }> {
  const words = ctx.args;
  const known = await knownCampaigns(ctx.deps, ctx.teamId);
  for (let k = words.length - 1; k > 1; k--) {
    const choice = await chooseCampaign(ctx.deps, ctx.teamId, words.slice(0, k).join(' '), { known });
    if ((choice.ok && choice.target.by === 'name') || (!choice.ok && choice.reason === 'ambiguous'))
      return { choice, agentText: words.slice(k).join(' ') };
  }
  return {
    choice: await chooseCampaign(ctx.deps, ctx.teamId, words[0] ?? '', { known }),
    agentText: words.slice(1).join(' '),
  };
}

/** Agents of the campaign the bot knows a few typos away from `agentId` (for a 404). */
async function nearAgents(deps: Deps, teamId: string, campaignId: string, agentId: string) {
  try {
    const agents = (await deps.store.catalog.list(teamId, 'agents')).filter((a) => a.campaignId === campaignId);
    return nearest(agentId, agents).filter((a) => a.id !== agentId);
  } catch {
    return [];
  }
}
