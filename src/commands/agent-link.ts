/**
 * `/campaign agent-link @user [agentId|remove]` (admins): which platform agent a Slack user speaks as
 * when answering handoff threads. Without a mapping, replies go out with no `agentId`. An agent's name as the
 * platform's events show it works too (`agent-link @dana riley`); an id the bot has not seen is taken as typed.
 */
import { escapeMrkdwn } from '../slack/blocks.js';
import { matchEntry } from './catalog-match.js';
import { entryLabel, pickList, unseenNote } from './campaign-ref.js';
import type { Subcommand } from './types.js';

/** Slack escapes a mentioned user as `<@U123|name>` (manifest: should_escape). */
const USER_MENTION = /^<@([UW][A-Z0-9]+)(?:\|[^>]*)?>$/;

export const agentLink: Subcommand = {
  name: 'agent-link',
  usage: 'agent-link @user [agentId|remove]',
  summary: 'send a user’s thread replies as a platform agent',
  admin: true,
  args: { min: 1, max: 2 },
  async run(ctx) {
    const [mention = '', agentId] = ctx.args;
    const userId = USER_MENTION.exec(mention)?.[1];
    if (!userId) {
      await ctx.tell('Mention the Slack user, e.g. `/campaign agent-link @dana agent-31`.');
      return;
    }
    const links = ctx.deps.store.agentLinks;
    if (agentId === undefined) {
      const current = await links.get(ctx.teamId, userId);
      await ctx.tell(
        current
          ? `<@${userId}> answers handoff threads as agent \`${escapeMrkdwn(current)}\`.`
          : `<@${userId}> is not linked to a platform agent; their replies are sent without an agent id.`,
      );
      return;
    }
    if (agentId.toLowerCase() === 'remove') {
      const removed = await links.remove(ctx.teamId, userId);
      await ctx.tell(
        removed
          ? `<@${userId}> is no longer linked to a platform agent.`
          : `<@${userId}> was not linked to a platform agent.`,
      );
      return;
    }
    const match = matchEntry(agentId, await ctx.deps.store.catalog.list(ctx.teamId, 'agents'));
    if (match.kind === 'ambiguous') return ctx.tell(pickList(agentId, match.matches, 'agents'));
    if (match.kind === 'known') {
      await links.set(ctx.teamId, userId, match.entry.id);
      ctx.logger.info({ linkedUser: userId, agentId: match.entry.id }, 'agent linked');
      return ctx.tell(
        `✅ Replies from <@${userId}> in handoff threads are now sent as agent ${entryLabel(match.entry)}.`,
      );
    }
    if (!/^[\w.:-]{1,200}$/.test(agentId)) {
      await ctx.tell(
        'That agent id has characters the platform does not use in ids — copy it from the platform portal.',
      );
      return;
    }
    await links.set(ctx.teamId, userId, agentId);
    ctx.logger.info({ linkedUser: userId, agentId }, 'agent linked');
    const note = unseenNote({ id: agentId, by: 'unseen', near: match.near }, 'agent');
    await ctx.tell(
      `✅ Replies from <@${userId}> in handoff threads are now sent as agent \`${escapeMrkdwn(agentId)}\`.${note}`,
    );
  },
};
